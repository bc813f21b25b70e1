// LayerShell: new layer surfaces, per-output arrangement (anchors, margins, exclusive zones) and keyboard focus.
#include "compositor/shell/layer_shell.hpp"

#include "compositor/input/seat_focus.hpp"
#include "compositor/core.hpp"
#include "compositor/shell/desktop.hpp"
#include "compositor/shell/layer_geometry.hpp"
#include "compositor/shell/layer_surface.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace kiln::compositor {

LayerShell::LayerShell(const Core& core, Desktop& desktop, SeatFocus& seat, const SceneLayers& layers)
    : core_(core), desktop_(desktop), seat_(seat), layers_(layers), shell_(wlr_layer_shell_v1_create(core.display))
{
    new_surface_.connect(&shell_->events.new_surface, [this](void* data) {
        auto* surface = static_cast<wlr_layer_surface_v1*>(data);
        if (!surface->output) {
            // The client leaves the output to kiln: the one under the pointer, else the first.
            wlr_cursor* cursor = seat_.cursor();
            surface->output = wlr_output_layout_output_at(core_.layout, cursor->x, cursor->y);
            if (!surface->output)
                surface->output = wlr_output_layout_get_center_output(core_.layout);
        }
        if (!surface->output || !wlr_output_layout_get(core_.layout, surface->output)) {
            wlr_layer_surface_v1_destroy(surface);  // no output to show it on: closed
            return;
        }
        surfaces_.push_back(std::make_unique<LayerSurface>(*this, surface));
    });
    // Outputs added, moved, resized, rotated or rescaled: everything is placed again.
    layout_change_.connect(&core.layout->events.change, [this](void*) { arrange_all(); });
    // A click gives the keyboard to a layer surface that takes it on demand.
    cursor_button_.connect(&seat.cursor()->events.button, [this](void* data) {
        auto* event = static_cast<wlr_event_pointer_button*>(data);
        wlr_surface* focused = seat_.wlr()->pointer_state.focused_surface;
        if (event->state != WLR_BUTTON_PRESSED || !focused || desktop_.locked() || keyboard_grab())
            return;
        wlr_surface* root = wlr_surface_get_root_surface(focused);
        if (!wlr_surface_is_layer_surface(root))
            return;
        wlr_layer_surface_v1* layer = wlr_layer_surface_v1_from_wlr_surface(root);
        if (layer && layer->mapped &&
            layer->current.keyboard_interactive != ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_NONE)
            seat_.focus_keyboard(root);
    });
}

LayerShell::~LayerShell()
{
    if (close_later_)
        wl_event_source_remove(close_later_);
    surfaces_.clear();
}

wlr_scene_tree* LayerShell::tree_for(uint32_t layer) const
{
    switch (layer) {
    case ZWLR_LAYER_SHELL_V1_LAYER_BACKGROUND: return layers_.background;
    case ZWLR_LAYER_SHELL_V1_LAYER_BOTTOM: return layers_.bottom;
    case ZWLR_LAYER_SHELL_V1_LAYER_TOP: return layers_.top;
    default: return layers_.overlay;
    }
}

wlr_box LayerShell::usable_area(wlr_output* output) const
{
    const wlr_box* box = wlr_output_layout_get_box(core_.layout, output);
    if (!box)
        return wlr_box{};
    auto it = usable_.find(output);
    return it != usable_.end() ? it->second : *box;
}

void LayerShell::arrange_all()
{
    if (wlr_output* gone = std::exchange(unplugged_, nullptr))
        rehome(gone);
    wlr_output_layout_output* entry = nullptr;
    wl_list_for_each(entry, &core_.layout->outputs, link)
        arrange(entry->output);
}

void LayerShell::arrange(wlr_output* output)
{
    const wlr_box* box = wlr_output_layout_get_box(core_.layout, output);
    if (!box) {
        usable_.erase(output);
        return;
    }
    const wlr_box full = *box;
    wlr_box usable = full;
    // Surfaces with exclusive zones first, top layer first, so the zones nearest the user are nearest the edge;
    // then the others, in what is left (or in the whole output, for zone -1).
    const std::array layers{ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY, ZWLR_LAYER_SHELL_V1_LAYER_TOP,
                            ZWLR_LAYER_SHELL_V1_LAYER_BOTTOM, ZWLR_LAYER_SHELL_V1_LAYER_BACKGROUND};
    for (bool exclusive : {true, false}) {
        for (uint32_t layer : layers) {
            for (const auto& surface : surfaces_) {
                const wlr_layer_surface_v1_state& s = surface->state();
                if (surface->output() != output || s.layer != layer || (s.exclusive_zone > 0) != exclusive ||
                    surface->closing())
                    continue;
                const wlr_box bounds = s.exclusive_zone == -1 ? full : usable;
                const auto& m = s.margin;
                const wlr_box place = place_layer_surface(bounds, s.anchor, s.desired_width, s.desired_height,
                                                          static_cast<int32_t>(m.top), static_cast<int32_t>(m.right),
                                                          static_cast<int32_t>(m.bottom), static_cast<int32_t>(m.left));
                if (place.width <= 0) {
                    // Its margins leave it no room: closed, once this arrangement is done.
                    schedule_close(surface.get());
                    continue;
                }
                surface->place(place.x, place.y, static_cast<uint32_t>(place.width),
                               static_cast<uint32_t>(place.height));
                if (surface->mapped())
                    take_exclusive_zone(usable, s.anchor, s.exclusive_zone, static_cast<int32_t>(m.top),
                                        static_cast<int32_t>(m.right), static_cast<int32_t>(m.bottom),
                                        static_cast<int32_t>(m.left));
            }
        }
    }
    const auto previous = usable_.find(output);
    const bool changed = previous == usable_.end() ? (usable.x != full.x || usable.y != full.y ||
                                                      usable.width != full.width || usable.height != full.height)
                                                   : (usable.x != previous->second.x || usable.y != previous->second.y ||
                                                      usable.width != previous->second.width ||
                                                      usable.height != previous->second.height);
    usable_[output] = usable;
    // A panel came, went or changed its zone: maximized windows there take the new area.
    if (changed)
        desktop_.usable_area_changed(output);
    // Panels may have come, gone or moved over windows.
    desktop_.coverage_changed();
}

