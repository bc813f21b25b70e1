// The renderer draws the right pixels: every shm format, damage-only uploads, source boxes, alpha, scissor.
#include "renderer/cpu_compositor.hpp"
#include "renderer/formats.hpp"
#include "tests/gl/gl_fixture.hpp"

#include <GLES3/gl3.h>
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>

using namespace kiln::renderer;
using kiln::test::box_matrix;
using kiln::test::GlFixture;

namespace {

// One pixel of colour 0xRRGGBB in `fourcc`'s memory layout (little-endian).
std::vector<uint8_t> encode(uint32_t fourcc, uint32_t rgb, int32_t count)
{
    const uint8_t r = (rgb >> 16) & 0xff, g = (rgb >> 8) & 0xff, b = rgb & 0xff;
    std::vector<uint8_t> out;
    for (int32_t i = 0; i < count; ++i) {
        switch (fourcc) {
        case fourcc::argb8888:
        case fourcc::xrgb8888: out.insert(out.end(), {b, g, r, 0xff}); break;
        case fourcc::abgr8888:
        case fourcc::xbgr8888: out.insert(out.end(), {r, g, b, 0xff}); break;
        case fourcc::rgb565: {
            const uint16_t v = static_cast<uint16_t>(((r >> 3) << 11) | ((g >> 2) << 5) | (b >> 3));
            out.insert(out.end(), {static_cast<uint8_t>(v & 0xff), static_cast<uint8_t>(v >> 8)});
            break;
        }
        case fourcc::argb2101010:
        case fourcc::xrgb2101010:
        case fourcc::abgr2101010:
        case fourcc::xbgr2101010: {
            // 8 bits widened to 10 (v * 1023 / 255 is exact for 0 and 255); B in the low bits for *RGB*.
            const auto ten = [](uint8_t v) { return static_cast<uint32_t>(v) * 1023u / 255u; };
            const bool rgb = fourcc == fourcc::argb2101010 || fourcc == fourcc::xrgb2101010;
            const uint32_t low = ten(rgb ? b : r), high = ten(rgb ? r : b);
            const uint32_t v = 3u << 30 | high << 20 | ten(g) << 10 | low;
            out.insert(out.end(), {static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v >> 16),
                                   static_cast<uint8_t>(v >> 24)});
            break;
        }
        case fourcc::abgr16161616f:
        case fourcc::xbgr16161616f:
            // Half floats R, G, B, A: 0x3c00 is 1.0, 0 is 0.0.
            for (const uint8_t v : {r, g, b, uint8_t{0xff}})
                out.insert(out.end(), {uint8_t{0}, static_cast<uint8_t>(v ? 0x3c : 0)});
            break;
        default: FAIL("no encoder for format");
        }
    }
    return out;
}

}  // namespace

TEST_CASE("each shm format draws its colour", "[gl]")
{
    GlFixture gl;
    for (uint32_t format : gl.renderer->shm_formats())
        for (uint32_t colour : {0xff0000u, 0x00ff00u, 0x0000ffu}) {
        INFO(format_name(format) << " colour " << std::hex << colour);
        // Saturated channels are exact in every format (RGB565 included); red vs blue catches swapped channels.
        auto memory = encode(format, colour, 8 * 8);
        const uint32_t bpp = format_info(format)->planes[0].bytes_per_pixel;
        std::string error;
        auto texture = gl.renderer->create_shm_texture({format, 8, 8, 8 * bpp, memory.data()}, error);
        REQUIRE(texture);
        auto target = gl.make_target(16, 16);
        gl.renderer->begin(*target.target);
        gl.renderer->clear({0, 0, 0, 1});
        REQUIRE(gl.renderer->draw_texture(*texture, {0, 0, 8, 8}, box_matrix(4, 4, 8, 8), 1.0f));
        REQUIRE(gl.renderer->end());
        CHECK(target.at(8, 8) == colour);
        CHECK(target.at(4, 4) == colour);
        CHECK(target.at(11, 11) == colour);
        CHECK(target.at(3, 3) == 0x000000);
        CHECK(target.at(12, 12) == 0x000000);
        }
}

