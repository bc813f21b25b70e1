// Placement: new windows inside the area and never on one spot, dialogs on their parent, popups kept inside.
#include "compositor/shell/placement.hpp"

#include <catch2/catch_test_macros.hpp>

#include <cstdlib>

using namespace kiln::compositor::placement;

namespace {

bool inside(const Box& area, Point p, int w, int h)
{
    return p.x >= area.x && p.y >= area.y && p.x + w <= area.x + area.width && p.y + h <= area.y + area.height;
}

}  // namespace

TEST_CASE("the first window is centred, the next ones cascade inside the area without repeating")
{
    const Box area{100, 50, 640, 480};  // an output right of and below another
    std::vector<Box> taken;
    for (int i = 0; i < 40; ++i) {
        const Point p = place_new(area, 200, 150, taken);
        if (i == 0)
            CHECK(p == Point{100 + 220, 50 + 165});
        CHECK(inside(area, p, 200, 150));
        for (const Box& t : taken)
            CHECK((std::abs(t.x - p.x) >= cascade_step || std::abs(t.y - p.y) >= cascade_step));
        taken.push_back({p.x, p.y, 200, 150});
    }
}

TEST_CASE("a second window never lies wholly on the first, smaller or larger (scripts/run's two demo windows)")
{
    const Box area{0, 0, 1920, 1080};
    const Point first = place_new(area, 400, 300, {});
    CHECK(first == Point{760, 390});
    const Box first_box{first.x, first.y, 400, 300};
    // Centred, a 320x240 window would sit inside the first with its corner 40 px away: a cascade step is not enough.
    const Point smaller = place_new(area, 320, 240, {first_box});
    // Not inside the first, nor poking out of it by less than a cascade step.
    const Box grown{first_box.x - cascade_step, first_box.y - cascade_step, first_box.width + 2 * cascade_step,
                    first_box.height + 2 * cascade_step};
    CHECK_FALSE(inside(grown, smaller, 320, 240));
    CHECK(inside(area, smaller, 320, 240));
    // A larger one must not hide the first whole either.
    const Point larger = place_new(area, 600, 400, {first_box});
    CHECK_FALSE(inside({larger.x, larger.y, 600, 400}, first, 400, 300));
    // Where every spot covers a window (one filling the area), only the corner rule is kept.
    CHECK(inside(area, place_new(area, 320, 240, {{0, 0, 1920, 1080}}), 320, 240));
}

TEST_CASE("a window as large as the area goes to its corner, one larger is fitted")
{
    const Box area{0, 0, 640, 480};
    CHECK(place_new(area, 640, 480, {}) == Point{0, 0});
    CHECK(place_new(area, 640, 480, {{0, 0, 640, 480}}) == Point{0, 0});  // nowhere else to go
    CHECK(fit(area, 900, 700, 0, 0) == Point{640, 480});
    CHECK(fit(area, 900, 300, 0, 0) == Point{640, 300});
    CHECK(fit(area, 900, 700, 800, 0) == Point{800, 480});  // its minimum size wins
    CHECK(fit(area, 300, 200, 0, 0) == Point{300, 200});
}

TEST_CASE("a dialog is centred on its parent and kept inside the area")
{
    const Box area{0, 0, 640, 480};
    CHECK(centre_on({100, 100, 300, 200}, area, 100, 80) == Point{200, 160});
    CHECK(centre_on({500, 400, 300, 200}, area, 200, 100) == Point{440, 380});  // parent half off the output
}

TEST_CASE("a resize from the left or top edge keeps the right or bottom edge where it was")
{
    const Box start{100, 50, 300, 200};  // right edge at 400, bottom at 250
    const Point now{100, 50};
    CHECK(resize_corner(start, now, 360, 240, false, false) == Point{100, 50});  // right and bottom: corner stays
    CHECK(resize_corner(start, now, 360, 240, true, false) == Point{40, 50});
    CHECK(resize_corner(start, now, 250, 150, false, true) == Point{100, 100});
    CHECK(resize_corner(start, now, 250, 150, true, true) == Point{150, 100});
    // Where the window has moved since (an X window's own configure), an undragged axis follows it.
    CHECK(resize_corner(start, {120, 70}, 250, 150, true, false) == Point{150, 70});
}

TEST_CASE("a size is kept within the window's minimum and maximum, and at least 1")
{
    CHECK(size_within(300, 0, 0) == 300);
    CHECK(size_within(300, 400, 0) == 400);
    CHECK(size_within(300, 0, 200) == 200);
    CHECK(size_within(300, 100, 500) == 300);
    CHECK(size_within(0, 0, 0) == 1);
    CHECK(size_within(-20, -1, -1) == 1);  // X's "no hint"
    CHECK(size_within(300, -1, -1) == 300);
    CHECK(size_within(300, 400, 350) == 350);  // a maximum below the minimum wins, as before
}

TEST_CASE("popups flip, slide and resize into the bounds, each axis on its own")
{
    const Box bounds{-220, -165, 640, 480};  // the output seen from a window at (220, 165)
    PopupRule rule;
    rule.natural = {200, 10, 300, 100};
    rule.flipped_x = {-110, 10, 300, 100};
    rule.flipped_y = {200, -120, 300, 100};
    rule.flip_x = true;
    CHECK(constrain_popup(bounds, rule).x == -110);
    rule.flip_x = false;
    CHECK(constrain_popup(bounds, rule).x == 200);  // no adjustment allowed: left as it is
    rule.slide_x = true;
    CHECK(constrain_popup(bounds, rule).x == 120);
    rule.slide_x = false;
    rule.resize_x = true;
    const Box resized = constrain_popup(bounds, rule);
    CHECK((resized.x == 200 && resized.width == 220));
    CHECK(constrain_popup(bounds, rule).y == 10);  // the y axis fits: untouched

    PopupRule wide;
    wide.natural = {-300, 0, 700, 50};
    wide.flipped_x = {-300, 0, 700, 50};
    wide.flip_x = true;
    wide.slide_x = true;
    CHECK(constrain_popup(bounds, wide).x == -220);  // wider than the bounds: its left edge stays visible

    PopupRule flip_misses;
    flip_misses.natural = {0, 200, 50, 300};
    flip_misses.flipped_y = {0, -400, 50, 300};
    flip_misses.flip_y = true;
    CHECK(constrain_popup(bounds, flip_misses).y == 200);  // the flipped one would not fit either
}
