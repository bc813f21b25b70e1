// xdg_surface: the link between a wl_surface and its xdg role: configure / ack_configure, window geometry, map and
// unmap, and the rules that go with them (unconfigured_buffer, not_constructed, already_constructed).
#pragma once

#include "compositor/indexed_list.hpp"
#include "compositor/listener.hpp"
#include "compositor/shell/xdg/xdg_popup.hpp"
#include "compositor/shell/xdg/xdg_toplevel.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>
#include <list>
#include <memory>
#include <vector>

namespace kiln::compositor::xdg {

class WmClient;

enum class Role { none, toplevel, popup };

// One configure sent and not yet acknowledged.
struct Configure {
    uint32_t serial = 0;
    ToplevelState toplevel;  // toplevels only
};

class Surface {
public:
    Surface(WmClient& client, wlr_surface* surface, uint32_t version, uint32_t id);
    ~Surface();
    Surface(const Surface&) = delete;
    Surface& operator=(const Surface&) = delete;

    // The xdg_surface whose role the wl_surface has, if any (null when its xdg_surface is gone).
    static Surface* from(wlr_surface* surface);
    static Surface* from_resource(wl_resource* resource);  // null for an inert one
    // Whether the wl_surface has an xdg role (toplevel or popup), alive or not.
    static bool has_xdg_role(wlr_surface* surface);

    WmClient& client() const { return client_; }
    wl_client* wl_client_of() const;
    wlr_surface* surface() const { return surface_; }
    wl_resource* resource() const { return resource_; }
    Role role() const { return role_; }
    Toplevel* toplevel() const { return toplevel_.get(); }
    Popup* popup() const { return popup_.get(); }
    bool configured() const { return configured_; }
    // A configure went out (or is scheduled) since the role's initial commit.
    bool configure_sent() const { return initial_sent_; }
    bool mapped() const { return mapped_; }
    // Announced to kiln (its role's first commit, the shell's new_surface).
    bool added() const { return added_; }
    // The window geometry: what the client set, or the extent of the surface and its subsurfaces.
    wlr_box geometry() const;
    const IndexedList<Popup*>& popups() const { return popups_; }

    // Schedules a configure; sent when the event loop is next idle. Returns its serial.
    uint32_t schedule_configure();
    void ping();

    // Kiln's own data (the scene node a View or popup tree hangs on).
    void* data = nullptr;

    struct {
        wl_signal destroy;  // the role object announced by new_surface is gone (the xdg_surface may stay)
        wl_signal map;
        wl_signal unmap;
        wl_signal commit;        // after the role handled a commit
        wl_signal configure;     // Configure*: the role's events are out, xdg_surface.configure is next
        wl_signal ack_configure; // Configure*
        wl_signal ping_timeout;
    } events;

    // Called by WmClient and the roles.
    void set_toplevel(wl_client* client, uint32_t version, uint32_t id);
    void set_popup(Surface* parent, const PositionerRules& rules, wl_client* client, uint32_t version, uint32_t id);
    void role_destroyed();
    void add_child(Popup* popup) { popups_.push_back(popup); }
    void remove_child(Popup* popup) { popups_.remove(popup); }
    void unmap();
    void set_window_geometry(int32_t x, int32_t y, int32_t width, int32_t height);
    void ack_configure(uint32_t serial);
    // Called when the wl_surface goes or the xdg_surface resource is destroyed: everything turns inert.
    void make_inert();
    // The role's precommit and commit (wlroots' surface role hooks).
    void role_precommit();
    void role_commit();

private:
    void send_configure();

    WmClient& client_;
    wlr_surface* surface_;
    wl_resource* resource_;
    Role role_ = Role::none;
    std::unique_ptr<Toplevel> toplevel_;
    std::unique_ptr<Popup> popup_;
    bool added_ = false;
    bool configured_ = false;    // a configure was acknowledged
    bool initial_sent_ = false;  // the initial configure was scheduled for this mapping
    bool mapped_ = false;
    bool geometry_pending_set_ = false;
    wlr_box pending_geometry_{};
    wlr_box current_geometry_{};
    bool has_geometry_ = false;
    std::list<Configure> configures_;
    wl_event_source* configure_idle_ = nullptr;
    uint32_t scheduled_serial_ = 0;
    IndexedList<Popup*> popups_;
    wlr_addon* addon_ = nullptr;  // the wl_surface's link back here (Surface::from)
    bool unmapped_now_ = false;   // the commit under way unmapped the surface

    wl::Listener surface_destroy_;
    wl::Listener surface_commit_;  // while it has no role: commits are errors
};

// Whether `surface` (or the surface tree it is in) belongs to a toplevel kiln suspended: its frame callbacks wait.
bool frame_callbacks_held(wlr_surface* surface);

}  // namespace kiln::compositor::xdg
