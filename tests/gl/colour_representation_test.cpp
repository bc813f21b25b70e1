// What color-representation-v1 tells the sampling programs: P010 dma-bufs (10-bit codes in 16-bit samples) drawn as
// RGB colour bars in each encoding; NV12 chroma siting (where each H.273 chroma location puts the chroma samples
// decides the colour of the pixels beside a chroma edge); straight and premultiplied optical alpha blended over a
// background. References are computed here from the standards' equations, GL's linear filtering and the sRGB
// curves, not from renderer/.
#include "renderer/formats.hpp"
#include "renderer/yuv.hpp"
#include "tests/gl/gl_fixture.hpp"
#include "tests/gl/memfd_cases.hpp"

#include <catch2/catch_test_macros.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

using namespace kiln::renderer;
using kiln::test::box_matrix;
using kiln::test::GlFixture;
using kiln::test::MemfdImportVerdict;

namespace {

struct Standard {
    const char* name;
    YuvColorSpace space;
    double kr, kb;  // BT.601-7 2.5.1, BT.709-6 3.2, BT.2020-2 table 4 (non-constant luminance)
};

const Standard standards[] = {{"BT.601", YuvColorSpace::bt601, 0.299, 0.114},
                              {"BT.709", YuvColorSpace::bt709, 0.2126, 0.0722},
                              {"BT.2020", YuvColorSpace::bt2020, 0.2627, 0.0593}};

struct Rgb {
    double r, g, b;  // 0..1
};

// 75% colour bars, then black and 100% white.
const std::vector<Rgb> bars{{.75, .75, .75}, {.75, .75, 0}, {0, .75, .75}, {0, .75, 0}, {.75, 0, .75},
                            {.75, 0, 0},     {0, 0, .75},   {0, 0, 0},     {1, 1, 1}};

struct Codes {
    double y, cb, cr;  // codes at the test's depth (not rounded where a reference interpolates them)
};

// E'Y = Kr R + Kg G + Kb B, E'Cb = (B - Y) / (2 (1 - Kb)), E'Cr = (R - Y) / (2 (1 - Kr)); at n bits limited range
// is (16 + 219 Y) 2^(n-8) and (128 + 224 C) 2^(n-8) (BT.2020-2 table 5), full (2^n - 1) Y and 2^(n-1) + (2^n - 1) C.
Codes encode(const Rgb& c, const Standard& s, YuvRange range, int bits)
{
    const double y = s.kr * c.r + (1 - s.kr - s.kb) * c.g + s.kb * c.b;
    const double cb = (c.b - y) / (2 * (1 - s.kb));
    const double cr = (c.r - y) / (2 * (1 - s.kr));
    const double q = std::ldexp(1.0, bits - 8);
    const double top = std::ldexp(1.0, bits) - 1;
    auto code = [&](double v) { return std::clamp(std::round(v), 0.0, top); };
    if (range == YuvRange::limited)
        return {code((16 + 219 * y) * q), code((128 + 224 * cb) * q), code((128 + 224 * cr) * q)};
    return {code(top * y), code(std::ldexp(1.0, bits - 1) + top * cb), code(std::ldexp(1.0, bits - 1) + top * cr)};
}

// The inverse on codes: what a correct converter shows, as 0xRRGGBB.
uint32_t decode(const Codes& c, const Standard& s, YuvRange range, int bits)
{
    const double q = std::ldexp(1.0, bits - 8);
    const double top = std::ldexp(1.0, bits) - 1;
    const double half = std::ldexp(1.0, bits - 1);
    const double y = range == YuvRange::limited ? (c.y - 16 * q) / (219 * q) : c.y / top;
    const double cb = range == YuvRange::limited ? (c.cb - 128 * q) / (224 * q) : (c.cb - half) / top;
    const double cr = range == YuvRange::limited ? (c.cr - 128 * q) / (224 * q) : (c.cr - half) / top;
    const double r = y + 2 * (1 - s.kr) * cr;
    const double b = y + 2 * (1 - s.kb) * cb;
    const double g = (y - s.kr * r - s.kb * b) / (1 - s.kr - s.kb);
    auto q8 = [](double v) { return static_cast<uint32_t>(std::lround(std::clamp(v, 0.0, 1.0) * 255)); };
    return q8(r) << 16 | q8(g) << 8 | q8(b);
}

int channel_error(uint32_t got, uint32_t want)
{
    int worst = 0;
    for (int shift : {0, 8, 16})
        worst = std::max(worst, std::abs(static_cast<int>((got >> shift) & 0xff) -
                                         static_cast<int>((want >> shift) & 0xff)));
    return worst;
}

// One memfd standing in for a dma-buf with two planes, luma then chroma, at the given strides.
struct TwoPlaneBuffer {
    int fd = -1;
    DmabufAttributes attributes;

