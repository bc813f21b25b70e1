// PointerFocus behaviour: what counts as a change of the scene, the coalescing idle callback, and the enter /
// motion / leave a change sends.
#include "compositor/input/pointer_focus.hpp"

#include "compositor/input/scene_hit.hpp"

#include <ctime>

namespace kiln::compositor {

// Every commit may change what is under the pointer: a new size, input region, subsurface position, a first
// buffer (a popup opening) or none (closing). Scheduling is cheap, and the update sends only what changed.
class PointerFocus::SurfaceWatch {
public:
    SurfaceWatch(PointerFocus& focus, wlr_surface* surface) : focus_(focus)
    {
        commit_.connect(&surface->events.commit, [this](void*) { focus_.scene_changed(); });
        destroy_.connect(&surface->events.destroy, [this](void*) {
            PointerFocus& focus = focus_;
            focus.scene_changed();
            focus.surfaces_.erase(this);
        });
    }

private:
    PointerFocus& focus_;
    wl::Listener commit_;
    wl::Listener destroy_;
};

PointerFocus::PointerFocus(wl_event_loop* loop, wlr_compositor* compositor, std::function<void(uint32_t)> update)
    : loop_(loop), update_(std::move(update))
{
    new_surface_.connect(&compositor->events.new_surface, [this](void* data) {
        surfaces_.push_back(std::make_unique<SurfaceWatch>(*this, static_cast<wlr_surface*>(data)));
    });
}

PointerFocus::~PointerFocus()
{
    new_surface_.disconnect();
    surfaces_.clear();
    if (idle_)
        wl_event_source_remove(idle_);
}

void PointerFocus::scene_changed()
{
    if (idle_)
        return;
    idle_ = wl_event_loop_add_idle(
        loop_,
        [](void* data) noexcept {
            auto* self = static_cast<PointerFocus*>(data);
            self->idle_ = nullptr;  // libwayland frees an idle source once it has run
            timespec now{};
            clock_gettime(CLOCK_MONOTONIC, &now);
            self->update_(static_cast<uint32_t>(now.tv_sec * 1000 + now.tv_nsec / 1000000));
        },
        this);
}

void PointerFocus::focus_at(wlr_seat* seat, wlr_scene* scene, double lx, double ly, uint32_t time_msec, bool frame,
                            wl_client* only, wlr_scene_node* passed)
{
    // Hidden from the hit test alone: its state flag, not wlr_scene_node_set_enabled, which would damage the outputs
    // twice on every move.
    const bool look_through = passed && passed->state.enabled;
    if (look_through)
        passed->state.enabled = false;
    const SceneHit hit = scene_hit(scene, lx, ly);
    if (look_through)
        passed->state.enabled = true;
    if (!hit.surface || (only && wl_resource_get_client(hit.surface->resource) != only)) {
        wlr_seat_pointer_clear_focus(seat);  // wl_pointer.leave (and frame) if a surface had it
        return;
    }
    // A pointer drag's grab takes enter and motion to the drag's own focus (wl_data_device.enter and motion) and
    // leaves the seat's pointer focus and position empty: over the same surface, each move is a motion.
    const wlr_drag* drag = seat->drag;
    const bool dragging = drag && seat->pointer_state.grab == &drag->pointer_grab;
    if ((dragging ? drag->focus : seat->pointer_state.focused_surface) != hit.surface) {
        wlr_seat_pointer_notify_enter(seat, hit.surface, hit.sx, hit.sy);  // with its own frame
        return;
    }
    // The same surface: a motion if the point moved within it, as the client sees it (in wl_fixed_t).
    if (!dragging && wl_fixed_from_double(seat->pointer_state.sx) == wl_fixed_from_double(hit.sx) &&
        wl_fixed_from_double(seat->pointer_state.sy) == wl_fixed_from_double(hit.sy))
        return;
    wlr_seat_pointer_notify_motion(seat, time_msec, hit.sx, hit.sy);
    if (frame)
        wlr_seat_pointer_notify_frame(seat);
}

}  // namespace kiln::compositor
