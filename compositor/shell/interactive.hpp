// InteractiveGrab: a window moved or resized by the pointer, from the press that began it to the release.
#pragma once

#include "compositor/input/pointer_grab.hpp"
#include "compositor/wlr.hpp"

namespace kiln::compositor {

class Toplevel;
class Toplevels;

class InteractiveGrab final : public PointerGrab {
public:
    // `edges` (wlr_edges) are the ones a resize drags; 0 is a move. The cursor is at (`lx`, `ly`).
    InteractiveGrab(Toplevels& owner, Toplevel& toplevel, uint32_t edges, double lx, double ly);
    ~InteractiveGrab() override;
    InteractiveGrab(const InteractiveGrab&) = delete;
    InteractiveGrab& operator=(const InteractiveGrab&) = delete;

    Toplevel& toplevel() const { return toplevel_; }
    void motion(double lx, double ly) override;
    void released() override;

private:
    Toplevels& owner_;
    Toplevel& toplevel_;
    uint32_t edges_;
    double start_lx_;
    double start_ly_;
    wlr_box start_;
};

}  // namespace kiln::compositor
