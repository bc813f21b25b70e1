// Xwayland's surfaces that had a buffer before they were paired with their X window, mapped once they are.
#include "compositor/shell/xwayland_late_map.hpp"

namespace kiln::compositor {

namespace {

constexpr int check_interval_ms = 10;
// A surface still unpaired after this many checks in a row (2 s) is not waiting for a window (Xwayland's cursor
// surfaces get another role; a window destroyed before pairing never gets one): watching it stops.
constexpr int give_up_after = 200;

}  // namespace

// One Xwayland surface: watched from its creation until it has a role, dropped with it.
struct XwaylandLateMap::Watched {
    wlr_surface* surface;
    bool buffer_before_pairing = false;
    wl::Listener commit;
    wl::Listener destroy;
};

XwaylandLateMap::XwaylandLateMap(wl_display* display, wlr_compositor* compositor, wlr_xwayland* xwayland)
    : xwayland_(xwayland)
{
    timer_ = wl_event_loop_add_timer(
        wl_display_get_event_loop(display),
        [](void* data) noexcept -> int {
            static_cast<XwaylandLateMap*>(data)->check();
            return 0;
        },
        this);
    new_surface_.connect(&compositor->events.new_surface, [this](void* data) {
        auto* surface = static_cast<wlr_surface*>(data);
        // Only Xwayland's own surfaces (its client changes when it restarts: read it each time).
        if (!xwayland_->server || !xwayland_->server->client ||
            wl_resource_get_client(surface->resource) != xwayland_->server->client)
            return;
        auto watched = std::make_unique<Watched>();
        watched->surface = surface;
        Watched* raw = watched.get();
        raw->commit.connect(&surface->events.commit, [this, raw](void*) {
            if (raw->surface->role) {
                // Paired (or a cursor) before it had a buffer: nothing to do, and its later commits cost nothing.
                raw->commit.disconnect();
                return;
            }
            if (!wlr_surface_has_buffer(raw->surface))
                return;
            raw->buffer_before_pairing = true;
            arm();
        });
        raw->destroy.connect(&surface->events.destroy, [this, raw](void*) {
            watched_.erase(raw);
        });
        watched_.push_back(std::move(watched));
    });
}

XwaylandLateMap::~XwaylandLateMap()
{
    if (timer_)
        wl_event_source_remove(timer_);
}

void XwaylandLateMap::arm()
{
    idle_checks_ = 0;
    wl_event_source_timer_update(timer_, check_interval_ms);
}

void XwaylandLateMap::check()
{
    bool waiting = false;
    for (auto it = watched_.begin(); it != watched_.end();) {
        Watched& w = **it;
        if (!w.surface->role) {
            waiting = waiting || w.buffer_before_pairing;
            ++it;
            continue;
        }
        // Paired (or given another role): this is the last look at it.
        if (w.buffer_before_pairing && wlr_surface_is_xwayland_surface(w.surface)) {
            wlr_xwayland_surface* xsurface = wlr_xwayland_surface_from_wlr_surface(w.surface);
            if (xsurface && xsurface->surface == w.surface && !xsurface->mapped && wlr_surface_has_buffer(w.surface)) {
                // What wlroots' commit handler does for a paired surface with a buffer.
                xsurface->mapped = true;
                wl_signal_emit(&xsurface->events.map, xsurface);
            }
        }
        it = watched_.erase(it);
    }
    if (waiting && ++idle_checks_ < give_up_after)
        wl_event_source_timer_update(timer_, check_interval_ms);
}

}  // namespace kiln::compositor
