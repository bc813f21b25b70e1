// xdg_positioner requests (each checked as the protocol says: invalid_input) and the geometry the rules give.
#include "compositor/shell/xdg/xdg_positioner.hpp"

#include "xdg-shell-protocol.h"

namespace kiln::compositor::xdg {
namespace {

PositionerRules& rules_of(wl_resource* resource)
{
    return *static_cast<PositionerRules*>(wl_resource_get_user_data(resource));
}

bool has(uint32_t edges, uint32_t which)
{
    return (edges & which) != 0;
}

// Anchor and gravity share their values: a bit set of top/bottom/left/right edges.
constexpr uint32_t edge_top = 1, edge_bottom = 2, edge_left = 4, edge_right = 8;

uint32_t edges_of(uint32_t value)
{
    switch (value) {
    case XDG_POSITIONER_ANCHOR_TOP: return edge_top;
    case XDG_POSITIONER_ANCHOR_BOTTOM: return edge_bottom;
    case XDG_POSITIONER_ANCHOR_LEFT: return edge_left;
    case XDG_POSITIONER_ANCHOR_RIGHT: return edge_right;
    case XDG_POSITIONER_ANCHOR_TOP_LEFT: return edge_top | edge_left;
    case XDG_POSITIONER_ANCHOR_BOTTOM_LEFT: return edge_bottom | edge_left;
    case XDG_POSITIONER_ANCHOR_TOP_RIGHT: return edge_top | edge_right;
    case XDG_POSITIONER_ANCHOR_BOTTOM_RIGHT: return edge_bottom | edge_right;
    default: return 0;
    }
}

uint32_t value_of(uint32_t edges)
{
    switch (edges) {
    case edge_top: return XDG_POSITIONER_ANCHOR_TOP;
    case edge_bottom: return XDG_POSITIONER_ANCHOR_BOTTOM;
    case edge_left: return XDG_POSITIONER_ANCHOR_LEFT;
    case edge_right: return XDG_POSITIONER_ANCHOR_RIGHT;
    case edge_top | edge_left: return XDG_POSITIONER_ANCHOR_TOP_LEFT;
    case edge_bottom | edge_left: return XDG_POSITIONER_ANCHOR_BOTTOM_LEFT;
    case edge_top | edge_right: return XDG_POSITIONER_ANCHOR_TOP_RIGHT;
    case edge_bottom | edge_right: return XDG_POSITIONER_ANCHOR_BOTTOM_RIGHT;
    default: return XDG_POSITIONER_ANCHOR_NONE;
    }
}

uint32_t swap(uint32_t value, uint32_t a, uint32_t b)
{
    uint32_t edges = edges_of(value);
    const bool has_a = has(edges, a);
    const bool has_b = has(edges, b);
    edges &= ~(a | b);
    if (has_a)
        edges |= b;
    if (has_b)
        edges |= a;
    return value_of(edges);
}

const struct xdg_positioner_interface implementation = {
    .destroy = [](wl_client*, wl_resource* resource) noexcept { wl_resource_destroy(resource); },
    .set_size =
        [](wl_client*, wl_resource* resource, int32_t width, int32_t height) noexcept {
            if (width <= 0 || height <= 0) {
                wl_resource_post_error(resource, XDG_POSITIONER_ERROR_INVALID_INPUT, "size %dx%d is not positive",
                                       width, height);
                return;
            }
            rules_of(resource).width = width;
            rules_of(resource).height = height;
        },
    .set_anchor_rect =
        [](wl_client*, wl_resource* resource, int32_t x, int32_t y, int32_t width, int32_t height) noexcept {
            if (width < 0 || height < 0) {
                wl_resource_post_error(resource, XDG_POSITIONER_ERROR_INVALID_INPUT,
                                       "anchor rect of negative size %dx%d", width, height);
                return;
            }
            rules_of(resource).anchor_rect = {x, y, width, height};
            rules_of(resource).has_anchor_rect = true;
        },
    .set_anchor =
        [](wl_client*, wl_resource* resource, uint32_t anchor) noexcept {
            if (anchor > XDG_POSITIONER_ANCHOR_BOTTOM_RIGHT) {
                wl_resource_post_error(resource, XDG_POSITIONER_ERROR_INVALID_INPUT, "%u is not an anchor", anchor);
                return;
            }
            rules_of(resource).anchor = anchor;
        },
    .set_gravity =
        [](wl_client*, wl_resource* resource, uint32_t gravity) noexcept {
            if (gravity > XDG_POSITIONER_GRAVITY_BOTTOM_RIGHT) {
                wl_resource_post_error(resource, XDG_POSITIONER_ERROR_INVALID_INPUT, "%u is not a gravity", gravity);
                return;
            }
            rules_of(resource).gravity = gravity;
        },
    .set_constraint_adjustment =
        [](wl_client*, wl_resource* resource, uint32_t adjustment) noexcept {
            if (adjustment & ~uint32_t{0x3f}) {
                wl_resource_post_error(resource, XDG_POSITIONER_ERROR_INVALID_INPUT,
                                       "%u is not a constraint adjustment", adjustment);
                return;
            }
            rules_of(resource).adjustment = adjustment;
        },
    .set_offset =
        [](wl_client*, wl_resource* resource, int32_t x, int32_t y) noexcept {
            rules_of(resource).offset_x = x;
            rules_of(resource).offset_y = y;
        },
    .set_reactive = [](wl_client*, wl_resource* resource) noexcept { rules_of(resource).reactive = true; },
    .set_parent_size =
        [](wl_client*, wl_resource* resource, int32_t width, int32_t height) noexcept {
            if (width < 0 || height < 0) {
                wl_resource_post_error(resource, XDG_POSITIONER_ERROR_INVALID_INPUT,
                                       "parent size %dx%d is negative", width, height);
                return;
            }
            rules_of(resource).parent_width = width;
            rules_of(resource).parent_height = height;
        },
    .set_parent_configure =
        [](wl_client*, wl_resource* resource, uint32_t serial) noexcept {
            rules_of(resource).parent_configure = serial;
            rules_of(resource).has_parent_configure = true;
        },
};

}  // namespace

wlr_box PositionerRules::geometry() const
{
    const uint32_t anchor_edges = edges_of(anchor);
    const uint32_t gravity_edges = edges_of(gravity);
    const wlr_box& rect = anchor_rect;
    // The anchor point on the anchor rectangle, then the popup placed from it in the gravity's direction.
    int x = rect.x + rect.width / 2;
    int y = rect.y + rect.height / 2;
    if (has(anchor_edges, edge_left))
        x = rect.x;
    else if (has(anchor_edges, edge_right))
        x = rect.x + rect.width;
    if (has(anchor_edges, edge_top))
        y = rect.y;
    else if (has(anchor_edges, edge_bottom))
        y = rect.y + rect.height;
    wlr_box box{x + offset_x, y + offset_y, width, height};
    if (has(gravity_edges, edge_left))
        box.x -= width;
    else if (!has(gravity_edges, edge_right))
        box.x -= width / 2;
    if (has(gravity_edges, edge_top))
        box.y -= height;
    else if (!has(gravity_edges, edge_bottom))
        box.y -= height / 2;
    return box;
}

PositionerRules PositionerRules::flipped_x() const
{
    PositionerRules flipped = *this;
    flipped.anchor = swap(anchor, edge_left, edge_right);
    flipped.gravity = swap(gravity, edge_left, edge_right);
    flipped.offset_x = -offset_x;
    return flipped;
}

PositionerRules PositionerRules::flipped_y() const
{
    PositionerRules flipped = *this;
    flipped.anchor = swap(anchor, edge_top, edge_bottom);
    flipped.gravity = swap(gravity, edge_top, edge_bottom);
    flipped.offset_y = -offset_y;
    return flipped;
}

void create_positioner(wl_client* client, uint32_t version, uint32_t id)
{
    wl_resource* resource = wl_resource_create(client, &xdg_positioner_interface, static_cast<int>(version), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    wl_resource_set_implementation(resource, &implementation, new PositionerRules{}, [](wl_resource* r) noexcept {
        delete static_cast<PositionerRules*>(wl_resource_get_user_data(r));
    });
}

const PositionerRules& positioner_rules(wl_resource* positioner)
{
    return rules_of(positioner);
}

}  // namespace kiln::compositor::xdg
