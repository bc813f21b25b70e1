// Toplevels behaviour: focus order, Alt+Tab, which window a new one may take focus from, and move/resize grabs.
#include "compositor/shell/toplevels.hpp"

#include "compositor/input/seat_focus.hpp"
#include "compositor/core.hpp"
#include "compositor/shell/desktop.hpp"
#include "compositor/shell/interactive.hpp"
#include "compositor/shell/toplevel.hpp"

#include <algorithm>

namespace kiln::compositor {

Toplevels::Toplevels(const Core& core, Desktop& desktop, SeatFocus& seat)
    : core_(core), desktop_(desktop), seat_(seat)
{
    wl_signal_init(&events.add);
    wl_signal_init(&events.remove);
    layout_change_.connect(&core.layout->events.change, [this](void*) { rehome(); });
}

void Toplevels::rehome()
{
    wlr_output_layout* layout = core_.layout;
    wlr_output* home = wlr_output_layout_get_center_output(layout);
    if (!home)
        return;  // no output at all: windows wait where they are for one to come
    for (Toplevel* toplevel : all_) {
        if (!toplevel->mapped())
            continue;
        const wlr_box box = toplevel->geometry();
        // Any part on an output is enough to reach it with the pointer; only windows wholly off every output move.
        if (wlr_output_layout_intersects(layout, nullptr, &box))
            continue;
        const wlr_box area = desktop_.usable_area(home);
        toplevel->move_to(area.x + std::max(0, (area.width - box.width) / 2),
                          area.y + std::max(0, (area.height - box.height) / 2));
        if (toplevel->fullscreen())
            toplevel->set_fullscreen(true, home);
        else if (toplevel->maximized()) {
            toplevel->set_maximized(false);  // fitted again to the new output's usable area
            toplevel->set_maximized(true);
        }
    }
}

Toplevels::~Toplevels()
{
    end_grab();
}

void Toplevels::add(Toplevel& toplevel)
{
    all_.push_back(&toplevel);
    wl_signal_emit(&events.add, &toplevel);
}

void Toplevels::remove(Toplevel& toplevel)
{
    if (grab_ && &grab_->toplevel() == &toplevel)
        end_grab();
    wl_signal_emit(&events.remove, &toplevel);
    order_.remove(&toplevel);
    all_.remove(&toplevel);
}

void Toplevels::mapped(Toplevel& toplevel)
{
    // A fullscreen window on the output keeps focus and stays on top, unless the new one is its dialog, which
    // opens above it (as sway does).
    Toplevel* parent = toplevel.parent();
    for (Toplevel* other : all_) {
        if (other == &toplevel || !other->mapped() || !other->fullscreen() || other->off_workspace() ||
            other->output() != toplevel.output())
            continue;
        if (other == parent)
            break;
        // Next in line for focus once the fullscreen window goes.
        order_.remove(&toplevel);
        order_.insert(order_.empty() ? order_.end() : std::prev(order_.end()), &toplevel);
        return;
    }
    focus(&toplevel);
}

void Toplevels::hidden(Toplevel& toplevel)
{
    if (grab_ && &grab_->toplevel() == &toplevel)
        end_grab();
    order_.remove(&toplevel);
    wlr_seat* seat = seat_.wlr();
    if (!toplevel.surface() || seat->keyboard_state.focused_surface != toplevel.surface())
        return;
    for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
        if ((*it)->mapped() && !(*it)->minimized() && !(*it)->off_workspace() &&
            seat_.input_allowed((*it)->surface())) {
            focus(*it);
            return;
        }
    }
    wlr_seat_keyboard_notify_clear_focus(seat);
}

Toplevel* Toplevels::modal_dialog_of(const Toplevel& toplevel) const
{
    for (Toplevel* other : all_)
        if (other->modal() && other->mapped() && other->parent() == &toplevel)
            return other;
    return nullptr;
}

void Toplevels::set_modal(Toplevel& toplevel, bool modal)
{
    toplevel.modal_ = modal;
    // A dialog turning modal while its parent has focus takes it.
    Toplevel* parent = toplevel.parent();
    if (modal && toplevel.mapped() && parent && focused() == parent)
        focus(parent);
}