TEST_CASE("rows come out top-down: the first memory row of a texture is the top of the quad", "[gl]")
{
    GlFixture gl;
    std::vector<uint32_t> memory(4 * 4, 0xff0000ff);  // blue (XRGB)
    for (int x = 0; x < 4; ++x)
        memory[static_cast<size_t>(x)] = 0xffff0000;  // first row red
    std::string error;
    auto texture = gl.renderer->create_shm_texture({fourcc::xrgb8888, 4, 4, 16, memory.data()}, error);
    REQUIRE(texture);
    auto target = gl.make_target(4, 4);
    gl.renderer->begin(*target.target);
    gl.renderer->draw_texture(*texture, {0, 0, 4, 4}, box_matrix(0, 0, 4, 4), 1.0f);
    gl.renderer->end();
    CHECK(target.at(1, 0) == 0xff0000);
    CHECK(target.at(1, 3) == 0x0000ff);
    uint32_t read[4 * 4] = {};
    REQUIRE(gl.renderer->read_pixels(fourcc::xrgb8888, 16, {0, 0, 4, 4}, read));
    CHECK((read[1] & 0xffffff) == 0xff0000);
    CHECK((read[13] & 0xffffff) == 0x0000ff);
}

TEST_CASE("a damaged region uploads only its bytes and leaves the rest of the texture alone", "[gl]")
{
    GlFixture gl;
    std::vector<uint32_t> memory(64 * 64, 0xff00ff00);  // green
    std::string error;
    auto texture = gl.renderer->create_shm_texture({fourcc::xrgb8888, 64, 64, 64 * 4, memory.data()}, error);
    REQUIRE(texture);
    const uint64_t after_create = gl.renderer->stats().shm_upload_bytes;
    CHECK(after_create == 64 * 64 * 4);

    // The client repaints everything red but damages only a 10x6 box at (20, 30).
    std::fill(memory.begin(), memory.end(), 0xffff0000);
    REQUIRE(texture->write_pixels(64 * 4, {20, 30, 10, 6}, memory.data()));
    CHECK(gl.renderer->stats().shm_upload_bytes - after_create == 10 * 6 * 4);

    auto target = gl.make_target(64, 64);
    gl.renderer->begin(*target.target);
    gl.renderer->draw_texture(*texture, {0, 0, 64, 64}, box_matrix(0, 0, 64, 64), 1.0f);
    gl.renderer->end();
    CHECK(target.at(20, 30) == 0xff0000);
    CHECK(target.at(29, 35) == 0xff0000);
    CHECK(target.at(19, 30) == 0x00ff00);
    CHECK(target.at(30, 35) == 0x00ff00);
    CHECK(target.at(25, 36) == 0x00ff00);
    CHECK(target.at(0, 0) == 0x00ff00);
}

TEST_CASE("high-depth formats upload only the damaged box, in their own GL type", "[gl]")
{
    GlFixture gl;
    for (uint32_t format : {fourcc::xrgb2101010, fourcc::abgr2101010, fourcc::abgr16161616f}) {
        INFO(format_name(format));
        const uint32_t bpp = format_info(format)->planes[0].bytes_per_pixel;
        auto memory = encode(format, 0x00ff00, 16 * 16);  // green
        std::string error;
        auto texture = gl.renderer->create_shm_texture({format, 16, 16, 16 * bpp, memory.data()}, error);
        REQUIRE(texture);
        const uint64_t before = gl.renderer->stats().shm_upload_bytes;
        // The client repaints everything red but damages only a 5x3 box at (4, 6).
        memory = encode(format, 0xff0000, 16 * 16);
        REQUIRE(texture->write_pixels(16 * bpp, {4, 6, 5, 3}, memory.data()));
        CHECK(gl.renderer->stats().shm_upload_bytes - before == 5 * 3 * bpp);
        auto target = gl.make_target(16, 16);
        gl.renderer->begin(*target.target);
        gl.renderer->draw_texture(*texture, {0, 0, 16, 16}, box_matrix(0, 0, 16, 16), 1.0f);
        gl.renderer->end();
        CHECK(target.at(4, 6) == 0xff0000);
        CHECK(target.at(8, 8) == 0xff0000);
        CHECK(target.at(3, 6) == 0x00ff00);
        CHECK(target.at(9, 8) == 0x00ff00);
        CHECK(target.at(4, 9) == 0x00ff00);
    }
}