    TwoPlaneBuffer(uint32_t fourcc, int32_t w, int32_t h, const std::vector<uint8_t>& luma, uint32_t luma_stride,
                   const std::vector<uint8_t>& chroma, uint32_t chroma_stride)
        : fd(memfd_create("fake-yuv-dmabuf", MFD_CLOEXEC))
    {
        REQUIRE(fd >= 0);
        const uint32_t chroma_offset = static_cast<uint32_t>(luma.size()) + 64;
        REQUIRE(ftruncate(fd, static_cast<off_t>(chroma_offset + chroma.size())) == 0);
        REQUIRE(pwrite(fd, luma.data(), luma.size(), 0) == static_cast<ssize_t>(luma.size()));
        REQUIRE(pwrite(fd, chroma.data(), chroma.size(), chroma_offset) == static_cast<ssize_t>(chroma.size()));
        attributes.width = w;
        attributes.height = h;
        attributes.fourcc = fourcc;
        attributes.modifier = modifier_invalid;
        attributes.plane_count = 2;
        attributes.planes[0] = {fd, 0, luma_stride};
        attributes.planes[1] = {fd, chroma_offset, chroma_stride};
    }
    ~TwoPlaneBuffer() { close(fd); }
    TwoPlaneBuffer(const TwoPlaneBuffer&) = delete;
    TwoPlaneBuffer& operator=(const TwoPlaneBuffer&) = delete;
};

void put16(std::vector<uint8_t>& bytes, size_t at, double code10)
{
    const auto sample = static_cast<uint16_t>(static_cast<uint16_t>(code10) << 6);  // high bits, little endian
    bytes[at] = static_cast<uint8_t>(sample & 0xff);
    bytes[at + 1] = static_cast<uint8_t>(sample >> 8);
}

bool offered(const EglDisplay& display, uint32_t code)
{
    return std::any_of(display.dmabuf_formats().begin(), display.dmabuf_formats().end(),
                       [&](const FormatModifier& fm) { return fm.fourcc == code && fm.modifier == modifier_invalid; });
}

}  // namespace

