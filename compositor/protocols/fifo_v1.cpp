// wp_fifo_manager_v1 and wp_fifo_v1: barriers set when an update is applied, cleared after the frame that latched it.
#include "compositor/protocols/fifo_v1.hpp"

#include "compositor/protocols/surface_attachment.hpp"

#include "fifo-v1-protocol.h"

#include <algorithm>
#include <deque>
#include <new>
#include <vector>

namespace kiln::compositor {

namespace {

constexpr int forward_progress_ms = 250;

}  // namespace

struct FifoV1::Fifo {
    FifoV1* owner = nullptr;
    wl_resource* resource = nullptr;
    wlr_surface* surface = nullptr;
    SurfaceAttachment attachment;
    bool set_pending = false;   // set_barrier since the last commit
    bool wait_pending = false;  // wait_barrier since the last commit
    std::vector<uint32_t> setting;  // commits (surface state seqs) that set a barrier once applied
    bool barrier = false;
    bool latched = false;  // a frame was drawn with the barrier up: it clears on the next idle turn
    std::deque<uint32_t> held;  // commits held by a barrier, oldest first
    wl_event_source* timeout = nullptr;
    wl::Listener commit;

    void forget_surface()
    {
        if (!surface)
            return;
        attachment.detach();
        commit.disconnect();
        if (timeout)
            wl_event_source_remove(timeout);
        timeout = nullptr;
        held.clear();  // the surface's cached states go with it
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

bool on_output(wlr_surface* surface, wlr_output* output)
{
    wlr_surface_output* entered = nullptr;
    wl_list_for_each(entered, &surface->current_outputs, link)
        if (entered->output == output)
            return true;
    return false;
}

}  // namespace

FifoV1::FifoV1(wl_display* display)
    : display_(display),
      global_(wl_global_create(display, &wp_fifo_manager_v1_interface, 1, this, &FifoV1::bind)),
      hook_(display, [this](wlr_surface* surface) { before_commit(surface); })
{
}

FifoV1::~FifoV1()
{
    if (clear_later_)
        wl_event_source_remove(clear_later_);
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
    // An update is applied (at once, or later from the cache): the barriers it carries go up.
    fifo->commit.connect(&surface->events.commit, [fifo](void*) {
        const uint32_t applied = fifo->surface->current.seq;
        const auto before = fifo->setting.size();
        std::erase_if(fifo->setting, [applied](uint32_t seq) { return seq <= applied; });
        if (fifo->setting.size() == before || fifo->barrier)
            return;
        fifo->barrier = true;
        fifo->timeout = wl_event_loop_add_timer(
            wl_display_get_event_loop(fifo->owner->display_),
            [](void* data) noexcept {
                auto* fifo = static_cast<Fifo*>(data);
                wl_event_source_remove(fifo->timeout);
                fifo->timeout = nullptr;
                if (fifo->owner)
                    fifo->owner->clear_barrier(*fifo);
                return 0;
            },
            fifo);
        if (fifo->timeout)
            wl_event_source_timer_update(fifo->timeout, forward_progress_ms);
    });
    self->fifos_.push_back(fifo);
    wl_resource_set_implementation(resource, &requests, fifo, [](wl_resource* gone) noexcept {
        Fifo* fifo = fifo_of(gone);
        // Updates it held are let go: without the object nothing would ever release them.
        if (fifo->surface) {
            std::deque<uint32_t> held;
            held.swap(fifo->held);
            wlr_surface* surface = fifo->surface;
            fifo->forget_surface();
            for (uint32_t seq : held)
                wlr_surface_unlock_cached(surface, seq);
        }
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
    const uint32_t seq = surface->pending.seq;
    // Held while a barrier is up, or may come up from an update before this one that is not applied yet.
    const bool earlier_sets = std::any_of(fifo->setting.begin(), fifo->setting.end(), [seq](uint32_t s) { return s < seq; });
    if (fifo->wait_pending && (fifo->barrier || !fifo->held.empty() || earlier_sets))
        fifo->held.push_back(wlr_surface_lock_pending(surface));
    if (fifo->set_pending)
        fifo->setting.push_back(seq);
    fifo->set_pending = false;
    fifo->wait_pending = false;
}

void FifoV1::frame_drawn(wlr_output* output)
{
    // Cleared on the next idle turn, outside the output's frame handler: releasing an update applies it, and its
    // handlers (roles, the scene) should not run inside that frame's.
    bool any = false;
    for (Fifo* fifo : fifos_) {
        if (fifo->barrier && fifo->surface &&
            (on_output(fifo->surface, output) || wl_list_empty(&fifo->surface->current_outputs))) {
            fifo->latched = true;
            any = true;
        }
    }
    if (!any || clear_later_)
        return;
    clear_later_ = wl_event_loop_add_idle(
        wl_display_get_event_loop(display_),
        [](void* data) noexcept {
            auto* self = static_cast<FifoV1*>(data);
            self->clear_later_ = nullptr;
            // Copied: clearing a barrier applies updates, whose handlers may create or destroy fifo objects.
            std::vector<Fifo*> due;
            for (Fifo* fifo : self->fifos_)
                if (fifo->latched)
                    due.push_back(fifo);
            for (Fifo* fifo : due)
                if (std::find(self->fifos_.begin(), self->fifos_.end(), fifo) != self->fifos_.end())
                    self->clear_barrier(*fifo);
        },
        this);
}

void FifoV1::clear_barrier(Fifo& fifo)
{
    fifo.barrier = false;
    fifo.latched = false;
    if (fifo.timeout) {
        wl_event_source_remove(fifo.timeout);
        fifo.timeout = nullptr;
    }
    // The held updates go in order until one of them sets a barrier again.
    while (fifo.surface && !fifo.barrier && !fifo.held.empty()) {
        const uint32_t seq = fifo.held.front();
        fifo.held.pop_front();
        wlr_surface_unlock_cached(fifo.surface, seq);
    }
}

}  // namespace kiln::compositor
