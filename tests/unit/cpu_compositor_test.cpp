// renderer::CpuCompositor: fills, copies and premultiplied source-over land exactly where and as they should.
#include "renderer/cpu_compositor.hpp"
#include "renderer/formats.hpp"
#include "renderer/over_8888.hpp"

#include <catch2/catch_test_macros.hpp>
#include <pixman.h>

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <span>
#include <utility>
#include <vector>

using namespace kiln::renderer;

namespace {

struct Pixels {
    Pixels(uint32_t fourcc, int32_t width, int32_t height, uint32_t fill = 0)
        : data(static_cast<size_t>(width) * static_cast<size_t>(height), fill),
          image{fourcc, width, height, static_cast<uint32_t>(width) * 4, data.data()}
    {
    }
    uint32_t at(int32_t x, int32_t y) const { return data[static_cast<size_t>(y * image.width + x)]; }
    std::vector<uint32_t> data;
    CpuImage image;
};

}  // namespace

TEST_CASE("fill writes premultiplied colour inside the boxes only")
{
    Pixels target(fourcc::argb8888, 8, 8, 0x11111111);
    CpuCompositor compositor(target.image);
    REQUIRE(compositor.ok());
    const Box boxes[] = {{1, 1, 2, 2}, {6, 6, 2, 2}};
    compositor.fill(boxes, Color{1.0f, 0.0f, 0.0f, 0.5f});
    CHECK(target.at(1, 1) == 0x80800000);
    CHECK(target.at(7, 7) == 0x80800000);
    CHECK(target.at(0, 0) == 0x11111111);
    CHECK(target.at(3, 3) == 0x11111111);
}

TEST_CASE("premultiplied fills replace, or compose source-over when blended")
{
    Pixels target(fourcc::xrgb8888, 4, 1, 0xff0000ff);  // blue
    CpuCompositor compositor(target.image);
    REQUIRE(compositor.ok());
    const Color half_red{0.5f, 0.0f, 0.0f, 0.5f};  // red at alpha 0.5, premultiplied
    const Box first[] = {{0, 0, 1, 1}};
    const Box second[] = {{1, 0, 1, 1}};
    compositor.fill_premultiplied(first, half_red, true);
    compositor.fill_premultiplied(second, half_red, false);
    // over: 0x80 red + 0xff * (1 - 0.5) blue; replaced: the colour alone (x888 drops its alpha).
    CHECK((target.at(0, 0) & 0xff0000) == 0x800000);
    CHECK((target.at(0, 0) & 0xff) == 0x7f);
    CHECK((target.at(1, 0) & 0xffffff) == 0x800000);
    // An opaque colour covers whatever is there, blended or not; boxes outside it stay untouched.
    const Box both[] = {{2, 0, 1, 1}};
    compositor.fill_premultiplied(both, Color{0.0f, 1.0f, 0.0f, 1.0f}, true);
    CHECK((target.at(2, 0) & 0xffffff) == 0x00ff00);
    CHECK(target.at(3, 0) == 0xff0000ff);
}

TEST_CASE("copy maps source texels 1:1 from the given offset, clipped to the box")
{
    Pixels source(fourcc::xrgb8888, 4, 4);
    for (int32_t y = 0; y < 4; ++y)
        for (int32_t x = 0; x < 4; ++x)
            source.data[static_cast<size_t>(y * 4 + x)] = 0x00010000u * static_cast<uint32_t>(x) + static_cast<uint32_t>(y);
    Pixels target(fourcc::xrgb8888, 8, 8, 0xff000000);
    CpuCompositor compositor(target.image);
    REQUIRE(compositor.copy(source.image, 1, 2, Box{5, 5, 2, 2}, true));
    CHECK((target.at(5, 5) & 0xffffff) == 0x010002);  // texel (1, 2)
    CHECK((target.at(6, 6) & 0xffffff) == 0x020003);  // texel (2, 3)
    CHECK(target.at(4, 4) == 0xff000000);
    CHECK(target.at(7, 7) == 0xff000000);
}

TEST_CASE("blended copies compose source-over; unblended ones replace")
{
    Pixels source(fourcc::argb8888, 2, 1);
    source.data[0] = 0x80400000;  // red at alpha 0.5, premultiplied
    source.data[1] = 0x80400000;
    Pixels target(fourcc::xrgb8888, 2, 1, 0xff0000ff);
    CpuCompositor compositor(target.image);
    REQUIRE(compositor.copy(source.image, 0, 0, Box{0, 0, 1, 1}, true));
    REQUIRE(compositor.copy(source.image, 1, 0, Box{1, 0, 1, 1}, false));
    // over: 0x40 + 0 * (1 - 0.5) red, 0xff * (1 - 0.5) blue.
    CHECK((target.at(0, 0) & 0xff0000) == 0x400000);
    CHECK((target.at(0, 0) & 0xff) == 0x7f);
    CHECK((target.at(1, 0) & 0xffffff) == 0x400000);
}

