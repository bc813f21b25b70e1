// XdgShell behaviour: new toplevels and popups, the grabs clients ask for, and the outputs windows go on.
#include "compositor/shell/xdg_shell.hpp"

#include "compositor/input/seat.hpp"
#include "compositor/core.hpp"
#include "compositor/shell/desktop.hpp"
#include "compositor/shell/toplevels.hpp"
#include "compositor/shell/view.hpp"
#include "compositor/shell/xdg_popup.hpp"

#include <algorithm>

namespace kiln::compositor {

XdgShell::XdgShell(const Core& core, Desktop& desktop, Toplevels& toplevels, wl_display* display)
    : core_(core),
      desktop_(desktop),
      toplevels_(toplevels),
      wm_base_(std::make_unique<xdg::WmBase>(display)),
      normal_(core.layers.windows),
      fullscreen_(core.layers.fullscreen)
{
    new_surface_.connect(&wm_base_->events.new_surface, [this](void* data) {
        auto* surface = static_cast<xdg::Surface*>(data);
        if (surface->role() == xdg::Role::toplevel) {
            views_.push_back(std::make_unique<View>(*this, surface));
            toplevels_.add(*views_.back());
        } else if (surface->role() == xdg::Role::popup) {
            add_popup(*this, surface);
        }
    });
}

XdgShell::~XdgShell()
{
    for (const auto& view : views_)
        toplevels_.remove(*view);
    views_.clear();
}

wlr_scene_node* XdgShell::layer(Layer layer) const
{
    return layer == Layer::fullscreen ? &fullscreen_->node : &normal_->node;
}

void XdgShell::remove_view(View* view)
{
    toplevels_.remove(*view);
    views_.remove_if([view](const auto& v) { return v.get() == view; });
}

void XdgShell::request_grab(View& view, wlr_seat_client* client, uint32_t serial, uint32_t edges)
{
    // The edges are valid: xdg_toplevel.resize answers any other value with invalid_resize_edge.
    wlr_seat* seat = seat_->wlr();
    // Only the press that is still held (the one button down) and went to this client may start a grab; a stale or
    // forged serial, or a second grab, is a no-op.
    if (!view.mapped() || view.fullscreen() || view.maximized() || toplevels_.grabbing() || !client ||
        client->seat != seat)
        return;
    if (!wlr_seat_validate_pointer_grab_serial(seat, nullptr, serial) || seat->pointer_state.focused_client != client)
        return;
    toplevels_.start_grab(view, edges);
}

wlr_output* XdgShell::output_under_pointer() const
{
    wlr_cursor* cursor = seat_->cursor();
    wlr_output* output = wlr_output_layout_output_at(core_.layout, cursor->x, cursor->y);
    return output ? output : wlr_output_layout_get_center_output(core_.layout);
}

void XdgShell::usable_area_changed(wlr_output* output)
{
    for (const auto& view : views_) {
        if (view->output() != output)
            continue;
        view->update_bounds();  // configure_bounds follows the usable area
        if (view->mapped() && view->maximized() && !view->fullscreen())
            view->refit();
    }
}

placement::Box XdgShell::usable_area(wlr_output* output) const
{
    if (!output || !wlr_output_layout_get_box(core_.layout, output))
        return {};
    // Less the exclusive zones of panels (layer-shell).
    const wlr_box box = desktop_.usable_area(output);
    return {box.x, box.y, box.width, box.height};
}

std::vector<placement::Point> XdgShell::taken_spots(const View* except) const
{
    std::vector<placement::Point> spots;
    for (const auto& view : views_)
        if (view.get() != except && view->mapped() && !view->minimized())
            spots.push_back({view->x(), view->y()});
    return spots;
}

}  // namespace kiln::compositor
