// wp_fifo_manager_v1 and wp_fifo_v1: the requests of the next commit, checked and handed to FifoBarriers at commit.
#include "compositor/protocols/surface/fifo_v1.hpp"

#include "fifo-v1-protocol.h"

namespace kiln::compositor {
namespace {

// The fifo object of `resource`, or null (after its error) once its surface is gone.
FifoV1::Fifo* live_fifo(wl_resource* resource)
{
    FifoV1::Fifo* fifo = PerSurfaceObjects<FifoV1::Fifo>::from(resource);
    if (fifo->surface)
        return fifo;
    wl_resource_post_error(resource, WP_FIFO_V1_ERROR_SURFACE_DESTROYED, "the surface is gone");
    return nullptr;
}

// Barriers and held updates stay as they are when the object goes ("surface state changes previously made by this
// protocol are unaffected"): FifoBarriers clears and lets them go as usual.
const struct wp_fifo_v1_interface fifo_requests = {
    .set_barrier =
        [](wl_client*, wl_resource* resource) noexcept {
            if (FifoV1::Fifo* fifo = live_fifo(resource))
                fifo->set_pending = true;
        },
    .wait_barrier =
        [](wl_client*, wl_resource* resource) noexcept {
            if (FifoV1::Fifo* fifo = live_fifo(resource))
                fifo->wait_pending = true;
        },
    .destroy = destroy_resource,
};

const struct wp_fifo_manager_v1_interface manager_requests = {
    .destroy = destroy_resource,
    .get_fifo = PerSurfaceObjects<FifoV1::Fifo>::get,
};

}  // namespace

FifoV1::FifoV1(wl_display* display, CommitGate& gate)
    : fifos_({&wp_fifo_v1_interface, &fifo_requests, WP_FIFO_MANAGER_V1_ERROR_ALREADY_EXISTS}),
      global_(display, wp_fifo_manager_v1_interface, 1, &manager_requests, &fifos_),
      barriers_(gate, wl_display_get_event_loop(display)),
      source_(gate, [this](wlr_surface* surface) { before_commit(surface); })
{
}

void FifoV1::before_commit(wlr_surface* surface)
{
    Fifo* fifo = fifos_.find(surface);
    if (!fifo)
        return;
    barriers_.commit(surface, fifo->set_pending, fifo->wait_pending);
    fifo->set_pending = false;
    fifo->wait_pending = false;
}

}  // namespace kiln::compositor
