// ShortcutsInhibit: keyboard-shortcuts-inhibit, for remote desktops, VMs and games that want kiln's bindings
// (Super + drag) for themselves while they have keyboard focus. kiln honours every request.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

namespace kiln::compositor {

class ShortcutsInhibit {
public:
    ShortcutsInhibit(wl_display* display, wlr_seat* seat);
    ShortcutsInhibit(const ShortcutsInhibit&) = delete;
    ShortcutsInhibit& operator=(const ShortcutsInhibit&) = delete;

    // Whether the surface with keyboard focus has an active inhibitor: kiln's bindings pass to it.
    bool inhibited() const;
    // Hidden from sandboxes: kiln's bindings are the user's way out of a window.
    const wl_global* global() const { return manager_->global; }

private:
    // An inhibitor is active exactly while its surface has keyboard focus.
    void focus_changed(wlr_surface* focused);

    wlr_keyboard_shortcuts_inhibit_manager_v1* manager_;
    wlr_seat* seat_;
    wl::Listener new_inhibitor_;
    wl::Listener focus_change_;
};

}  // namespace kiln::compositor
