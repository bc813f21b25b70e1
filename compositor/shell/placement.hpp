// Placement: where a new window goes and what size it may have, as plain geometry (no wlroots, so unit-testable).
#pragma once

#include <vector>

namespace kiln::compositor::placement {

struct Box {
    int x = 0;
    int y = 0;
    int width = 0;
    int height = 0;
};

struct Point {
    int x = 0;
    int y = 0;
    bool operator==(const Point&) const = default;
};

// How far each cascaded window sits from the one before it.
inline constexpr int cascade_step = 32;

// The top-left corner for a new window of `width` x `height` in `area`: centred, or, when that spot is taken, the
// next free spot of a cascade that wraps around inside the area, so windows never pile up on one spot. A spot is
// taken when another window's corner (in `taken`, the windows already shown) is within a cascade step of it, or
// when one of the two windows would lie on the other without showing a cascade step beyond it (a small window
// centred on a larger one); where the area has no spot free of both, one free of the first rule is used. A window
// larger than the area goes to the area's corner.
Point place_new(const Box& area, int width, int height, const std::vector<Box>& taken);

// The top-left corner that centres a `width` x `height` window on `parent`, moved inside `area` where it fits.
Point centre_on(const Box& parent, const Box& area, int width, int height);

// The size to ask of a window that is `width` x `height` so it fits `area`; its minimum size (0: none) wins over
// the area. Returns the size unchanged when it fits.
Point fit(const Box& area, int width, int height, int min_width, int min_height);

// `point` moved the least so a `width` x `height` window there lies inside `area` (its top-left wins where it cannot).
Point clamp_into(const Box& area, Point point, int width, int height);

// The top-left corner of a window now `width` x `height` during an interactive resize that began with the window at
// `start`: where its left (top) edge is dragged, its right (bottom) edge stays where it was; otherwise the corner
// stays at `now`.
Point resize_corner(const Box& start, Point now, int width, int height, bool left, bool top);

// `size` within a window's own `min` and `max` (0 or less: none), and at least 1.
int size_within(int size, int min, int max);

// A popup's box as its positioner puts it, the same with the anchor and gravity flipped on each axis, and the
// constraint adjustments it allows (xdg_positioner.constraint_adjustment).
struct PopupRule {
    Box natural;
    Box flipped_x;
    Box flipped_y;
    bool flip_x = false;
    bool flip_y = false;
    bool slide_x = false;
    bool slide_y = false;
    bool resize_x = false;
    bool resize_y = false;
};

// Where the popup goes so it lies inside `bounds` (same coordinates), each axis on its own, in the protocol's
// order: flip (only if the flipped box fits), then slide (the top-left edge kept visible when it is too big), then
// resize (the part inside); an axis no adjustment can fix keeps what the earlier ones gave.
Box constrain_popup(const Box& bounds, const PopupRule& rule);

}  // namespace kiln::compositor::placement