TEST_CASE("a 10-bit ramp drawn into an RGB10_A2 framebuffer keeps every 1/1023 step", "[gl]")
{
    GlFixture gl;
    // Red up, green down, blue up: one step of one code value per pixel, 1,024 pixels.
    std::vector<uint32_t> ramp(1024);
    for (uint32_t x = 0; x < 1024; ++x)
        ramp[x] = 3u << 30 | x << 20 | (1023 - x) << 10 | x;  // ABGR2101010: red in the low bits
    std::string error;
    auto texture = gl.renderer->create_shm_texture({fourcc::abgr2101010, 1024, 1, 1024 * 4, ramp.data()}, error);
    REQUIRE(texture);
    // This test's framebuffer (raw GL) is 10-bit, drawn into between begin() and end() as the renderer's target
    // would be (the renderer's own 10-bit CPU targets are the next test's).
    auto target = gl.make_target(1024, 1);
    GLuint colour = 0, framebuffer = 0;
    glGenTextures(1, &colour);
    glBindTexture(GL_TEXTURE_2D, colour);
    glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGB10_A2, 1024, 1);
    glGenFramebuffers(1, &framebuffer);
    gl.renderer->begin(*target.target);
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, colour, 0);
    REQUIRE(glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE);
    REQUIRE(gl.renderer->draw_texture(*texture, {0, 0, 1024, 1}, box_matrix(0, 0, 1024, 1), 1.0f, Filter::nearest));
    std::vector<uint32_t> read(1024);
    glReadPixels(0, 0, 1024, 1, GL_RGBA, GL_UNSIGNED_INT_2_10_10_10_REV, read.data());
    REQUIRE(glGetError() == GL_NO_ERROR);
    glBindFramebuffer(GL_FRAMEBUFFER, target.target->framebuffer());
    gl.renderer->end();
    glDeleteFramebuffers(1, &framebuffer);
    glDeleteTextures(1, &colour);
    int worst = 0;
    for (uint32_t x = 0; x < 1024; ++x) {
        const auto channel = [&](int shift) { return static_cast<int>((read[x] >> shift) & 0x3ff); };
        const int up = static_cast<int>(x), down = static_cast<int>(1023 - x);
        worst = std::max({worst, std::abs(channel(0) - up), std::abs(channel(10) - down), std::abs(channel(20) - up)});
    }
    INFO("first texels read " << std::hex << read[0] << " " << read[1] << " " << read[2]);
    CHECK(worst == 0);
}

TEST_CASE("a 10-bit CPU target (an HDR output's capture) reads back every 1/1023 step in its own layout", "[gl]")
{
    GlFixture gl;
    // ABGR2101010 (red in the low bits): red rises one code value a pixel, green falls, blue is a third of red, so a
    // red/blue swap or an 8-bit step shows.
    std::vector<uint32_t> ramp(1024);
    for (uint32_t x = 0; x < 1024; ++x)
        ramp[x] = 3u << 30 | (x / 3) << 20 | (1023 - x) << 10 | x;
    std::string error;
    auto texture = gl.renderer->create_shm_texture({fourcc::abgr2101010, 1024, 1, 1024 * 4, ramp.data()}, error);
    REQUIRE(texture);
    for (const uint32_t format : {fourcc::xrgb2101010, fourcc::xbgr2101010}) {
        INFO(format_name(format));
        auto target = gl.renderer->create_cpu_target(format, 1024, 1, error);
        INFO(error);
        REQUIRE(target);
        std::vector<uint32_t> memory(1024, 0xdeadbeef);
        target->set_destination(memory.data(), 1024 * 4);
        gl.renderer->begin(*target);
        REQUIRE(gl.renderer->draw_texture(*texture, {0, 0, 1024, 1}, box_matrix(0, 0, 1024, 1), 1.0f, Filter::nearest));
        gl.renderer->end();
        target->set_destination(nullptr, 0);
        const bool red_high = format == fourcc::xrgb2101010;  // XRGB2101010: red in bits 20..29
        int worst = 0;
        for (uint32_t x = 0; x < 1024; ++x) {
            const auto channel = [&](int shift) { return static_cast<int>((memory[x] >> shift) & 0x3ff); };
            const int red = static_cast<int>(x), green = static_cast<int>(1023 - x), blue = static_cast<int>(x / 3);
            worst = std::max({worst, std::abs(channel(red_high ? 20 : 0) - red), std::abs(channel(10) - green),
                              std::abs(channel(red_high ? 0 : 20) - blue)});
        }
        INFO("first words " << std::hex << memory[0] << " " << memory[1] << " " << memory[600]);
        CHECK(worst == 0);
    }
}