TEST_CASE("a blended copy with an alpha factor multiplies the source first, even an opaque format's")
{
    Pixels source(fourcc::xrgb8888, 3, 1, 0xffff0000);  // opaque red
    Pixels target(fourcc::xrgb8888, 3, 1, 0xff0000ff);  // blue
    CpuCompositor compositor(target.image);
    REQUIRE(compositor.copy(source.image, 0, 0, Box{0, 0, 1, 1}, true, 0.5f));
    REQUIRE(compositor.copy(source.image, 1, 0, Box{1, 0, 1, 1}, true, 0.0f));
    REQUIRE(compositor.copy(source.image, 2, 0, Box{2, 0, 1, 1}, true, 1.0f));
    // red * 0.5 over blue: half of each (pixman rounds to 0x7f or 0x80).
    const uint32_t half = target.at(0, 0);
    CHECK(((half >> 16) & 0xff) >= 0x7f);
    CHECK(((half >> 16) & 0xff) <= 0x80);
    CHECK((half & 0xff) >= 0x7f);
    CHECK((half & 0xff) <= 0x80);
    CHECK((target.at(1, 0) & 0xffffff) == 0x0000ff);  // factor 0: nothing drawn
    CHECK((target.at(2, 0) & 0xffffff) == 0xff0000);  // factor 1: as drawn
}

TEST_CASE("copy_boxes lands exactly as one copy per box: inside the boxes only, at the same texels")
{
    Pixels source(fourcc::argb8888, 8, 8);
    for (int32_t y = 0; y < 8; ++y)
        for (int32_t x = 0; x < 8; ++x)
            source.data[static_cast<size_t>(y * 8 + x)] = 0xff000000u | static_cast<uint32_t>(y * 16 + x);
    const Box boxes[] = {{1, 1, 2, 2}, {5, 4, 2, 3}, {3, 6, 1, 1}};  // disjoint, with gaps between them
    for (bool blend : {false, true}) {
        Pixels one_call(fourcc::argb8888, 10, 10, 0x80402010);
        Pixels per_box(fourcc::argb8888, 10, 10, 0x80402010);
        CpuCompositor a(one_call.image);
        CpuCompositor b(per_box.image);
        REQUIRE(a.copy_boxes(source.image, -1, 0, boxes, blend, 0.5f));
        for (const Box& box : boxes)
            b.copy(source.image, box.x - 1, box.y, box, blend, 0.5f);
        CHECK(one_call.data == per_box.data);
        CHECK(one_call.at(2, 2) != 0x80402010);  // drawn inside a box
        CHECK(one_call.at(4, 3) == 0x80402010);  // the gap between boxes, inside their bounds, is untouched
        CHECK(one_call.at(3, 5) == 0x80402010);
    }
    // The clip is gone afterwards: a later single copy reaches outside the boxes.
    Pixels target(fourcc::argb8888, 10, 10, 0x80402010);
    CpuCompositor c(target.image);
    REQUIRE(c.copy_boxes(source.image, 0, 0, boxes, false));
    REQUIRE(c.copy(source.image, 4, 3, Box{4, 3, 1, 1}, false));
    CHECK(target.at(4, 3) == source.at(4, 3));
}

TEST_CASE("read_cpu_image converts between channel orders and refuses regions outside the image")
{
    Pixels source(fourcc::xrgb8888, 4, 4, 0x00123456);
    std::vector<uint32_t> out(4, 0);
    REQUIRE(read_cpu_image(source.image, Box{1, 1, 2, 2}, fourcc::abgr8888, 8, out.data()));
    CHECK(out[0] == 0xff563412);
    CHECK(out[3] == 0xff563412);
    CHECK_FALSE(read_cpu_image(source.image, Box{3, 3, 2, 2}, fourcc::abgr8888, 8, out.data()));
    // A box whose end does not fit in 32 bits (a client's screencopy region) is outside too, not wrapped inside.
    constexpr int32_t far = std::numeric_limits<int32_t>::max() - 1;
    CHECK_FALSE(read_cpu_image(source.image, Box{far, 0, 4, 1}, fourcc::abgr8888, 16, out.data()));
    CHECK_FALSE(read_cpu_image(source.image, Box{0, far, 1, 4}, fourcc::abgr8888, 4, out.data()));
}