TEST_CASE("P010 colour bars come out as RGB in BT.601, BT.709 and BT.2020, limited and full range", "[gl][yuv]")
{
    GlFixture gl;
    if (!gl.display->can_import_dmabuf())
        SKIP("the " << gl.display->kind_name() << " EGL display imports no dma-buf");
    constexpr int32_t bar_width = 8;
    const int32_t w = bar_width * static_cast<int32_t>(bars.size());
    const int32_t h = 4;
    auto target = gl.make_target(w, h);
    int worst = 0;
    int pixels = 0;
    for (const auto& standard : standards)
        for (const YuvRange range : {YuvRange::limited, YuvRange::full}) {
            INFO("P010 " << standard.name << (range == YuvRange::full ? " full" : " limited"));
            const uint32_t luma_stride = static_cast<uint32_t>(w) * 2 + 8;
            const uint32_t chroma_stride = static_cast<uint32_t>(w / 2) * 4 + 8;
            std::vector<uint8_t> luma(luma_stride * static_cast<size_t>(h));
            std::vector<uint8_t> chroma(chroma_stride * static_cast<size_t>(h / 2));
            for (int32_t y = 0; y < h; ++y)
                for (int32_t x = 0; x < w; ++x)
                    put16(luma, y * luma_stride + x * 2u, encode(bars[x / bar_width], standard, range, 10).y);
            for (int32_t y = 0; y < h / 2; ++y)
                for (int32_t x = 0; x < w / 2; ++x) {
                    const Codes c = encode(bars[2 * x / bar_width], standard, range, 10);
                    put16(chroma, y * chroma_stride + x * 4u, c.cb);
                    put16(chroma, y * chroma_stride + x * 4u + 2, c.cr);
                }
            TwoPlaneBuffer buffer(fourcc::p010, w, h, luma, luma_stride, chroma, chroma_stride);
            const YuvEncoding encoding{standard.space, range};
            std::string error;
            const bool is_offered = offered(*gl.display, fourcc::p010);
            auto texture =
                is_offered ? gl.renderer->import_dmabuf(buffer.attributes, error, nullptr, encoding) : nullptr;
            kiln::test::require_memfd_import(gl, "P010", is_offered, texture != nullptr, error);
            REQUIRE(texture);
            gl.renderer->begin(*target.target);
            gl.renderer->clear({1, 0, 1, 1});
            REQUIRE(gl.renderer->draw_texture(*texture, {0, 0, static_cast<double>(w), static_cast<double>(h)},
                                              box_matrix(0, 0, static_cast<float>(w), static_cast<float>(h)), 1.0f));
            REQUIRE(gl.renderer->end());
            for (size_t i = 0; i < bars.size(); ++i) {
                const int32_t x = static_cast<int32_t>(i) * bar_width + bar_width / 2;
                const uint32_t want = decode(encode(bars[i], standard, range, 10), standard, range, 10);
                const uint32_t published = static_cast<uint32_t>(std::lround(bars[i].r * 255)) << 16 |
                                           static_cast<uint32_t>(std::lround(bars[i].g * 255)) << 8 |
                                           static_cast<uint32_t>(std::lround(bars[i].b * 255));
                INFO("bar " << i << ": got " << std::hex << target.at(x, 1) << " want " << want);
                CHECK(channel_error(want, published) <= 1);  // 10-bit codes decode to the bar levels
                CHECK(channel_error(target.at(x, 1), want) <= 1);
                worst = std::max(worst, channel_error(target.at(x, 1), want));
                ++pixels;
            }
        }
    std::printf("P010 colour bars: %d bars, max channel error %d\n", pixels, worst);
}

