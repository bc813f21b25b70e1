// Layer-shell geometry: anchors, margins, centring, exclusive zones and their clamping.
#include "compositor/shell/layer_geometry.hpp"

#include <catch2/catch_test_macros.hpp>

using namespace kiln::compositor;

namespace {

constexpr uint32_t top = ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP;
constexpr uint32_t bottom = ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM;
constexpr uint32_t left = ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT;
constexpr uint32_t right = ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT;
constexpr wlr_box output{100, 0, 1280, 720};

bool same(const wlr_box& a, const wlr_box& b)
{
    return a.x == b.x && a.y == b.y && a.width == b.width && a.height == b.height;
}

}  // namespace

TEST_CASE("a bar anchored to the top and both sides spans the output, less its side margins")
{
    CHECK(same(place_layer_surface(output, top | left | right, 0, 30, 5, 10, 0, 20), {120, 5, 1250, 30}));
}

TEST_CASE("one anchor puts a surface at that edge by its margin; none or both centre it")
{
    CHECK(same(place_layer_surface(output, right, 100, 50, 0, 8, 0, 0), {1272, 335, 100, 50}));
    CHECK(same(place_layer_surface(output, 0, 100, 50, 9, 9, 9, 9), {690, 335, 100, 50}));
    CHECK(same(place_layer_surface(output, left | right | top | bottom, 100, 50, 0, 0, 0, 0), {690, 335, 100, 50}));
    CHECK(same(place_layer_surface(output, bottom | left, 100, 50, 0, 0, 4, 6), {106, 666, 100, 50}));
}

TEST_CASE("margins that leave no room give an empty box")
{
    CHECK(place_layer_surface(output, top | left | right, 0, 30, 0, 700, 0, 700).width == 0);
}

TEST_CASE("an exclusive zone shrinks the usable area along its edge, with its margin")
{
    wlr_box usable = output;
    take_exclusive_zone(usable, top | left | right, 30, 2, 0, 0, 0);
    CHECK(same(usable, {100, 32, 1280, 688}));
    take_exclusive_zone(usable, left, 40, 0, 0, 0, 0);
    CHECK(same(usable, {140, 32, 1240, 688}));
    take_exclusive_zone(usable, bottom | left | right, 20, 0, 0, 0, 0);
    CHECK(same(usable, {140, 32, 1240, 668}));
}

TEST_CASE("zones of 0 or -1, or on no single edge, take nothing")
{
    wlr_box usable = output;
    take_exclusive_zone(usable, top, 0, 0, 0, 0, 0);
    take_exclusive_zone(usable, top, -1, 0, 0, 0, 0);
    take_exclusive_zone(usable, top | bottom, 50, 0, 0, 0, 0);
    take_exclusive_zone(usable, 0, 50, 0, 0, 0, 0);
    CHECK(same(usable, output));
}

TEST_CASE("a zone larger than the output leaves half of what was left")
{
    wlr_box usable = output;
    take_exclusive_zone(usable, top, 2147483647, 2147483647, 0, 0, 0);
    CHECK(same(usable, {100, 360, 1280, 360}));
    take_exclusive_zone(usable, right, 100000, 0, 0, 0, 0);
    CHECK(same(usable, {100, 360, 640, 360}));
}