TEST_CASE("unsupported formats and impossible images are refused")
{
    CHECK_FALSE(cpu_format_supported(fourcc::nv12));
    CHECK(cpu_format_supported(fourcc::rgb565));
    std::vector<uint32_t> small(4);
    CpuCompositor short_stride(CpuImage{fourcc::argb8888, 4, 1, 8, small.data()});
    CHECK_FALSE(short_stride.ok());
    CpuCompositor no_memory(CpuImage{fourcc::argb8888, 4, 1, 16, nullptr});
    CHECK_FALSE(no_memory.ok());
}

namespace {

// pixman's OVER of `source` onto `box` of `target`, destination pixel (x, y) showing texel (x + dx, y + dy): the
// reference kiln's own kernel (renderer/over_8888) must equal bit for bit.
void pixman_over(const CpuImage& source, int32_t dx, int32_t dy, const CpuImage& target, Box box)
{
    const auto code = [](uint32_t fourcc) {
        switch (fourcc) {
        case fourcc::argb8888: return PIXMAN_a8r8g8b8;
        case fourcc::xrgb8888: return PIXMAN_x8r8g8b8;
        case fourcc::abgr8888: return PIXMAN_a8b8g8r8;
        default: return PIXMAN_x8b8g8r8;
        }
    };
    pixman_image_t* s = pixman_image_create_bits_no_clear(code(source.fourcc), source.width, source.height,
                                                          static_cast<uint32_t*>(source.data),
                                                          static_cast<int>(source.stride));
    pixman_image_t* t = pixman_image_create_bits_no_clear(code(target.fourcc), target.width, target.height,
                                                          static_cast<uint32_t*>(target.data),
                                                          static_cast<int>(target.stride));
    pixman_image_composite32(PIXMAN_OP_OVER, s, nullptr, t, box.x + dx, box.y + dy, 0, 0, box.x, box.y, box.width,
                             box.height);
    pixman_image_unref(s);
    pixman_image_unref(t);
}

// Premultiplied pixels of every kind: transparent, opaque, translucent runs (so 8-pixel groups of each), and
// channels above alpha (not premultiplied: pixman saturates, so must kiln).
uint32_t random_pixel(std::mt19937& random)
{
    const uint32_t kind = random() % 8;
    if (kind == 0)
        return 0;
    const uint32_t alpha = kind == 1 ? 255 : kind == 2 ? random() % 256 : (kind == 3 ? 0x80 : random() % 256);
    const auto channel = [&] { return kind == 7 ? random() % 256 : (alpha ? random() % (alpha + 1) : 0); };
    return alpha << 24 | channel() << 16 | channel() << 8 | channel();
}

}  // namespace

