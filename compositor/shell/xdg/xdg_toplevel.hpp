// xdg_toplevel: a window's role object: what the client asks for (title, sizes, parent, states) and the state kiln
// configures it with (size, states, bounds, capabilities), sent through its xdg_surface's configure sequence.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>
#include <string>

namespace kiln::compositor::xdg {

class Surface;

// What kiln tells the window in one configure.
struct ToplevelState {
    bool maximized = false;
    bool fullscreen = false;
    bool resizing = false;
    bool activated = false;
    bool suspended = false;   // version 6
    uint32_t tiled = 0;        // WLR_EDGE_* bits (version 2)
    uint32_t constrained = 0;  // WLR_EDGE_* bits (version 7)
    int32_t width = 0;
    int32_t height = 0;
    int32_t bounds_width = 0;  // version 4; 0: no bounds
    int32_t bounds_height = 0;

    bool operator==(const ToplevelState&) const = default;
};

// Double-buffered client state, applied on commit.
struct ToplevelLimits {
    int32_t min_width = 0;
    int32_t min_height = 0;
    int32_t max_width = 0;
    int32_t max_height = 0;
};

// What the client asked for before or after its initial commit (kiln decides).
struct ToplevelRequested {
    bool maximized = false;
    bool fullscreen = false;
    wlr_output* fullscreen_output = nullptr;
    bool minimized = false;
};

struct SeatRequest {
    wlr_seat_client* seat = nullptr;  // null: the wl_seat is gone
    uint32_t serial = 0;
    uint32_t edges = 0;  // resize only
    int32_t x = 0;       // show_window_menu only
    int32_t y = 0;
};

struct FullscreenRequest {
    bool fullscreen = false;
    wlr_output* output = nullptr;
};

class Toplevel {
public:
    // wm_capabilities bits (version 5), as xdg_toplevel.wm_capabilities lists them.
    static constexpr uint32_t capability_window_menu = 1u << 0;
    static constexpr uint32_t capability_maximize = 1u << 1;
    static constexpr uint32_t capability_fullscreen = 1u << 2;
    static constexpr uint32_t capability_minimize = 1u << 3;

    Toplevel(Surface& base, wl_client* client, uint32_t version, uint32_t id);
    ~Toplevel();
    Toplevel(const Toplevel&) = delete;
    Toplevel& operator=(const Toplevel&) = delete;

    static Toplevel* from_resource(wl_resource* resource);  // null for an inert one

    Surface& base() const { return base_; }
    wl_resource* resource() const { return resource_; }
    uint32_t version() const;
    const char* title() const { return has_title_ ? title_.c_str() : nullptr; }
    const char* app_id() const { return has_app_id_ ? app_id_.c_str() : nullptr; }
    Toplevel* parent() const { return parent_; }
    // Sets the parent (xdg-foreign's set_parent_of, or the client's set_parent). False when that would make a loop.
    bool set_parent(Toplevel* parent);
    const ToplevelLimits& limits() const { return current_limits_; }
    const ToplevelRequested& requested() const { return requested_; }
    // The state last acknowledged by the client (its current configure).
    const ToplevelState& current() const { return current_; }
    const ToplevelState& pending() const { return pending_; }

    // Kiln's side: each change schedules a configure when it differs from the last one sent.
    void set_size(int32_t width, int32_t height);
    void set_activated(bool activated);
    void set_maximized(bool maximized);
    void set_fullscreen(bool fullscreen);
    void set_resizing(bool resizing);
    void set_tiled(uint32_t edges);
    void set_constrained(uint32_t edges);
    void set_suspended(bool suspended);
    void set_bounds(int32_t width, int32_t height);
    void set_wm_capabilities(uint32_t capabilities);
    void send_close();

    // Called by its request handlers.
    void request_maximized(bool maximized);
    void request_fullscreen(bool fullscreen, wlr_output* output);
    void request_minimized();

    // Called by its xdg_surface.
    void commit();
    void send_configure(const ToplevelState& state);
    void acked(const ToplevelState& state) { current_ = state; }
    bool differs_from_last_sent() const { return !(pending_ == last_sent_); }
    // Unmapped: the next initial configure carries the whole state again (the capabilities the client has
    // already: they were sent when the toplevel was made).
    void forget_sent() { last_sent_ = {}; }
    // Role object destroyed or surface gone: the resource turns inert.
    void make_inert();

    struct {
        wl_signal request_maximize;
        wl_signal request_fullscreen;  // FullscreenRequest*
        wl_signal request_minimize;
        wl_signal request_move;    // SeatRequest*
        wl_signal request_resize;  // SeatRequest*
        wl_signal request_show_window_menu;  // SeatRequest*
        wl_signal set_parent;
        wl_signal set_title;
        wl_signal set_app_id;
        wl_signal destroy;
    } events;

private:
    friend struct ToplevelRequests;
    void schedule();
    // xdg_toplevel.wm_capabilities (version 5 on): when the toplevel is made, and again before the configure
    // that follows a change.
    void send_wm_capabilities();

    Surface& base_;
    wl_resource* resource_;
    std::string title_;
    std::string app_id_;
    bool has_title_ = false;
    bool has_app_id_ = false;
    Toplevel* parent_ = nullptr;
    ToplevelLimits pending_limits_;
    ToplevelLimits current_limits_;
    ToplevelRequested requested_;
    ToplevelState pending_;
    ToplevelState last_sent_;
    ToplevelState current_;
    uint32_t capabilities_ = capability_maximize | capability_fullscreen | capability_minimize;
    bool capabilities_sent_ = false;

    wl::Listener parent_destroy_;
};

}  // namespace kiln::compositor::xdg
