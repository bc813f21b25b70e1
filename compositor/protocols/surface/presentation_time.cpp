// wp_presentation and wp_presentation_feedback: the global, its clock, and one feedback object per request.
#include "compositor/protocols/surface/presentation_time.hpp"

#include "presentation-time-protocol.h"

#include <new>

namespace kiln::compositor {
namespace {

// A wp_presentation_feedback resource: presented or discarded once, then destroyed (the protocol's "destructor"
// events); a client gone first leaves nothing to tell.
class ResourceFeedback final : public PresentationFeedback {
public:
    explicit ResourceFeedback(wl_resource* resource) : resource_(resource) {}
    ~ResourceFeedback() override
    {
        if (!resource_)
            return;
        wp_presentation_feedback_send_discarded(resource_);
        release();
    }
    ResourceFeedback(const ResourceFeedback&) = delete;
    ResourceFeedback& operator=(const ResourceFeedback&) = delete;

    void presented(const wlr_presentation_event& event) override
    {
        if (!resource_)
            return;
        wl_client* client = wl_resource_get_client(resource_);
        wl_resource* output = nullptr;
        wl_resource_for_each(output, &event.output->resources)
            if (wl_resource_get_client(output) == client)
                wp_presentation_feedback_send_sync_output(resource_, output);
        wp_presentation_feedback_send_presented(
            resource_, static_cast<uint32_t>(event.tv_sec >> 32), static_cast<uint32_t>(event.tv_sec & 0xffffffff),
            event.tv_nsec, event.refresh, static_cast<uint32_t>(event.seq >> 32),
            static_cast<uint32_t>(event.seq & 0xffffffff), event.flags);
        release();
    }

    static void resource_gone(wl_resource* resource) noexcept
    {
        if (auto* self = static_cast<ResourceFeedback*>(wl_resource_get_user_data(resource)))
            self->resource_ = nullptr;
    }

private:
    void release()
    {
        wl_resource_set_user_data(resource_, nullptr);
        wl_resource_destroy(resource_);
        resource_ = nullptr;
    }

    wl_resource* resource_;
};

const struct wp_presentation_interface requests = {
    .destroy = destroy_resource,
    .feedback = &PresentationTime::feedback_request,
};

}  // namespace

PresentationTime::PresentationTime(wl_display* display, clockid_t clock, CommitGate& gate)
    : clock_(clock),
      feedback_(gate),
      global_(display, wp_presentation_interface, 1, &requests, this, [](wl_resource* resource, void* data) noexcept {
          wp_presentation_send_clock_id(resource, static_cast<uint32_t>(static_cast<PresentationTime*>(data)->clock_));
      })
{
}

void PresentationTime::feedback_request(wl_client* client, wl_resource* resource, wl_resource* surface_resource,
                                        uint32_t id) noexcept
{
    auto* self = static_cast<PresentationTime*>(wl_resource_get_user_data(resource));
    wlr_surface* surface = wlr_surface_from_resource(surface_resource);
    wl_resource* feedback =
        wl_resource_create(client, &wp_presentation_feedback_interface, wl_resource_get_version(resource), id);
    auto* object = feedback ? new (std::nothrow) ResourceFeedback(feedback) : nullptr;
    if (!object) {
        if (feedback)
            wl_resource_destroy(feedback);
        wl_client_post_no_memory(client);
        return;
    }
    wl_resource_set_implementation(feedback, nullptr, object, &ResourceFeedback::resource_gone);
    self->feedback_.requested(surface, std::unique_ptr<PresentationFeedback>(object));
}

}  // namespace kiln::compositor