TEST_CASE("source-over equals pixman's bit for bit: every width, stride, clip and channel order")
{
    std::mt19937 random(22);
    const std::pair<uint32_t, uint32_t> orders[] = {{fourcc::argb8888, fourcc::argb8888},
                                                    {fourcc::argb8888, fourcc::xrgb8888},
                                                    {fourcc::abgr8888, fourcc::abgr8888},
                                                    {fourcc::abgr8888, fourcc::xbgr8888}};
    int compared = 0;
    for (int round = 0; round < 400; ++round) {
        const auto [source_format, target_format] = orders[round % 4];
        // Runs of one kind, so that whole 8-pixel groups are transparent or opaque too.
        const int32_t sw = 1 + static_cast<int32_t>(random() % 45), sh = 1 + static_cast<int32_t>(random() % 9);
        const int32_t tw = 1 + static_cast<int32_t>(random() % 45), th = 1 + static_cast<int32_t>(random() % 9);
        const uint32_t spad = random() % 3, tpad = random() % 3;  // row padding, in pixels
        std::vector<uint32_t> source((sw + spad) * sh);
        uint32_t run = 0;
        for (size_t i = 0; i < source.size(); ++i) {
            if (random() % 6 == 0 || i == 0)
                run = random_pixel(random);
            source[i] = random() % 3 == 0 ? random_pixel(random) : run;
        }
        std::vector<uint32_t> kiln((tw + tpad) * th);
        for (uint32_t& p : kiln)
            p = random_pixel(random) | (target_format == fourcc::xrgb8888 || target_format == fourcc::xbgr8888
                                            ? 0xff000000u : 0u);
        std::vector<uint32_t> reference = kiln;
        const CpuImage s{source_format, sw, sh, (sw + spad) * 4, source.data()};
        const CpuImage k{target_format, tw, th, (tw + tpad) * 4, kiln.data()};
        const CpuImage r{target_format, tw, th, (tw + tpad) * 4, reference.data()};
        // Boxes partly outside the target, and texel offsets that put part of the box outside the source.
        const Box box{static_cast<int32_t>(random() % 50) - 5, static_cast<int32_t>(random() % 12) - 2,
                      1 + static_cast<int32_t>(random() % 50), 1 + static_cast<int32_t>(random() % 10)};
        const int32_t dx = static_cast<int32_t>(random() % 20) - 10, dy = static_cast<int32_t>(random() % 6) - 3;
        CpuCompositor compositor(k);
        REQUIRE(compositor.ok());
        if (round % 2)
            REQUIRE(compositor.copy(s, box.x + dx, box.y + dy, box, true));
        else
            REQUIRE(compositor.copy_boxes(s, dx, dy, std::span(&box, 1), true));
        pixman_over(s, dx, dy, r, box);
        if (target_format == fourcc::xrgb8888 || target_format == fourcc::xbgr8888)
            for (size_t i = 0; i < kiln.size(); ++i) {  // the X byte means nothing (pixman's paths differ on it)
                kiln[i] &= 0xffffffu;
                reference[i] &= 0xffffffu;
            }
        INFO("round " << round << " source " << sw << "x" << sh << " target " << tw << "x" << th << " box " << box.x
                      << "," << box.y << " " << box.width << "x" << box.height << " offset " << dx << "," << dy);
        for (size_t i = 0; i < kiln.size(); ++i)
            if (kiln[i] != reference[i]) {
                UNSCOPED_INFO("first difference at " << i << ": kiln " << std::hex << kiln[i] << ", pixman "
                                                     << reference[i] << std::dec);
                break;
            }
        REQUIRE(kiln == reference);
        compared += kiln != std::vector<uint32_t>(kiln.size()) ? 1 : 0;
    }
    CHECK(compared > 300);
}

TEST_CASE("kiln's source-over kernel runs where the CPU has one")
{
    // On x86-64 with AVX2 (every machine kiln's CI runs on) the kernel above is kiln's, not pixman's fallback.
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx2")) {
        CHECK(over_8888_available());
        std::vector<uint32_t> d(9, 0xff102030u), s(9, 0x80404040u);
        REQUIRE(over_8888(d.data(), 9, s.data(), 9, 9, 1));
        CHECK(d[0] == d[8]);
    }
#endif
}

TEST_CASE("10-bit sources compose into an 8-bit target within one code value of the rounding; half floats are not "
          "CPU formats")
{
    // Values between 8-bit codes: 514/1023 -> 128.1, 100 -> 24.9, 900 -> 224.3, 3 -> 0.7, 1020 -> 254.3.
    const uint32_t values[][3] = {{514, 100, 900}, {3, 1020, 256}, {1023, 0, 511}};
    for (uint32_t format : {fourcc::xrgb2101010, fourcc::argb2101010, fourcc::xbgr2101010, fourcc::abgr2101010}) {
        INFO(format_name(format));
        const bool rgb = format == fourcc::xrgb2101010 || format == fourcc::argb2101010;
        Pixels source(format, 3, 1);
        for (int i = 0; i < 3; ++i) {
            const auto& [r, g, b] = values[i];
            source.data[static_cast<size_t>(i)] = 3u << 30 | (rgb ? r : b) << 20 | g << 10 | (rgb ? b : r);
        }
        Pixels target(fourcc::xrgb8888, 3, 1);
        CpuCompositor compositor(target.image);
        REQUIRE(compositor.ok());
        REQUIRE(compositor.copy(source.image, 0, 0, {0, 0, 3, 1}, false));
        for (int i = 0; i < 3; ++i)
            for (int c = 0; c < 3; ++c) {
                const int want = static_cast<int>((values[i][c] * 255 + 511) / 1023);
                const int got = static_cast<int>((target.at(i, 0) >> (16 - 8 * c)) & 0xff);
                INFO("pixel " << i << " channel " << c);
                CHECK(std::abs(got - want) <= 1);
            }
    }
    CHECK_FALSE(cpu_format_supported(fourcc::abgr16161616f));
    CHECK_FALSE(cpu_format_supported(fourcc::xbgr16161616f));
}
