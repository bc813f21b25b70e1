// XdgShell behaviour: new toplevels and popups, the grabs clients ask for, and the outputs windows go on.
#include "compositor/shell/xdg_shell.hpp"

#include "compositor/input/seat_focus.hpp"
#include "compositor/core.hpp"
#include "compositor/shell/desktop.hpp"
#include "compositor/shell/toplevels.hpp"
#include "compositor/shell/view.hpp"
#include "compositor/shell/xdg/detach_listeners.hpp"
#include "compositor/shell/xdg_popup.hpp"

#include <algorithm>

namespace kiln::compositor {

// An xdg role destroyed without a commit (xdg_popup.destroy) unmaps its surface: that changes the scene under the
// pointer too, which the seat (watching commits) would not see.
class XdgShell::SceneWatch {
public:
    SceneWatch(XdgShell& shell, xdg::Surface* surface) : shell_(shell)
    {
        map_.connect(&surface->events.map, [this](void*) { shell_.seat_.scene_changed(); });
        unmap_.connect(&surface->events.unmap, [this](void*) { shell_.seat_.scene_changed(); });
        destroy_.connect(&surface->events.destroy, [this](void*) { shell_.scene_watches_.erase(this); });
    }

private:
    XdgShell& shell_;
    wl::Listener map_;
    wl::Listener unmap_;
    wl::Listener destroy_;
};

XdgShell::XdgShell(const Core& core, Desktop& desktop, Toplevels& toplevels, SeatFocus& seat, Decorations& decorations,
                   wl_display* display)
    : core_(core),
      desktop_(desktop),
      toplevels_(toplevels),
      seat_(seat),
      decorations_(decorations),
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
        scene_watches_.push_back(std::make_unique<SceneWatch>(*this, surface));
    });
    wl_signal_init(&events.windows_changed);
    layout_change_.connect(&core.layout->events.change, [this](void*) { visibility_changed(); });
}

XdgShell::~XdgShell()
{
    if (visibility_idle_)
        wl_event_source_remove(visibility_idle_);
    xdg::detach_listeners(&events.windows_changed);
    for (const auto& view : views_)
        toplevels_.remove(*view);
    views_.clear();
    scene_watches_.clear();
}

wlr_scene_node* XdgShell::layer(Layer layer) const
{
    return layer == Layer::fullscreen ? &fullscreen_->node : &normal_->node;
}

void XdgShell::remove_view(View* view)
{
    toplevels_.remove(*view);
    views_.erase(view);
    visibility_changed();
}

void XdgShell::request_grab(View& view, wlr_seat_client* client, uint32_t serial, uint32_t edges)
{
    // The edges are valid: xdg_toplevel.resize answers any other value with invalid_resize_edge.
    wlr_seat* seat = seat_.wlr();
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
    wlr_cursor* cursor = seat_.cursor();
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

void XdgShell::visibility_changed()
{
    if (visibility_idle_)
        return;
    visibility_idle_ = wl_event_loop_add_idle(
        wl_display_get_event_loop(core_.display),
        [](void* data) noexcept {
            auto* self = static_cast<XdgShell*>(data);
            self->visibility_idle_ = nullptr;
            self->update_suspended();
        },
        this);
}

void XdgShell::update_suspended()
{
    // What the outputs show, then front to back: each window's part of it not yet covered by opaque windows above.
    pixman_region32_t shown;
    pixman_region32_init(&shown);
    wlr_output_layout_output* entry = nullptr;
    wl_list_for_each(entry, &core_.layout->outputs, link)
    {
        if (const wlr_box* box = wlr_output_layout_get_box(core_.layout, entry->output))
            pixman_region32_union_rect(&shown, &shown, box->x, box->y, static_cast<unsigned>(box->width),
                                       static_cast<unsigned>(box->height));
    }
    pixman_region32_t covered;
    pixman_region32_init(&covered);
    // Front to back: layer-shell's overlay (and the popups of panels) over fullscreen windows, its top layer between
    // those and the other windows. A disabled tree (the session is locked) shows nothing; while locked every window
    // is hidden.
    const auto cover_with = [&covered](wlr_scene_tree* tree) {
        if (!tree || !tree->node.state.enabled)
            return;
        wlr_scene_node_for_each_surface(
            &tree->node,
            [](wlr_surface* surface, int x, int y, void* data) noexcept {
                pixman_region32_t opaque;
                pixman_region32_init(&opaque);
                pixman_region32_copy(&opaque, &surface->opaque_region);
                pixman_region32_translate(&opaque, x, y);
                auto* into = static_cast<pixman_region32_t*>(data);
                pixman_region32_union(into, into, &opaque);
                pixman_region32_fini(&opaque);
            },
            &covered);
    };
    cover_with(core_.layers.layer_popups);
    cover_with(core_.layers.overlay);
    for (wlr_scene_tree* layer : {fullscreen_, normal_}) {
        if (layer == normal_)
            cover_with(core_.layers.top);
        const bool layer_shown = layer->node.state.enabled;
        wlr_scene_node* child = nullptr;
        wl_list_for_each_reverse(child, &layer->node.state.children, state.link)
        {
            View* view = nullptr;
            for (const auto& v : views_)
                if (v->node() == child)
                    view = v.get();
            if (!view || !view->mapped())
                continue;
            const wlr_box box = view->geometry();
            pixman_region32_t visible;
            pixman_region32_init_rect(&visible, box.x, box.y, static_cast<unsigned>(std::max(box.width, 0)),
                                      static_cast<unsigned>(std::max(box.height, 0)));
            pixman_region32_intersect(&visible, &visible, &shown);
            pixman_region32_subtract(&visible, &visible, &covered);
            const bool hidden = view->minimized() || !child->state.enabled || !layer_shown;
            view->set_suspended(hidden || !pixman_region32_not_empty(&visible));
            pixman_region32_fini(&visible);
            if (hidden)
                continue;
            // Its opaque region (surface-local, the main surface's) hides what is below it.
            const wlr_box geometry = view->xdg()->geometry();
            pixman_region32_t opaque;
            pixman_region32_init(&opaque);
            pixman_region32_copy(&opaque, &view->surface()->opaque_region);
            pixman_region32_translate(&opaque, box.x - geometry.x, box.y - geometry.y);
            pixman_region32_union(&covered, &covered, &opaque);
            pixman_region32_fini(&opaque);
        }
    }
    pixman_region32_fini(&covered);
    pixman_region32_fini(&shown);
    wl_signal_emit(&events.windows_changed, this);
}

std::vector<placement::Box> XdgShell::taken_spots(const View* except) const
{
    std::vector<placement::Box> spots;
    for (const auto& view : views_)
        if (view.get() != except && view->mapped() && !view->minimized()) {
            const wlr_box box = view->geometry();
            spots.push_back({view->x(), view->y(), box.width, box.height});
        }
    return spots;
}

}  // namespace kiln::compositor
