// InteractiveGrab: a window moved or resized by the pointer, from the press that began it to the release.
#pragma once

#include "compositor/input/pointer_grab.hpp"
#include "compositor/wlr.hpp"

namespace kiln::compositor {

class View;
class XdgShell;

class InteractiveGrab final : public PointerGrab {
public:
    // `edges` (wlr_edges) are the ones a resize drags; 0 is a move. The cursor is at (`lx`, `ly`).
    InteractiveGrab(XdgShell& shell, View& view, uint32_t edges, double lx, double ly);
    ~InteractiveGrab() override;
    InteractiveGrab(const InteractiveGrab&) = delete;
    InteractiveGrab& operator=(const InteractiveGrab&) = delete;

    View& view() const { return view_; }
    void motion(double lx, double ly) override;
    void released() override;

private:
    XdgShell& shell_;
    View& view_;
    uint32_t edges_;
    double start_lx_;
    double start_ly_;
    wlr_box start_;
};

}  // namespace kiln::compositor
