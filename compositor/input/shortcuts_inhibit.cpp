// Inhibitors activated and deactivated with keyboard focus.
#include "compositor/input/shortcuts_inhibit.hpp"

namespace kiln::compositor {

ShortcutsInhibit::ShortcutsInhibit(wl_display* display, wlr_seat* seat)
    : manager_(wlr_keyboard_shortcuts_inhibit_v1_create(display)), seat_(seat)  // freed with the display
{
    new_inhibitor_.connect(&manager_->events.new_inhibitor, [this](void*) {
        focus_changed(seat_->keyboard_state.focused_surface);
    });
    focus_change_.connect(&seat->keyboard_state.events.focus_change, [this](void* data) {
        focus_changed(static_cast<wlr_seat_keyboard_focus_change_event*>(data)->new_surface);
    });
}

void ShortcutsInhibit::focus_changed(wlr_surface* focused)
{
    wlr_keyboard_shortcuts_inhibitor_v1* inhibitor;
    wl_list_for_each(inhibitor, &manager_->inhibitors, link) {
        if (inhibitor->seat != seat_)
            continue;
        const bool focus = inhibitor->surface == focused;
        if (focus && !inhibitor->active)
            wlr_keyboard_shortcuts_inhibitor_v1_activate(inhibitor);
        else if (!focus && inhibitor->active)
            wlr_keyboard_shortcuts_inhibitor_v1_deactivate(inhibitor);
    }
}

bool ShortcutsInhibit::inhibited() const
{
    wlr_keyboard_shortcuts_inhibitor_v1* inhibitor;
    wl_list_for_each(inhibitor, &manager_->inhibitors, link)
        if (inhibitor->seat == seat_ && inhibitor->active && inhibitor->surface == seat_->keyboard_state.focused_surface)
            return true;
    return false;
}

}  // namespace kiln::compositor
