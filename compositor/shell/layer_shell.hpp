// LayerShell: zwlr_layer_shell_v1 (panels, backgrounds, notifications, lock-screen backgrounds): where each layer
// surface goes on its output, the usable area exclusive zones leave to windows, and who holds the keyboard.
#pragma once

#include "compositor/indexed_list.hpp"
#include "compositor/listener.hpp"
#include "compositor/scene_layers.hpp"
#include "compositor/wlr.hpp"

#include <list>
#include <map>
#include <memory>
#include <vector>

namespace kiln::compositor {

struct Core;
class Desktop;
class LayerSurface;
class SeatFocus;

class LayerShell {
public:
    LayerShell(const Core& core, Desktop& desktop, SeatFocus& seat, const SceneLayers& layers);
    ~LayerShell();
    LayerShell(const LayerShell&) = delete;
    LayerShell& operator=(const LayerShell&) = delete;

    const Core& core() const { return core_; }
    const SceneLayers& layers() const { return layers_; }
    // zwlr_layer_shell_v1's global: hidden from sandboxes (an overlay could take the keyboard from every window).
    const wl_global* global() const { return shell_->global; }
    // The part of `output` (layout coordinates) no exclusive zone takes: the whole output when none does.
    wlr_box usable_area(wlr_output* output) const;
    // The layer surface that keeps the keyboard from windows (exclusive interactivity, top or overlay), or null.
    wlr_surface* keyboard_grab() const;
    // Places every layer surface of `output` and recomputes its usable area.
    void arrange(wlr_output* output);
    void mapped(LayerSurface& surface);
    // A surface's opaque area changed: it may hide windows, or stop hiding them.
    void coverage_changed();
    void unmapped(LayerSurface& surface);
    void remove(LayerSurface* surface);
    wlr_scene_tree* tree_for(uint32_t layer) const;
    // Gives the keyboard to the layer surface that grabs it, or back to the windows when the one holding it
    // (`leaving`, or a surface whose layer role is gone) no longer takes it.
    void update_keyboard(wlr_surface* leaving = nullptr);
    // A new output, before anything else listens to it: when it goes (unplugged), its layer surfaces move to the
    // output the windows go to, the one in the middle of the layout that is left, and are configured there; closed
    // only when no output is left. Either happens while the scene can still damage the output going (wlroots 0.15
    // frees its damage tracking on the same destroy signal, after this listener and the layout's, and a surface
    // unmapped after that crashed kiln: a panel on a monitor unplugged).
    void watch_output(wlr_output* output);

private:
    void arrange_all();
    // The layer surfaces of `gone`, no longer in the layout, to the layout's centre output (or closed).
    void rehome(wlr_output* gone);
    void schedule_close(LayerSurface* surface);

    const Core& core_;
    Desktop& desktop_;
    SeatFocus& seat_;
    SceneLayers layers_;
    wlr_layer_shell_v1* shell_;
    IndexedList<std::unique_ptr<LayerSurface>> surfaces_;
    std::map<wlr_output*, wlr_box> usable_;  // outputs arranged so far; the others' usable area is the output
    wl_event_source* close_later_ = nullptr;  // closes the surfaces marked closing, once arrange() is done
    // An output being destroyed while still in the layout: its surfaces move once the layout has let it go (later
    // on the same destroy signal), so the layout's centre is found without it, as Toplevels finds it for windows.
    wlr_output* unplugged_ = nullptr;

    std::map<wlr_output*, std::unique_ptr<wl::Listener>> output_destroy_;

    wl::Listener new_surface_;
    wl::Listener layout_change_;
    wl::Listener cursor_button_;
};

}  // namespace kiln::compositor
