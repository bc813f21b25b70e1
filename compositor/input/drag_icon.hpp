// DragIcons: the icon surface of a running wl_data_device pointer drag, drawn at the pointer plus the surface's own
// offset in a scene tree above every layer, and never under the pointer for input.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <memory>
#include <unordered_map>

namespace kiln::compositor {

class DragIcons {
public:
    // The icons of `seat`'s pointer drags go in `tree` and follow `cursor`.
    DragIcons(wlr_seat* seat, wlr_cursor* cursor, wlr_scene_tree* tree);
    ~DragIcons();
    DragIcons(const DragIcons&) = delete;
    DragIcons& operator=(const DragIcons&) = delete;

    // The pointer moved: each icon goes with it.
    void pointer_moved();

private:
    class Icon;

    void drag_started(wlr_drag* drag);

    wlr_cursor* cursor_;
    wlr_scene_tree* tree_;
    // Per wlr_drag_icon; an entry goes with its icon (the drag ended, or its surface was destroyed).
    std::unordered_map<wlr_drag_icon*, std::unique_ptr<Icon>> icons_;

    wl::Listener start_drag_;
};

}  // namespace kiln::compositor