// NV12, 16x2, luma flat; chroma columns 0..3 one colour and 4..7 another (an edge between luma columns 7 and 8 as
// centred chroma has it). Each chroma location puts the chroma samples elsewhere, so the luma columns beside the
// edge mix the two colours in other proportions: GL's linear filtering at luma column x reads chroma position
// (x - chroma_x) / 2, between the samples either side, clamped at the picture's ends.
TEST_CASE("NV12 chroma siting moves the chroma samples as H.273's chroma locations place them", "[gl][yuv]")
{
    GlFixture gl;
    if (!gl.display->can_import_dmabuf())
        SKIP("the " << gl.display->kind_name() << " EGL display imports no dma-buf");
    constexpr int32_t w = 16;
    constexpr int32_t h = 4;
    const Standard& standard = standards[1];
    const Codes left = encode({0.75, 0.1, 0.1}, standard, YuvRange::full, 8);
    const Codes right = encode({0.1, 0.1, 0.75}, standard, YuvRange::full, 8);
    std::vector<uint8_t> luma(static_cast<size_t>(w * h), static_cast<uint8_t>(left.y));
    std::vector<uint8_t> chroma(static_cast<size_t>(w * h / 2));
    for (int32_t y = 0; y < h / 2; ++y)
        for (int32_t x = 0; x < w / 2; ++x) {
            const Codes& c = x < w / 4 ? left : right;
            chroma[static_cast<size_t>(y * w + 2 * x)] = static_cast<uint8_t>(c.cb);
            chroma[static_cast<size_t>(y * w + 2 * x + 1)] = static_cast<uint8_t>(c.cr);
        }
    TwoPlaneBuffer buffer(fourcc::nv12, w, h, luma, w, chroma, w);
    std::string error;
    const bool is_offered = offered(*gl.display, fourcc::nv12);
    auto texture = is_offered ? gl.renderer->import_dmabuf(buffer.attributes, error, nullptr, {}) : nullptr;
    kiln::test::require_memfd_import(gl, "NV12", is_offered, texture != nullptr, error);
    REQUIRE(texture);
    if (!texture->through_planes())
        SKIP("this driver converts NV12 itself, so kiln's siting does not apply");
    auto target = gl.make_target(w, h);
    // (chroma_x, chroma_y): centred (kiln's default), then H.273 types 0 and 2 (co-sited left).
    const std::array<std::array<float, 2>, 3> sitings{{{0.5f, 0.5f}, {0.0f, 0.5f}, {0.0f, 0.0f}}};
    std::array<std::array<uint32_t, w>, 3> rows{};
    int worst = 0;
    for (size_t s = 0; s < sitings.size(); ++s) {
        YuvEncoding encoding{standard.space, YuvRange::full, sitings[s][0], sitings[s][1]};
        REQUIRE(texture->set_yuv_encoding(encoding));
        gl.renderer->begin(*target.target);
        gl.renderer->clear({1, 0, 1, 1});
        REQUIRE(gl.renderer->draw_texture(*texture, {0, 0, w, h}, box_matrix(0, 0, w, h), 1.0f));
        REQUIRE(gl.renderer->end());
        for (int32_t x = 0; x < w; ++x) {
            const double position = std::clamp((x - sitings[s][0]) / 2.0, 0.0, w / 2.0 - 1);
            const int k = std::min(static_cast<int>(std::floor(position)), w / 2 - 2);
            const double t = position - k;  // weight of sample k + 1
            auto at = [&](int i) { return i < w / 4 ? left : right; };
            const Codes mixed{left.y, (1 - t) * at(k).cb + t * at(k + 1).cb, (1 - t) * at(k).cr + t * at(k + 1).cr};
            const uint32_t want = decode(mixed, standard, YuvRange::full, 8);
            rows[s][static_cast<size_t>(x)] = target.at(x, 1);
            INFO("siting " << sitings[s][0] << "," << sitings[s][1] << " column " << x << ": got " << std::hex
                           << target.at(x, 1) << " want " << want);
            CHECK(channel_error(target.at(x, 1), want) <= 2);
            worst = std::max(worst, channel_error(target.at(x, 1), want));
        }
    }
    // Co-sited chroma reaches the edge half a luma column earlier: column 7 changes.
    CHECK(channel_error(rows[0][7], rows[1][7]) > 20);
    std::printf("chroma siting: max channel error %d, column 7 centred %06x co-sited %06x\n", worst, rows[0][7],
                rows[1][7]);
}

namespace {

double srgb_eotf(double e)
{
    return e <= 0.04045 ? e / 12.92 : std::pow((e + 0.055) / 1.055, 2.4);
}

double srgb_oetf(double l)
{
    return l <= 0.0031308 ? l * 12.92 : 1.055 * std::pow(l, 1 / 2.4) - 0.055;
}

}  // namespace

