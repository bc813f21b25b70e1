// Placement rules: centred first, then a wrapping cascade; dialogs centred on their parent; sizes fitted to the area.
#include "compositor/shell/placement.hpp"

#include <algorithm>
#include <cstdlib>

namespace kiln::compositor::placement {

namespace {

bool near(Point a, Point b)
{
    return std::abs(a.x - b.x) < cascade_step && std::abs(a.y - b.y) < cascade_step;
}

// Whether `inner` lies on `outer` without showing a cascade step beyond it on any side: a window that pokes out by a
// pixel or two is as good as hidden.
bool lies_on(const Box& outer, const Box& inner)
{
    return inner.x > outer.x - cascade_step && inner.y > outer.y - cascade_step &&
           inner.x + inner.width < outer.x + outer.width + cascade_step &&
           inner.y + inner.height < outer.y + outer.height + cascade_step;
}

// `covering`: also refuse a spot where one window would hide the other whole.
bool free_spot(const Box& window, const std::vector<Box>& taken, bool covering)
{
    return std::none_of(taken.begin(), taken.end(), [&](const Box& t) {
        return near({window.x, window.y}, {t.x, t.y}) ||
               (covering && (lies_on(t, window) || lies_on(window, t)));
    });
}

// Moves `offset` one step along a range of `span` positions (0..span-1), wrapping to its start.
int step_along(int offset, int span)
{
    return span > 0 ? (offset + cascade_step) % span : 0;
}

}  // namespace

Point clamp_into(const Box& area, Point point, int width, int height)
{
    point.x = std::max(area.x, std::min(point.x, area.x + area.width - width));
    point.y = std::max(area.y, std::min(point.y, area.y + area.height - height));
    return point;
}

Point resize_corner(const Box& start, Point now, int width, int height, bool left, bool top)
{
    if (left)
        now.x = start.x + start.width - width;
    if (top)
        now.y = start.y + start.height - height;
    return now;
}

int size_within(int size, int min, int max)
{
    size = std::max(size, std::max(min, 1));
    return max > 0 ? std::min(size, max) : size;
}

Point place_new(const Box& area, int width, int height, const std::vector<Box>& taken)
{
    // The window's corner may be anywhere in [0, span) from the area's corner and the window stays inside.
    const int span_x = std::max(area.width - width, 0) + 1;
    const int span_y = std::max(area.height - height, 0) + 1;
    const Point first{area.x + (span_x - 1) / 2, area.y + (span_y - 1) / 2};
    // Each axis wraps on its own, so the cascade walks the area diagonally and rarely comes back to a spot; a
    // bounded walk, since a full area has no free spot (the centre then takes the window again).
    const int tries = 4 * (span_x / cascade_step + span_y / cascade_step + 2);
    for (bool covering : {true, false}) {
        int dx = first.x - area.x;
        int dy = first.y - area.y;
        for (int i = 0; i < tries; ++i) {
            const Box window{area.x + dx, area.y + dy, width, height};
            if (free_spot(window, taken, covering))
                return {window.x, window.y};
            dx = step_along(dx, span_x);
            dy = step_along(dy, span_y);
        }
    }
    return first;
}

Point centre_on(const Box& parent, const Box& area, int width, int height)
{
    const Point centred{parent.x + (parent.width - width) / 2, parent.y + (parent.height - height) / 2};
    return clamp_into(area, centred, width, height);
}

Point fit(const Box& area, int width, int height, int min_width, int min_height)
{
    return {std::max(std::min(width, area.width), min_width), std::max(std::min(height, area.height), min_height)};
}

namespace {

// One axis of constrain_popup: a start and a length, inside [low, high).
void constrain_axis(int& start, int& length, int flipped_start, int low, int high, bool flip, bool slide,
                    bool resize)
{
    auto fits = [low, high](int s, int l) { return s >= low && s + l <= high; };
    if (fits(start, length))
        return;
    if (flip && fits(flipped_start, length)) {
        start = flipped_start;
        return;
    }
    if (slide) {
        if (start + length > high)
            start = high - length;
        if (start < low)
            start = low;
        if (fits(start, length))
            return;
    }
    if (resize) {
        const int first = std::max(start, low);
        const int end = std::min(start + length, high);
        if (end > first) {
            start = first;
            length = end - first;
        }
    }
}

}  // namespace

Box constrain_popup(const Box& bounds, const PopupRule& rule)
{
    Box box = rule.natural;
    constrain_axis(box.x, box.width, rule.flipped_x.x, bounds.x, bounds.x + bounds.width, rule.flip_x, rule.slide_x,
                   rule.resize_x);
    constrain_axis(box.y, box.height, rule.flipped_y.y, bounds.y, bounds.y + bounds.height, rule.flip_y,
                   rule.slide_y, rule.resize_y);
    return box;
}

}  // namespace kiln::compositor::placement
