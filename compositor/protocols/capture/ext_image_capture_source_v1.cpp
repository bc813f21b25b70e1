// ext_image_capture_source_v1 and its two managers: a source per create_source, naming an output or a window.
#include "compositor/protocols/capture/ext_image_capture_source_v1.hpp"

#include "compositor/protocol_kit/resource_object.hpp"
#include "compositor/protocols/desktop/ext_foreign_toplevel_list_v1.hpp"
#include "compositor/shell/toplevel.hpp"
#include "compositor/shell/toplevels.hpp"

#include "ext-foreign-toplevel-list-v1-protocol.h"
#include "ext-image-capture-source-v1-protocol.h"

#include <algorithm>

namespace kiln::compositor {

// One ext_image_capture_source_v1: its target, forgotten when the output or window goes.
class ExtImageCaptureSourceV1::Source {
public:
    Source(ExtImageCaptureSourceV1& owner, CaptureTarget target) : owner_(&owner), target_(target)
    {
        owner.sources_.push_back(this);
        if (target_.output)
            output_destroyed_.connect(&target_.output->events.destroy, [this](void*) { forget(); });
        if (target_.toplevel)
            toplevel_unmapped_.connect(&target_.toplevel->events.unmap, [this](void*) { forget(); });
    }
    ~Source()
    {
        if (owner_)
            std::erase(owner_->sources_, this);
    }
    Source(const Source&) = delete;
    Source& operator=(const Source&) = delete;

    const CaptureTarget& target() const { return target_; }
    void forget()
    {
        target_ = {};
        output_destroyed_.disconnect();
        toplevel_unmapped_.disconnect();
    }
    void orphan() { owner_ = nullptr; }

private:
    ExtImageCaptureSourceV1* owner_;
    CaptureTarget target_;
    wl::Listener output_destroyed_;
    wl::Listener toplevel_unmapped_;
};

namespace {

const struct ext_image_capture_source_v1_interface source_requests = {
    .destroy = [](wl_client*, wl_resource* resource) noexcept { wl_resource_destroy(resource); },
};

}  // namespace

ExtImageCaptureSourceV1::ExtImageCaptureSourceV1(wl_display* display, Toplevels& toplevels)
    : output_global_(
          wl_global_create(display, &ext_output_image_capture_source_manager_v1_interface, 1, this, bind_output)),
      toplevel_global_(wl_global_create(display, &ext_foreign_toplevel_image_capture_source_manager_v1_interface, 1,
                                        this, bind_toplevel))
{
    toplevel_removed_.connect(&toplevels.events.remove, [this](void* data) {
        auto* toplevel = static_cast<Toplevel*>(data);
        for (Source* source : sources_)
            if (source->target().toplevel == toplevel)
                source->forget();
    });
}

ExtImageCaptureSourceV1::~ExtImageCaptureSourceV1()
{
    for (Source* source : sources_) {
        source->forget();
        source->orphan();
    }
    if (output_global_)
        wl_global_destroy(output_global_);
    if (toplevel_global_)
        wl_global_destroy(toplevel_global_);
}

CaptureTarget ExtImageCaptureSourceV1::target(wl_resource* source)
{
    if (!source || !wl_resource_instance_of(source, &ext_image_capture_source_v1_interface, &source_requests))
        return {};
    auto* self = static_cast<Source*>(wl_resource_get_user_data(source));
    return self ? self->target() : CaptureTarget{};
}

void ExtImageCaptureSourceV1::create_source(wl_resource* manager, uint32_t id, CaptureTarget target)
{
    // A source of an output or window that is gone already is valid, and names nothing: a session made from it
    // stops at once.
    create_resource_object<Source>(wl_resource_get_client(manager), &ext_image_capture_source_v1_interface,
                                   wl_resource_get_version(manager), id, &source_requests, *this, target);
}

void ExtImageCaptureSourceV1::bind_output(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
{
    wl_resource* manager = wl_resource_create(client, &ext_output_image_capture_source_manager_v1_interface,
                                              static_cast<int>(version), id);
    if (!manager) {
        wl_client_post_no_memory(client);
        return;
    }
    static const struct ext_output_image_capture_source_manager_v1_interface requests = {
        .create_source = [](wl_client*, wl_resource* manager, uint32_t id, wl_resource* output) noexcept {
            auto* self = static_cast<ExtImageCaptureSourceV1*>(wl_resource_get_user_data(manager));
            // wlr_output_from_resource is null for the wl_output of an output that is gone (an inert resource).
            self->create_source(manager, id, {wlr_output_from_resource(output), nullptr});
        },
        .destroy = [](wl_client*, wl_resource* manager) noexcept { wl_resource_destroy(manager); },
    };
    wl_resource_set_implementation(manager, &requests, data, nullptr);
}

void ExtImageCaptureSourceV1::bind_toplevel(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
{
    wl_resource* manager = wl_resource_create(client, &ext_foreign_toplevel_image_capture_source_manager_v1_interface,
                                              static_cast<int>(version), id);
    if (!manager) {
        wl_client_post_no_memory(client);
        return;
    }
    static const struct ext_foreign_toplevel_image_capture_source_manager_v1_interface requests = {
        .create_source = [](wl_client*, wl_resource* manager, uint32_t id, wl_resource* handle) noexcept {
            auto* self = static_cast<ExtImageCaptureSourceV1*>(wl_resource_get_user_data(manager));
            self->create_source(manager, id, {nullptr, ExtForeignToplevelListV1::toplevel_of(handle)});
        },
        .destroy = [](wl_client*, wl_resource* manager) noexcept { wl_resource_destroy(manager); },
    };
    wl_resource_set_implementation(manager, &requests, data, nullptr);
}

}  // namespace kiln::compositor
