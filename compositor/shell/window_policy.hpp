// WindowPolicy: what a pointer button pressed on the desktop does to windows: on kiln's decoration, what that part
// of it does; on a window, click to focus (raised, shown if minimized), and Super + drag to move or resize it.
#pragma once

#include "compositor/input/pointer_presses.hpp"

namespace kiln::compositor {

class Desktop;
class Toplevels;

class WindowPolicy final : public PointerPresses {
public:
    WindowPolicy(Desktop& desktop, Toplevels& toplevels) : desktop_(desktop), toplevels_(toplevels) {}
    WindowPolicy(const WindowPolicy&) = delete;
    WindowPolicy& operator=(const WindowPolicy&) = delete;

    bool pressed(const ButtonPress& press) override;

private:
    Desktop& desktop_;
    Toplevels& toplevels_;
};

}  // namespace kiln::compositor
