// Interactive move and resize: the window follows the pointer's offset from where the grab began.
#include "compositor/shell/interactive.hpp"

#include "compositor/shell/toplevel.hpp"
#include "compositor/shell/toplevels.hpp"

#include <cmath>

namespace kiln::compositor {

InteractiveGrab::InteractiveGrab(Toplevels& owner, Toplevel& toplevel, uint32_t edges, double lx, double ly)
    : owner_(owner), toplevel_(toplevel), edges_(edges), start_lx_(lx), start_ly_(ly), start_(toplevel.geometry())
{
    if (edges_)
        toplevel_.begin_resize(edges_);
}

InteractiveGrab::~InteractiveGrab()
{
    toplevel_.end_resize();
}

void InteractiveGrab::motion(double lx, double ly)
{
    const int dx = static_cast<int>(std::lround(lx - start_lx_));
    const int dy = static_cast<int>(std::lround(ly - start_ly_));
    if (!edges_) {
        toplevel_.move_to(start_.x + dx, start_.y + dy);
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
    // The client's min and max size bound what is asked; the window keeps the opposite edges in place.
    toplevel_.request_size(width, height);
}

void InteractiveGrab::released()
{
    owner_.end_grab();  // destroys this grab: nothing after
}

}  // namespace kiln::compositor