TEST_CASE("a source box picks part of the texture and stretches it", "[gl]")
{
    GlFixture gl;
    // Left half red, right half blue.
    std::vector<uint32_t> memory(8 * 8);
    for (int y = 0; y < 8; ++y)
        for (int x = 0; x < 8; ++x)
            memory[static_cast<size_t>(y * 8 + x)] = x < 4 ? 0xffff0000 : 0xff0000ff;
    std::string error;
    auto texture = gl.renderer->create_shm_texture({fourcc::xrgb8888, 8, 8, 32, memory.data()}, error);
    auto target = gl.make_target(16, 16);
    gl.renderer->begin(*target.target);
    gl.renderer->clear({0, 0, 0, 1});
    gl.renderer->draw_texture(*texture, {4, 0, 4, 8}, box_matrix(0, 0, 16, 16), 1.0f);
    gl.renderer->end();
    // Away from the left edge (where linear filtering meets the red half) everything is blue.
    CHECK(target.at(4, 4) == 0x0000ff);
    CHECK(target.at(8, 8) == 0x0000ff);
    CHECK(target.at(15, 15) == 0x0000ff);
}

TEST_CASE("alpha blends premultiplied over what is there", "[gl]")
{
    GlFixture gl;
    std::vector<uint32_t> white(4 * 4, 0xffffffff);
    std::string error;
    auto texture = gl.renderer->create_shm_texture({fourcc::xrgb8888, 4, 4, 16, white.data()}, error);
    auto target = gl.make_target(4, 4);
    gl.renderer->begin(*target.target);
    gl.renderer->clear({0, 0, 0, 1});
    gl.renderer->draw_texture(*texture, {0, 0, 4, 4}, box_matrix(0, 0, 4, 4), 0.5f);
    gl.renderer->end();
    const uint32_t grey = target.at(2, 2) & 0xff;
    CHECK(grey >= 0x7e);
    CHECK(grey <= 0x81);

    // A translucent ARGB texel (premultiplied 50% red) over blue.
    std::vector<uint32_t> half_red(4 * 4, 0x80800000);
    auto translucent = gl.renderer->create_shm_texture({fourcc::argb8888, 4, 4, 16, half_red.data()}, error);
    gl.renderer->begin(*target.target);
    gl.renderer->clear({0, 0, 1, 1});
    gl.renderer->draw_texture(*translucent, {0, 0, 4, 4}, box_matrix(0, 0, 4, 4), 1.0f);
    gl.renderer->end();
    const uint32_t p = target.at(1, 1);
    CHECK(((p >> 16) & 0xff) >= 0x7e);
    CHECK((p & 0xff) >= 0x7e);
    CHECK((p & 0xff) <= 0x81);
}

TEST_CASE("solid quads and scissoring to damage", "[gl]")
{
    GlFixture gl;
    auto target = gl.make_target(32, 32);
    gl.renderer->begin(*target.target);
    gl.renderer->clear({0, 0, 0, 1});
    gl.renderer->set_scissor(Box{0, 0, 16, 32});
    gl.renderer->draw_solid({0, 1, 0, 1}, box_matrix(0, 0, 32, 32));
    gl.renderer->set_scissor(std::nullopt);
    gl.renderer->draw_solid({1, 0, 0, 1}, box_matrix(24, 24, 8, 8));
    gl.renderer->end();
    CHECK(target.at(0, 0) == 0x00ff00);
    CHECK(target.at(15, 31) == 0x00ff00);
    CHECK(target.at(16, 0) == 0x000000);
    CHECK(target.at(24, 24) == 0xff0000);
    CHECK(target.at(23, 23) == 0x000000);
}

TEST_CASE("solid quads, opaque or blended, give the pixels CPU composition's fills give", "[gl]")
{
    // The frame pipeline draws solid rectangles (decorations) with GL or fills them with pixman, frame by frame:
    // an opaque rectangle must come out the same both ways, a translucent one within rounding.
    GlFixture gl;
    auto target = gl.make_target(8, 4);
    const Color opaque{0x28 / 255.0f, 0x55 / 255.0f, 0x77 / 255.0f, 1.0f};
    const Color translucent{0.4f, 0.1f, 0.0f, 0.5f};  // premultiplied
    gl.renderer->begin(*target.target);
    gl.renderer->clear({0, 0, 1, 1});
    gl.renderer->set_blending(false);
    gl.renderer->draw_solid(opaque, box_matrix(0, 0, 4, 4));
    gl.renderer->set_blending(true);
    gl.renderer->draw_solid(translucent, box_matrix(4, 0, 4, 4));
    gl.renderer->end();

    std::vector<uint32_t> memory(8 * 4, 0xff0000ff);  // blue, as GL cleared
    CpuCompositor cpu(CpuImage{fourcc::xrgb8888, 8, 4, 8 * 4, memory.data()});
    REQUIRE(cpu.ok());
    const Box left[] = {{0, 0, 4, 4}};
    const Box right[] = {{4, 0, 4, 4}};
    cpu.fill_premultiplied(left, opaque, false);
    cpu.fill_premultiplied(right, translucent, true);

    CHECK(target.at(1, 1) == 0x285577);
    CHECK((memory[1 * 8 + 1] & 0xffffff) == 0x285577);
    const uint32_t gl_pixel = target.at(5, 2);
    const uint32_t cpu_pixel = memory[2 * 8 + 5] & 0xffffff;
    for (int shift : {16, 8, 0}) {
        const int difference = static_cast<int>((gl_pixel >> shift) & 0xff) - static_cast<int>((cpu_pixel >> shift) & 0xff);
        CHECK(difference >= -1);
        CHECK(difference <= 1);
    }
    CHECK(((gl_pixel >> 16) & 0xff) >= 0x65);  // 0.4 red over blue at half coverage
    CHECK((gl_pixel & 0xff) >= 0x7e);
}

