// XdgToplevelDragV1: xdg_toplevel_drag_manager_v1, a toplevel attached to a wl_data_device drag that follows the
// pointer (less the attach offset) while the drag lasts and stays where the drag ends, focused, a normal window.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <memory>
#include <unordered_map>

namespace kiln::compositor {

class Toplevels;

class XdgToplevelDragV1 {
public:
    // `seat`'s drags are the ones toplevels ride on; `cursor` is the pointer they follow; `toplevels` focuses a
    // window when its drag ends.
    XdgToplevelDragV1(wl_display* display, wlr_seat* seat, wlr_cursor* cursor, Toplevels& toplevels);
    ~XdgToplevelDragV1();
    XdgToplevelDragV1(const XdgToplevelDragV1&) = delete;
    XdgToplevelDragV1& operator=(const XdgToplevelDragV1&) = delete;

    const wl_global* global() const { return global_; }
    // The scene tree of the window a running drag carries (null: none), which the pointer looks through.
    wlr_scene_node* carried() const;
    // Drags begun with a toplevel drag object, ever (stats).
    uint64_t drags_started() const { return drags_started_; }

    struct Drag;

private:
    static void bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept;
    void get_drag(wl_resource* manager, uint32_t id, wl_resource* source_resource);
    void attach(Drag& drag, wl_resource* toplevel, int32_t x_offset, int32_t y_offset);
    void detach(Drag& drag);
    // The attached toplevel of `drag` to the pointer, less its offset (when it is mapped and the drag runs).
    void follow(Drag& drag);
    // Where `drag`'s toplevel goes: the pointer less its offset.
    int target_x(const Drag& drag) const;
    int target_y(const Drag& drag) const;
    void drag_started(wlr_drag* drag);
    void drag_ended(Drag& drag);
    Drag* find(wlr_data_source* source);
    // Whether a toplevel drag holds the xdg_toplevel `toplevel`, other than `except`.
    bool attached_elsewhere(wl_resource* toplevel, const Drag* except) const;
    void forget_manager(wl_resource* manager);

    wl_global* global_;
    wlr_seat* seat_;
    wlr_cursor* cursor_;
    Toplevels& toplevels_;
    uint64_t drags_started_ = 0;
    // Per xdg_toplevel_drag_v1 resource; an entry goes with its resource.
    std::unordered_map<wl_resource*, std::unique_ptr<Drag>> drags_;

    wl::Listener start_drag_;
    wl::Listener set_selection_;
    wl::Listener motion_;
    wl::Listener motion_absolute_;
};

}  // namespace kiln::compositor