void LayerShell::watch_output(wlr_output* output)
{
    // Listeners of outputs gone were disconnected, not freed, inside their own call; freed here.
    std::erase_if(output_destroy_, [](const auto& entry) { return !entry.second->connected(); });
    auto listener = std::make_unique<wl::Listener>();
    wl::Listener* raw = listener.get();
    listener->connect(&output->events.destroy, [this, output, raw](void*) {
        raw->disconnect();
        // The layout listens to this signal after kiln (watch_output comes first) and then reports its change.
        if (wlr_output_layout_get(core_.layout, output))
            unplugged_ = output;
        else
            rehome(output);  // off already (not in the layout): nothing more will come
    });
    output_destroy_[output] = std::move(listener);
}

void LayerShell::rehome(wlr_output* gone)
{
    usable_.erase(gone);
    std::vector<LayerSurface*> on_it;
    for (const auto& surface : surfaces_)
        if (surface->output() == gone)
            on_it.push_back(surface.get());
    if (on_it.empty())
        return;
    wlr_output* home = wlr_output_layout_get_center_output(core_.layout);
    for (LayerSurface* surface : on_it) {
        if (home && !surface->closing())
            surface->move_to(home);
        else
            surface->close();  // nowhere to show it (or leaving anyway); its destroy removes it from surfaces_
    }
    // Placed there with a configure of that output's size; its exclusive zone now narrows that output's windows.
    if (home)
        arrange(home);
}

void LayerShell::schedule_close(LayerSurface* surface)
{
    surface->set_closing();
    if (close_later_)
        return;
    // Closing destroys the surface, and arrange() may run inside that surface's own commit handler.
    close_later_ = wl_event_loop_add_idle(
        wl_display_get_event_loop(core_.display),
        [](void* data) noexcept {
            auto* self = static_cast<LayerShell*>(data);
            self->close_later_ = nullptr;
            std::vector<LayerSurface*> closing;
            for (const auto& surface : self->surfaces_)
                if (surface->closing())
                    closing.push_back(surface.get());
            for (LayerSurface* surface : closing)
                surface->close();
        },
        this);
}

wlr_surface* LayerShell::keyboard_grab() const
{
    // The topmost mapped surface asking for the keyboard alone, overlay before top.
    for (uint32_t layer : {ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY, ZWLR_LAYER_SHELL_V1_LAYER_TOP}) {
        for (auto it = surfaces_.rbegin(); it != surfaces_.rend(); ++it) {
            const LayerSurface& surface = **it;
            if (surface.mapped() && surface.state().layer == layer &&
                surface.state().keyboard_interactive == ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_EXCLUSIVE)
                return surface.surface();
        }
    }
    return nullptr;
}

void LayerShell::mapped(LayerSurface& surface)
{
    arrange(surface.output());  // its exclusive zone counts from now on
    if (desktop_.locked())
        return;
    const auto& s = surface.state();
    // Like sway: a top or overlay surface that takes the keyboard at all gets it when it appears.
    if (s.keyboard_interactive != ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_NONE &&
        s.layer >= ZWLR_LAYER_SHELL_V1_LAYER_TOP && !keyboard_grab())
        seat_.focus_keyboard(surface.surface());
    update_keyboard();
}

void LayerShell::coverage_changed()
{
    desktop_.coverage_changed();
}

void LayerShell::unmapped(LayerSurface& surface)
{
    if (surface.output())
        arrange(surface.output());
    update_keyboard(surface.surface());
}

void LayerShell::remove(LayerSurface* surface)
{
    wlr_output* output = surface->output();
    wlr_surface* gone = surface->surface();
    surfaces_.erase(surface);
    if (output)
        arrange(output);
    update_keyboard(gone);
}

void LayerShell::update_keyboard(wlr_surface* leaving)
{
    if (desktop_.locked())
        return;
    wlr_seat* seat = seat_.wlr();
    wlr_surface* focused = seat->keyboard_state.focused_surface;
    if (wlr_surface* grab = keyboard_grab()) {
        if (focused != grab)
            seat_.focus_keyboard(grab);
        return;
    }
    // The keyboard was on a layer surface that no longer holds it (unmapped, gone, set to no keyboard
    // interactivity, or no longer exclusive after another grab ended): back to the windows.
    wlr_layer_surface_v1* layer = focused && wlr_surface_is_layer_surface(focused)
                                      ? wlr_layer_surface_v1_from_wlr_surface(focused)
                                      : nullptr;
    if (!focused || (leaving && focused == leaving) || (wlr_surface_is_layer_surface(focused) && !layer) ||
        (layer && layer->current.keyboard_interactive == ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_NONE))
        desktop_.focus_top_view();
}

}  // namespace kiln::compositor
