// PointerGrab: what takes the pointer's motion and buttons from clients while it lasts (an interactive move or
// resize); the seat hands them to it first.
#pragma once

namespace kiln::compositor {

class PointerGrab {
public:
    virtual ~PointerGrab() = default;
    // The cursor moved to a layout point.
    virtual void motion(double lx, double ly) = 0;
    // A button went up: the grab is over. The seat has already let go of it; the owner may destroy it here.
    virtual void released() = 0;
};

}  // namespace kiln::compositor
