// ShellDesktop: kiln's answers to Desktop (focus among windows, panels and the lock; the usable area; X11 menus),
// read from the rooms DesktopRooms owns (desktop_rooms.hpp), which owns this too.
#pragma once

#include "compositor/core.hpp"
#include "compositor/shell/desktop.hpp"

#include <functional>
#include <memory>

namespace kiln::compositor {

class LayerShell;
class SeatFocus;
class Toplevels;
class WindowKeys;
class XdgShell;
class Xwayland;

class ShellDesktop final : public Desktop {
public:
    // Server's own handles on the rooms, read at each call: a room not made yet, or already torn down, is absent
    // (no lock, no panels, no X11), as it was when these answers were Server's.
    struct Rooms {
        const std::unique_ptr<Toplevels>& toplevels;
        SeatFocus& seat;
        const std::unique_ptr<XdgShell>& shell;
        const std::unique_ptr<LayerShell>& layer_shell;
        // Whether a session locker (ext-session-lock-v1, a protocol room above shell/) holds the session; false
        // while the lock is not made.
        std::function<bool()> session_locked;
        const std::unique_ptr<Xwayland>& xwayland;
        const std::unique_ptr<WindowKeys>& window_keys;
    };

    ShellDesktop(const Core& core, Rooms rooms) : core_(core), rooms_(rooms) {}
    ShellDesktop(const ShellDesktop&) = delete;
    ShellDesktop& operator=(const ShellDesktop&) = delete;

    Toplevel* toplevel_at(double lx, double ly, wlr_surface** surface, double* sx, double* sy) override;
    void focus(Toplevel* toplevel) override;
    void focus_top_view() override;
    bool focus_held_elsewhere() const override;
    void restore_focus() override;
    Toplevel* focused_toplevel() const override;
    void focus_next() override;
    bool locked() const override;
    wlr_box usable_area(wlr_output* output) const override;
    void usable_area_changed(wlr_output* output) override;
    void raise_x_menus() override;
    void coverage_changed() override;
    void window_key(BindingAction action, int number) override;

private:
    const Core& core_;
    Rooms rooms_;
};

}  // namespace kiln::compositor
