// wp_fifo_manager_v1 and wp_fifo_v1: the requests of the next commit, checked and handed to FifoBarriers at commit.
#include "compositor/protocols/fifo_v1.hpp"

#include "compositor/protocols/surface_attachment.hpp"

#include "fifo-v1-protocol.h"

#include <new>

namespace kiln::compositor {

struct FifoV1::Fifo {
    FifoV1* owner = nullptr;
    wl_resource* resource = nullptr;
    wlr_surface* surface = nullptr;
    SurfaceAttachment attachment;
    bool set_pending = false;   // set_barrier since the last commit
    bool wait_pending = false;  // wait_barrier since the last commit

    void forget_surface()
    {
        if (!surface)
            return;
        attachment.detach();
        surface = nullptr;
    }
};

namespace {

void destroy_request(wl_client*, wl_resource* resource) noexcept
{
    wl_resource_destroy(resource);
}

FifoV1::Fifo* fifo_of(wl_resource* resource)
{
    return static_cast<FifoV1::Fifo*>(wl_resource_get_user_data(resource));
}

}  // namespace

FifoV1::FifoV1(wl_display* display, CommitGate& gate)
    : global_(wl_global_create(display, &wp_fifo_manager_v1_interface, 1, this, &FifoV1::bind)),
      barriers_(gate, wl_display_get_event_loop(display)),
      source_(gate, [this](wlr_surface* surface) { before_commit(surface); })
{
}

FifoV1::~FifoV1()
{
    for (Fifo* fifo : fifos_) {
        fifo->forget_surface();
        fifo->owner = nullptr;
    }
    wl_global_destroy(global_);
}

void FifoV1::bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
{
    static const struct wp_fifo_manager_v1_interface requests = {
        .destroy = destroy_request,
        .get_fifo = &FifoV1::get_fifo,
    };
    wl_resource* resource = wl_resource_create(client, &wp_fifo_manager_v1_interface, static_cast<int>(version), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    wl_resource_set_implementation(resource, &requests, data, nullptr);
}

void FifoV1::get_fifo(wl_client* client, wl_resource* manager, uint32_t id, wl_resource* surface_resource) noexcept
{
    static const struct wp_fifo_v1_interface requests = {
        .set_barrier =
            [](wl_client*, wl_resource* resource) noexcept {
                Fifo* fifo = fifo_of(resource);
                if (!fifo->surface) {
                    wl_resource_post_error(resource, WP_FIFO_V1_ERROR_SURFACE_DESTROYED, "the surface is gone");
                    return;
                }
                fifo->set_pending = true;
            },
        .wait_barrier =
            [](wl_client*, wl_resource* resource) noexcept {
                Fifo* fifo = fifo_of(resource);
                if (!fifo->surface) {
                    wl_resource_post_error(resource, WP_FIFO_V1_ERROR_SURFACE_DESTROYED, "the surface is gone");
                    return;
                }
                fifo->wait_pending = true;
            },
        .destroy = destroy_request,
    };
    auto* self = static_cast<FifoV1*>(wl_resource_get_user_data(manager));
    wlr_surface* surface = wlr_surface_from_resource(surface_resource);
    if (SurfaceAttachment::find(surface, self)) {
        wl_resource_post_error(manager, WP_FIFO_MANAGER_V1_ERROR_ALREADY_EXISTS, "wl_surface@%u already has a wp_fifo_v1",
                               wl_resource_get_id(surface_resource));
        return;
    }
    wl_resource* resource = wl_resource_create(client, &wp_fifo_v1_interface, wl_resource_get_version(manager), id);
    auto* fifo = new (std::nothrow) Fifo;
    if (!resource || !fifo) {
        delete fifo;
        if (resource)
            wl_resource_destroy(resource);
        wl_client_post_no_memory(client);
        return;
    }
    fifo->owner = self;
    fifo->resource = resource;
    fifo->surface = surface;
    fifo->attachment.attach(surface, self, fifo,
                            [](void* gone) noexcept { static_cast<Fifo*>(gone)->forget_surface(); });
    self->fifos_.push_back(fifo);
    // Barriers and held updates stay as they are when the object goes ("surface state changes previously made by
    // this protocol are unaffected"): FifoBarriers clears and lets them go as usual.
    wl_resource_set_implementation(resource, &requests, fifo, [](wl_resource* gone) noexcept {
        Fifo* fifo = fifo_of(gone);
        fifo->forget_surface();
        if (fifo->owner)
            fifo->owner->fifos_.remove(fifo);
        delete fifo;
    });
}

void FifoV1::before_commit(wlr_surface* surface)
{
    auto* fifo = static_cast<Fifo*>(SurfaceAttachment::find(surface, this));
    if (!fifo)
        return;
    barriers_.commit(surface, fifo->set_pending, fifo->wait_pending);
    fifo->set_pending = false;
    fifo->wait_pending = false;
}

}  // namespace kiln::compositor