// Each patch holds (colour, alpha) as a client in each mode stores it: straight keeps the encoded colour as it is,
// premultiplied optical multiplies the linear colour before encoding, electrical after. Drawn over a background, the
// result must be source-over of the premultiplied electrical value the mode defines.
TEST_CASE("straight and premultiplied optical alpha blend as the protocol defines them", "[gl][alpha]")
{
    GlFixture gl;
    struct Patch {
        double r, g, b, a;
    };
    const Patch patches[] = {{1.0, 0.5, 0.2, 0.5}, {0.3, 0.9, 0.6, 0.25}, {0.8, 0.8, 0.8, 0.75}, {0.05, 0.4, 1.0, 0.6},
                             {0.9, 0.1, 0.5, 0.0}};
    const double background[3] = {0x20 / 255.0, 0x60 / 255.0, 0xa0 / 255.0};
    constexpr int32_t patch = 4;
    const int32_t w = patch * static_cast<int32_t>(std::size(patches));
    auto target = gl.make_target(w, patch);
    const AlphaMode modes[] = {AlphaMode::premultiplied_electrical, AlphaMode::straight,
                               AlphaMode::premultiplied_optical};
    const char* names[] = {"premultiplied electrical", "straight", "premultiplied optical"};
    int worst = 0;
    for (size_t m = 0; m < std::size(modes); ++m) {
        std::vector<uint32_t> memory(static_cast<size_t>(w * patch));
        std::vector<uint32_t> want;
        for (size_t i = 0; i < std::size(patches); ++i) {
            const Patch& p = patches[i];
            const auto a8 = static_cast<uint32_t>(std::lround(p.a * 255));
            const double a = a8 / 255.0;
            uint32_t pixel = a8 << 24;
            uint32_t expected = 0;
            int shift = 16;
            for (double c : {p.r, p.g, p.b}) {
                double stored = c * a;  // electrical
                if (modes[m] == AlphaMode::straight)
                    stored = c;
                else if (modes[m] == AlphaMode::premultiplied_optical)
                    stored = srgb_oetf(c * a);
                const auto e8 = static_cast<uint32_t>(std::lround(stored * 255));
                pixel |= e8 << shift;
                const double e = e8 / 255.0;
                double premultiplied = e;
                if (modes[m] == AlphaMode::straight)
                    premultiplied = e * a;
                else if (modes[m] == AlphaMode::premultiplied_optical)
                    premultiplied = a > 0 ? a * srgb_oetf(std::min(srgb_eotf(e) / a, 1.0)) : 0.0;
                const double out = premultiplied + background[(16 - shift) / 8] * (1 - a);
                expected |= static_cast<uint32_t>(std::lround(out * 255)) << shift;
                shift -= 8;
            }
            for (int32_t y = 0; y < patch; ++y)
                for (int32_t x = 0; x < patch; ++x)
                    memory[static_cast<size_t>(y * w + static_cast<int32_t>(i) * patch + x)] = pixel;
            want.push_back(expected);
        }
        std::string error;
        auto texture = gl.renderer->create_shm_texture(
            {fourcc::argb8888, w, patch, static_cast<uint32_t>(w * 4), memory.data()}, error);
        REQUIRE(texture);
        YuvEncoding encoding;
        encoding.alpha = modes[m];
        texture->set_yuv_encoding(encoding);
        CHECK(texture->alpha_mode() == modes[m]);
        gl.renderer->begin(*target.target);
        gl.renderer->clear({static_cast<float>(background[0]), static_cast<float>(background[1]),
                            static_cast<float>(background[2]), 1});
        gl.renderer->set_blending(true);
        REQUIRE(gl.renderer->draw_texture(*texture, {0, 0, static_cast<double>(w), patch},
                                          box_matrix(0, 0, static_cast<float>(w), patch), 1.0f, Filter::nearest));
        REQUIRE(gl.renderer->end());
        for (size_t i = 0; i < std::size(patches); ++i) {
            const int32_t x = static_cast<int32_t>(i) * patch + patch / 2;
            INFO(names[m] << " patch " << i << ": got " << std::hex << target.at(x, 1) << " want " << want[i]);
            CHECK(channel_error(target.at(x, 1), want[i]) <= 1);
            worst = std::max(worst, channel_error(target.at(x, 1), want[i]));
        }
    }
    std::printf("alpha modes: max channel error %d\n", worst);
}