TEST_CASE("programs come from the program cache on first use, or ahead of it through prepare()", "[gl]")
{
    GlFixture gl;
    CHECK(gl.programs.linked_from_source() == 0);
    auto target = gl.make_target(4, 4);
    gl.renderer->begin(*target.target);
    gl.renderer->draw_solid({1, 0, 0, 1}, box_matrix(0, 0, 4, 4));
    gl.renderer->end();
    CHECK(gl.programs.linked_from_source() == 1);
    CHECK(target.at(1, 1) == 0xff0000);

    std::string error;
    for (ShaderVariant variant : gl.renderer->variants()) {
        CHECK(gl.renderer->prepare(variant, error));
        CHECK(gl.renderer->prepared(variant));
    }
    const uint64_t linked = gl.programs.linked_from_source();
    CHECK(linked == gl.renderer->variants().size());
    // A second renderer on the same cache links nothing new.
    auto second = Renderer::create(*gl.display, gl.programs, error);
    REQUIRE(second);
    for (ShaderVariant variant : second->variants())
        CHECK(second->prepare(variant, error));
    CHECK(gl.programs.linked_from_source() == linked);
    CHECK(gl.programs.loaded_from_memory() == linked);
}

TEST_CASE("prepare() tells the program fetch apart from the warming draw, and a warmed program costs neither",
          "[gl]")
{
    GlFixture gl;
    CHECK(gl.renderer->prepare_times().fetch_ms == 0);
    CHECK(gl.renderer->prepare_times().first_draw_ms == 0);
    std::string error;
    REQUIRE(gl.renderer->prepare(ShaderVariant::solid, error));
    const auto after_solid = gl.renderer->prepare_times();
    CHECK(after_solid.fetch_ms > 0);       // compiled and linked from source here
    CHECK(after_solid.first_draw_ms > 0);  // drawn once into the scratch target
    // Prepared already: fetched from the slot, not drawn again.
    REQUIRE(gl.renderer->prepare(ShaderVariant::solid, error));
    CHECK(gl.renderer->prepare_times().first_draw_ms == after_solid.first_draw_ms);
    CHECK(gl.programs.linked_from_source() == 1);
}

TEST_CASE("a CPU target reads back only what the frame drew", "[gl]")
{
    GlFixture gl;
    auto target = gl.make_target(32, 32);
    gl.renderer->begin(*target.target);
    gl.renderer->clear({1, 0, 0, 1});
    gl.renderer->end();
    CHECK(target.at(0, 0) == 0xff0000);
    CHECK(target.at(31, 31) == 0xff0000);

    // Mark the memory so a read-back outside the damage would show.
    std::fill(target.pixels.begin(), target.pixels.end(), 0xff0000ffu);
    const uint64_t before = gl.renderer->stats().readback_bytes;
    gl.renderer->begin(*target.target);
    gl.renderer->set_scissor(Box{4, 8, 10, 6});
    gl.renderer->clear({0, 1, 0, 1});
    gl.renderer->set_scissor(std::nullopt);
    gl.renderer->end();
    CHECK(gl.renderer->stats().readback_bytes - before == 10 * 6 * 4);
    CHECK(target.at(4, 8) == 0x00ff00);
    CHECK(target.at(13, 13) == 0x00ff00);
    CHECK(target.at(3, 8) == 0x0000ff);
    CHECK(target.at(14, 13) == 0x0000ff);
    CHECK(target.at(4, 14) == 0x0000ff);

    // A frame that draws nothing reads nothing back.
    gl.renderer->begin(*target.target);
    gl.renderer->end();
    CHECK(gl.renderer->stats().readback_bytes - before == 10 * 6 * 4);
}
