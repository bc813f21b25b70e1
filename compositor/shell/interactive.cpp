// Interactive move and resize: the window follows the pointer's offset from where the grab began.
#include "compositor/shell/interactive.hpp"

#include "compositor/shell/view.hpp"
#include "compositor/shell/xdg_shell.hpp"

#include <cmath>

namespace kiln::compositor {

InteractiveGrab::InteractiveGrab(XdgShell& shell, View& view, uint32_t edges, double lx, double ly)
    : shell_(shell), view_(view), edges_(edges), start_lx_(lx), start_ly_(ly), start_(view.geometry())
{
    if (edges_)
        view_.begin_resize(edges_);
}

InteractiveGrab::~InteractiveGrab()
{
    view_.end_resize();
}

void InteractiveGrab::motion(double lx, double ly)
{
    const int dx = static_cast<int>(std::lround(lx - start_lx_));
    const int dy = static_cast<int>(std::lround(ly - start_ly_));
    if (!edges_) {
        view_.move_to(start_.x + dx, start_.y + dy);
        return;
    }
    int width = start_.width;
    int height = start_.height;
    if (edges_ & WLR_EDGE_LEFT)
        width -= dx;
    else if (edges_ & WLR_EDGE_RIGHT)
        width += dx;
    if (edges_ & WLR_EDGE_TOP)
        height -= dy;
    else if (edges_ & WLR_EDGE_BOTTOM)
        height += dy;
    // The client's min and max size bound what is asked; the view keeps the opposite edges in place.
    view_.request_size(width, height);
}

void InteractiveGrab::released()
{
    shell_.end_grab();  // destroys this grab: nothing after
}

}  // namespace kiln::compositor
