// WindowKeys behaviour: numbers to workspace names, wrapping previous/next, snapping halves and going back, and the
// output beside the window's.
#include "compositor/shell/window_keys.hpp"

#include "compositor/core.hpp"
#include "compositor/shell/desktop.hpp"
#include "compositor/shell/server_decoration.hpp"
#include "compositor/shell/toplevel.hpp"
#include "compositor/shell/toplevels.hpp"
#include "compositor/shell/workspaces.hpp"

#include <algorithm>

namespace kiln::compositor {
namespace {

bool same(const wlr_box& a, const wlr_box& b)
{
    return a.x == b.x && a.y == b.y && a.width == b.width && a.height == b.height;
}

}  // namespace

WindowKeys::WindowKeys(const Core& core, Desktop& desktop, Toplevels& toplevels, Workspaces& workspaces)
    : core_(core), desktop_(desktop), toplevels_(toplevels), workspaces_(workspaces)
{
    toplevel_remove_.connect(&toplevels.events.remove,
                             [this](void* data) { snapped_.erase(static_cast<const Toplevel*>(data)); });
}

void WindowKeys::run(BindingAction action, int number)
{
    Toplevel* focused = toplevels_.focused();
    switch (action) {
    case BindingAction::workspace:
        show_number(number);
        break;
    case BindingAction::move_to_workspace:
        move_to_number(number);
        break;
    case BindingAction::workspace_prev:
        step(-1);
        break;
    case BindingAction::workspace_next:
        step(1);
        break;
    case BindingAction::snap_left:
        if (focused)
            snap(*focused, Side::left);
        break;
    case BindingAction::snap_right:
        if (focused)
            snap(*focused, Side::right);
        break;
    case BindingAction::move_to_output_left:
        if (focused)
            move_to_output(*focused, WLR_DIRECTION_LEFT);
        break;
    case BindingAction::move_to_output_right:
        if (focused)
            move_to_output(*focused, WLR_DIRECTION_RIGHT);
        break;
    case BindingAction::move_to_output_up:
        if (focused)
            move_to_output(*focused, WLR_DIRECTION_UP);
        break;
    case BindingAction::move_to_output_down:
        if (focused)
            move_to_output(*focused, WLR_DIRECTION_DOWN);
        break;
    default:
        break;
    }
}

void WindowKeys::show_number(int number)
{
    const std::string name = workspaces_.name_of(number);
    if (name.empty())
        return;  // beyond [workspaces] count
    if (Workspace* workspace = workspaces_.create(workspaces_.current_output(), name))
        workspaces_.activate(*workspace);
}

void WindowKeys::move_to_number(int number)
{
    Toplevel* focused = toplevels_.focused();
    const std::string name = workspaces_.name_of(number);
    Workspace* from = focused ? workspaces_.of(*focused) : nullptr;
    if (!from || name.empty())
        return;
    if (Workspace* workspace = workspaces_.create(from->output, name))
        workspaces_.move(*focused, *workspace);
}

void WindowKeys::step(int direction)
{
    wlr_output* output = workspaces_.current_output();
    const auto list = workspaces_.on(output);
    const auto at = std::find(list.begin(), list.end(), workspaces_.active(output));
    if (list.size() < 2 || at == list.end())
        return;
    // Among the workspaces there are, round from the last to the first (as sway's workspace next/prev).
    const auto size = static_cast<long>(list.size());
    const long index = ((at - list.begin()) + direction + size) % size;
    workspaces_.activate(*list[static_cast<size_t>(index)]);
}

wlr_box WindowKeys::snap_box(const Toplevel& toplevel, wlr_output* output, Side side) const
{
    const wlr_box area = desktop_.usable_area(output);
    const int left_width = area.width / 2;
    wlr_box half = side == Side::left ? wlr_box{area.x, area.y, left_width, area.height}
                                      : wlr_box{area.x + left_width, area.y, area.width - left_width, area.height};
    // Two decorated windows side by side: each one's title bar and borders inside its own half.
    return toplevel.decorated() ? ServerDecoration::inside(half) : half;
}

void WindowKeys::place(Toplevel& toplevel, const wlr_box& box)
{
    toplevel.move_to(box.x, box.y);
    toplevel.request_size(box.width, box.height);
}

void WindowKeys::snap(Toplevel& toplevel, Side side)
{
    if (toplevel.fullscreen())
        return;
    wlr_output* output = toplevel.output();
    auto known = snapped_.find(&toplevel);
    // Still where the key put it: the same key again puts it back; the other side's key moves it over.
    if (known != snapped_.end() && same(known->second.box, toplevel.geometry())) {
        if (known->second.side == side) {
            const wlr_box before = known->second.before;
            snapped_.erase(known);
            place(toplevel, before);
            return;
        }
    } else if (known != snapped_.end()) {
        snapped_.erase(known);  // moved or resized since: a new snap from where it is now
        known = snapped_.end();
    }
    const wlr_box before = known != snapped_.end() ? known->second.before : toplevel.geometry();
    if (toplevel.maximized())
        toplevel.set_maximized(false);
    const wlr_box box = snap_box(toplevel, output, side);
    if (box.width <= 0 || box.height <= 0)
        return;
    snapped_[&toplevel] = Snap{side, box, before};
    place(toplevel, box);
}

void WindowKeys::move_to_output(Toplevel& toplevel, wlr_direction direction)
{
    Workspace* from = workspaces_.of(toplevel);
    if (!from)
        return;
    const wlr_box box = toplevel.geometry();
    wlr_output* target = wlr_output_layout_adjacent_output(core_.layout, direction, from->output,
                                                           box.x + box.width / 2.0, box.y + box.height / 2.0);
    Workspace* workspace = target ? workspaces_.active(target) : nullptr;
    if (!workspace)
        return;
    auto known = snapped_.find(&toplevel);
    const bool was_snapped = known != snapped_.end() && same(known->second.box, box);
    workspaces_.move(toplevel, *workspace);
    if (was_snapped) {
        // Snapped to the same side of the new output's usable area.
        known->second.box = snap_box(toplevel, target, known->second.side);
        place(toplevel, known->second.box);
    }
    toplevels_.focus(&toplevel);
}

}  // namespace kiln::compositor
