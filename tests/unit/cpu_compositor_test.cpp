// renderer::CpuCompositor: fills, copies and premultiplied source-over land exactly where and as they should.
#include "renderer/cpu_compositor.hpp"
#include "renderer/formats.hpp"

#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <limits>
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
