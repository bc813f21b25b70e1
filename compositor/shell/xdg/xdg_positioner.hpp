// xdg_positioner: the rules a client sets for where a popup goes, and the box they give relative to the parent.
#pragma once

#include "compositor/wlr.hpp"

#include <cstdint>

namespace kiln::compositor::xdg {

struct PositionerRules {
    int32_t width = 0;  // 0: set_size never called
    int32_t height = 0;
    wlr_box anchor_rect{};
    bool has_anchor_rect = false;
    uint32_t anchor = 0;   // xdg_positioner.anchor
    uint32_t gravity = 0;  // xdg_positioner.gravity
    uint32_t adjustment = 0;
    int32_t offset_x = 0;
    int32_t offset_y = 0;
    // Version 3: the popup is placed again when its parent moves or resizes, against this parent state.
    bool reactive = false;
    int32_t parent_width = 0;
    int32_t parent_height = 0;
    uint32_t parent_configure = 0;
    bool has_parent_configure = false;

    // set_size and set_anchor_rect were both called: a popup may be made from it.
    bool complete() const { return width > 0 && height > 0 && has_anchor_rect; }
    // The popup's box relative to its parent's window geometry, before any constraint adjustment.
    wlr_box geometry() const;
    // The same rules mirrored along x or y (anchor and gravity left <-> right, offset negated), for flip_x / flip_y.
    PositionerRules flipped_x() const;
    PositionerRules flipped_y() const;
};

// Makes xdg_positioner `id` for xdg_wm_base.create_positioner.
void create_positioner(wl_client* client, uint32_t version, uint32_t id);
// The rules of a live xdg_positioner resource made by create_positioner.
const PositionerRules& positioner_rules(wl_resource* positioner);

}  // namespace kiln::compositor::xdg
