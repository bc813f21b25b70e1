// XdgShell: kiln's xdg-shell: the toplevels (Views) and popups, the scene layers they live in, and the interactive
// move and resize grabs clients ask for (focus and the grabs themselves are Toplevels').
#pragma once

#include "compositor/indexed_list.hpp"
#include "compositor/listener.hpp"
#include "compositor/shell/placement.hpp"
#include "compositor/shell/xdg/xdg_wm_base.hpp"
#include "compositor/wlr.hpp"

#include <list>
#include <memory>
#include <vector>

namespace kiln::compositor {

struct Core;
class Decorations;
class Desktop;
class SeatFocus;
class Toplevels;
class View;

class XdgShell {
public:
    enum class Layer { normal, fullscreen };

    // Every xdg surface's map and unmap is told to `seat` as a scene change (an xdg_popup.destroy unmaps without a
    // commit, which the seat would not see).
    XdgShell(const Core& core, Desktop& desktop, Toplevels& toplevels, SeatFocus& seat, Decorations& decorations,
             wl_display* display);
    ~XdgShell();
    XdgShell(const XdgShell&) = delete;
    XdgShell& operator=(const XdgShell&) = delete;

    // What its windows share.
    const Core& core() const { return core_; }
    Toplevels& toplevels() const { return toplevels_; }
    SeatFocus& seat() const { return seat_; }
    Decorations& decorations() const { return decorations_; }

    // kiln's xdg_wm_base global; its new_surface announces toplevels and popups.
    xdg::WmBase& wm_base() const { return *wm_base_; }
    wlr_scene_node* layer(Layer layer) const;

    void remove_view(View* view);

    // xdg_toplevel.move (edges 0) or resize: started only while the button whose press carried `serial` is the one
    // held and its client has the pointer; anything else is ignored.
    void request_grab(View& view, wlr_seat_client* client, uint32_t serial, uint32_t edges);
    wlr_output* output_under_pointer() const;
    // Maximized windows on `output` are fitted to its usable area again.
    void usable_area_changed(wlr_output* output);
    // The part of an output windows may use: the output less panels' exclusive zones.
    placement::Box usable_area(wlr_output* output) const;
    // Something that changes what of each window shows happened (a map, move, raise, commit, minimize, output
    // change): which windows are suspended is worked out again when the event loop is next idle.
    void visibility_changed();

    struct {
        // Windows moved, resized, mapped, unmapped or restacked (coalesced, when the event loop is next idle).
        wl_signal windows_changed;
    } events;
    // Where the shown windows other than `except` are (corner and size).
    std::vector<placement::Box> taken_spots(const View* except) const;

private:
    const Core& core_;
    Desktop& desktop_;
    Toplevels& toplevels_;
    SeatFocus& seat_;
    Decorations& decorations_;
    std::unique_ptr<xdg::WmBase> wm_base_;
    wlr_scene_tree* normal_;
    wlr_scene_tree* fullscreen_;
    IndexedList<std::unique_ptr<View>> views_;
    class SceneWatch;
    IndexedList<std::unique_ptr<SceneWatch>> scene_watches_;  // one per xdg surface, toplevel or popup
    wl_event_source* visibility_idle_ = nullptr;
    // xdg_toplevel's suspended state: a window wholly under opaque windows above it, off every output, or
    // minimized is suspended (its frame callbacks wait, see xdg::frame_callbacks_held).
    void update_suspended();

    wl::Listener new_surface_;
    wl::Listener layout_change_;
};

}  // namespace kiln::compositor