void Toplevels::focus(Toplevel* toplevel)
{
    // The parent comes up with its dialog, which gets the keys; dialogs of dialogs alike (bounded: a client could
    // make parents a loop).
    if (toplevel->off_workspace() && reveal_)
        reveal_(*toplevel);
    for (size_t hops = 0; hops < all_.size(); ++hops) {
        Toplevel* dialog = modal_dialog_of(*toplevel);
        if (!dialog)
            break;
        if (toplevel->minimized())
            toplevel->set_minimized(false);
        toplevel->raise();
        toplevel = dialog;
    }
    if (toplevel->minimized())
        toplevel->set_minimized(false);
    toplevel->raise();
    desktop_.raise_x_menus();
    seat_.scene_changed();
    order_.remove(toplevel);
    order_.push_back(toplevel);
    // Locked, or a panel holds the keyboard, or another client holds the input inhibitor: the window comes to the
    // front, next in line, unfocused.
    if (desktop_.focus_held_elsewhere() || !seat_.input_allowed(toplevel->surface()))
        return;
    wlr_seat* seat = seat_.wlr();
    wlr_surface* previous = seat->keyboard_state.focused_surface;
    if (previous == toplevel->surface())
        return;
    if (Toplevel* old = find(previous))
        old->set_activated(false);
    toplevel->set_activated(true);
    seat_.focus_keyboard(toplevel->surface());
}

Toplevel* Toplevels::focused() const
{
    Toplevel* toplevel = find(seat_.wlr()->keyboard_state.focused_surface);
    return toplevel && toplevel->mapped() ? toplevel : nullptr;
}

Toplevel* Toplevels::find(wlr_surface* surface) const
{
    if (!surface)
        return nullptr;
    for (Toplevel* toplevel : all_)
        if (toplevel->surface() == surface)
            return toplevel;
    return nullptr;
}

void Toplevels::focus_next()
{
    Toplevel* current = focused();
    auto start = all_.find(current);
    // From the one after the focused window round to the one before it; from the first when none has focus.
    auto it = start == all_.end() ? all_.begin() : std::next(start);
    for (size_t n = 0; n < all_.size(); ++n, ++it) {
        if (it == all_.end())
            it = all_.begin();
        // Alt+Tab stays on the workspaces shown.
        if ((*it)->mapped() && *it != current && !(*it)->off_workspace()) {
            focus(*it);
            return;
        }
    }
}

Toplevel* Toplevels::most_recent(const std::function<bool(const Toplevel&)>& pick) const
{
    for (auto it = order_.rbegin(); it != order_.rend(); ++it)
        if ((*it)->mapped() && pick(**it))
            return *it;
    return nullptr;
}

void Toplevels::clear_focus()
{
    if (Toplevel* old = focused())
        old->set_activated(false);
    wlr_seat_keyboard_notify_clear_focus(seat_.wlr());
}

wlr_output* Toplevels::output_under_pointer() const
{
    wlr_cursor* cursor = seat_.cursor();
    wlr_output* output = wlr_output_layout_output_at(core_.layout, cursor->x, cursor->y);
    return output ? output : wlr_output_layout_get_center_output(core_.layout);
}

void Toplevels::focus_latest()
{
    for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
        if ((*it)->mapped() && !(*it)->minimized() && !(*it)->off_workspace() &&
            seat_.input_allowed((*it)->surface())) {
            focus(*it);
            return;
        }
    }
}

void Toplevels::begin_move(Toplevel& toplevel)
{
    if (toplevel.mapped() && !toplevel.fullscreen() && !toplevel.maximized())
        start_grab(toplevel, 0);
}

void Toplevels::begin_resize(Toplevel& toplevel, uint32_t edges)
{
    if (toplevel.mapped() && !toplevel.fullscreen() && !toplevel.maximized() && edges)
        start_grab(toplevel, edges);
}

void Toplevels::start_grab(Toplevel& toplevel, uint32_t edges)
{
    end_grab();
    wlr_cursor* cursor = seat_.cursor();
    grab_ = std::make_unique<InteractiveGrab>(*this, toplevel, edges, cursor->x, cursor->y);
    seat_.start_grab(*grab_);
}

void Toplevels::end_grab()
{
    if (!grab_)
        return;
    seat_.cancel_grab(*grab_);  // a no-op when the seat has already let go (the button's release)
    grab_.reset();
}

}  // namespace kiln::compositor
