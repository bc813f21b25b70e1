// xdg_popup: a popup's role object: its parent, positioner rules and geometry, grab and reposition.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/shell/xdg/xdg_positioner.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>

namespace kiln::compositor::xdg {

class Surface;
class WmBase;

class Popup {
public:
    // parent may be null (layer-shell's get_popup names it before the first commit).
    Popup(Surface& base, Surface* parent, const PositionerRules& rules, WmBase& shell, wl_client* client,
          uint32_t version, uint32_t id);
    ~Popup();
    Popup(const Popup&) = delete;
    Popup& operator=(const Popup&) = delete;

    static Popup* from_resource(wl_resource* resource);  // null for an inert one

    Surface& base() const { return base_; }
    wl_resource* resource() const { return resource_; }
    // The parent's wl_surface: an xdg_surface's or a layer surface's; null until it has one.
    wlr_surface* parent() const { return parent_surface_; }
    Surface* xdg_parent() const { return parent_; }
    // Sets the parent to a non-xdg surface (zwlr_layer_surface_v1.get_popup). Only while it has none.
    void set_parent(wlr_surface* parent);
    const PositionerRules& rules() const { return rules_; }
    // Where the popup goes relative to its parent's window geometry; kiln's placement writes its adjusted box here
    // before the configure goes out.
    wlr_box geometry{};
    bool dismissed() const { return dismissed_; }
    bool grabbed() const { return grabbed_; }

    // popup_done to it (and first to its own popups): it is unmapped and never shown again.
    void dismiss();

    // Called by its xdg_surface.
    void send_configure();
    void make_inert();
    // Its xdg parent's role or xdg_surface is gone.
    void parent_gone();

    struct {
        wl_signal reposition;  // the rules changed (xdg_popup.reposition): place it again before the configure
        wl_signal destroy;
    } events;

private:
    friend struct PopupRequests;

    Surface& base_;
    Surface* parent_ = nullptr;
    wlr_surface* parent_surface_ = nullptr;
    PositionerRules rules_;
    WmBase& shell_;
    wlr_seat* grab_seat_ = nullptr;
    wl_resource* resource_;
    bool dismissed_ = false;
    bool grabbed_ = false;
    bool repositioned_pending_ = false;
    uint32_t reposition_token_ = 0;

    wl::Listener parent_surface_destroy_;
};

}  // namespace kiln::compositor::xdg
