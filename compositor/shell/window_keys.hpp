// WindowKeys: what the workspace and window keys do (show or move to a workspace, previous and next, snap a window to
// half its output, send it to the output beside), on Workspaces and the focused window.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/session/settings.hpp"
#include "compositor/wlr.hpp"

#include <unordered_map>

namespace kiln::compositor {

struct Core;
class Desktop;
class Toplevel;
class Toplevels;
class Workspaces;

class WindowKeys {
public:
    WindowKeys(const Core& core, Desktop& desktop, Toplevels& toplevels, Workspaces& workspaces);
    WindowKeys(const WindowKeys&) = delete;
    WindowKeys& operator=(const WindowKeys&) = delete;

    // One of the workspace or window actions of BindingAction (`number`: the workspace's, for those that take one);
    // any other action is not this class's and does nothing.
    void run(BindingAction action, int number);

private:
    enum class Side { left, right };
    // A snapped window: the side, the box it was given, and where it was before (to go back to).
    struct Snap {
        Side side;
        wlr_box box;
        wlr_box before;
    };

    void show_number(int number);
    void move_to_number(int number);
    void step(int direction);
    void snap(Toplevel& toplevel, Side side);
    // The box a window snapped to `side` of `output` fills: that half of the usable area, less kiln's decoration.
    wlr_box snap_box(const Toplevel& toplevel, wlr_output* output, Side side) const;
    void place(Toplevel& toplevel, const wlr_box& box);
    void move_to_output(Toplevel& toplevel, wlr_direction direction);

    const Core& core_;
    Desktop& desktop_;
    Toplevels& toplevels_;
    Workspaces& workspaces_;
    std::unordered_map<const Toplevel*, Snap> snapped_;

    wl::Listener toplevel_remove_;
};

}  // namespace kiln::compositor
