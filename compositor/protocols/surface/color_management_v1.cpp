// ColorManagerV1: the manager's bind (its supported_* events) and requests, the output objects and their
// descriptions' records, and surface feedback kept up to date with the outputs its surface is on.
#include "compositor/protocols/surface/color_management_v1.hpp"

#include "color-management-v1-protocol.h"
#include "compositor/protocols/surface/color_management_names.hpp"
#include "compositor/protocols/surface/icc_creator_v1.hpp"
#include "compositor/protocols/surface/parametric_creator_v1.hpp"

#include <new>

namespace kiln::compositor {

// The features kiln implements (set_tf_power, extended_target_volume and windows_scrgb are not).
constexpr std::array<uint32_t, 5> supported_features{
    WP_COLOR_MANAGER_V1_FEATURE_ICC_V2_V4,
    WP_COLOR_MANAGER_V1_FEATURE_PARAMETRIC,
    WP_COLOR_MANAGER_V1_FEATURE_SET_PRIMARIES,
    WP_COLOR_MANAGER_V1_FEATURE_SET_LUMINANCES,
    WP_COLOR_MANAGER_V1_FEATURE_SET_MASTERING_DISPLAY_PRIMARIES,
};

struct ColorManagerV1::Feedback {
    ColorManagerV1* owner = nullptr;  // null once the manager is gone
    wl_resource* resource = nullptr;
    wlr_surface* surface = nullptr;  // null once inert
    std::shared_ptr<const DescriptionRecord> preferred;  // what the client was last told is preferred
    std::shared_ptr<DescriptionIdentities> identities;   // for get_preferred_parametric's copies
    wl::Listener commit;
    wl::Listener surface_destroy;

    void leave()
    {
        commit.disconnect();
        surface_destroy.disconnect();
        surface = nullptr;
    }
};

struct ColorManagerV1::OutputObject {
    ColorManagerV1* owner = nullptr;
    wl_resource* resource = nullptr;
    wlr_output* output = nullptr;  // null once the output is gone (inert)
    std::shared_ptr<const DescriptionRecord> current;  // the output's description as the client last knew it
    wl::Listener output_destroy;
};

namespace {

// A description the client may get_information of, as get_preferred_parametric promises: an ICC record's
// parametric fields (its primaries from the profile's matrix or table) without the profile.
std::shared_ptr<const DescriptionRecord> parametric(std::shared_ptr<const DescriptionRecord> record,
                                                    DescriptionIdentities& identities)
{
    if (record->icc.empty())
        return record;
    auto description = std::make_shared<renderer::ImageDescription>(*record->description);
    description->icc = nullptr;
    auto copy = std::make_shared<DescriptionRecord>();
    copy->identity = identities.take();
    copy->description = std::move(description);
    return copy;
}

std::optional<uint32_t> primaries_number(const renderer::Primaries& primaries)
{
    for (const auto& [number, name] : color_management::primaries)
        if (renderer::named_primaries(name) == primaries)
            return number;
    return std::nullopt;
}

// wp_color_management_output_v1.
void output_get_image_description(wl_client* client, wl_resource* resource, uint32_t id) noexcept
{
    auto* object = static_cast<ColorManagerV1::OutputObject*>(wl_resource_get_user_data(resource));
    const int version = wl_resource_get_version(resource);
    if (!object->output || !object->owner) {
        create_failed_description(client, version, id, WP_IMAGE_DESCRIPTION_V1_CAUSE_NO_OUTPUT,
                                  "the output is gone");
        return;
    }
    create_ready_description(client, version, id, object->current, true);
}

const struct wp_color_management_output_v1_interface output_requests = {
    .destroy = destroy_resource,
    .get_image_description = output_get_image_description,
};

// wp_color_management_surface_feedback_v1.
void feedback_get(wl_client* client, wl_resource* resource, uint32_t id, bool parametric_only)
{
    auto* feedback = static_cast<ColorManagerV1::Feedback*>(wl_resource_get_user_data(resource));
    if (!feedback->surface) {
        wl_resource_post_error(resource, WP_COLOR_MANAGEMENT_SURFACE_FEEDBACK_V1_ERROR_INERT,
                               "the wl_surface is gone");
        return;
    }
    std::shared_ptr<const DescriptionRecord> record = feedback->preferred;
    if (parametric_only)
        record = parametric(record, *feedback->identities);
    create_ready_description(client, wl_resource_get_version(resource), id, std::move(record), true);
}

void feedback_get_preferred(wl_client* client, wl_resource* resource, uint32_t id) noexcept
{
    feedback_get(client, resource, id, false);
}

void feedback_get_preferred_parametric(wl_client* client, wl_resource* resource, uint32_t id) noexcept
{
    feedback_get(client, resource, id, true);
}

const struct wp_color_management_surface_feedback_v1_interface feedback_requests = {
    .destroy = destroy_resource,
    .get_preferred = feedback_get_preferred,
    .get_preferred_parametric = feedback_get_preferred_parametric,
};

}  // namespace

ColorManagerV1::ColorManagerV1(wl_display* display, wlr_output_layout* layout,
                               std::function<void(wlr_surface*)> changed)
    : layout_(layout), surfaces_(std::move(changed)),
      global_(display, wp_color_manager_v1_interface, 1, requests(), this, &ColorManagerV1::bound)
{
    auto srgb = std::make_shared<renderer::ImageDescription>();  // sRGB, 0.2 / 80 / 80 cd/m²
    auto record = std::make_shared<DescriptionRecord>();
    record->identity = identities_->take();
    record->description = std::move(srgb);
    record->primaries_named = primaries_number(record->description->primaries);
    default_record_ = std::move(record);

    // The scene moves a surface between outputs and tells no one; each output's frame follows any move.
    layout_change_.connect(&layout->events.change, [this](void*) {
        output_frames_.clear();
        wlr_output_layout_output* placed = nullptr;
        wl_list_for_each(placed, &layout_->outputs, link)
            output_frames_.emplace_back(&placed->output->events.frame, [this](void*) {
                for (Feedback* feedback : feedbacks_)
                    update(*feedback);
            });
        outputs_changed();
    });
}

ColorManagerV1::~ColorManagerV1()
{
    // Objects whose clients outlive the manager go inert and never reach back into it.
    for (Feedback* feedback : feedbacks_) {
        feedback->leave();
        feedback->owner = nullptr;
    }
    for (OutputObject* object : outputs_) {
        object->output_destroy.disconnect();
        object->output = nullptr;
        object->owner = nullptr;
    }
}

void ColorManagerV1::bound(wl_resource* manager, void*) noexcept
{
    for (const auto& [number, intent] : color_management::intents)
        wp_color_manager_v1_send_supported_intent(manager, number);
    for (uint32_t feature : supported_features)
        wp_color_manager_v1_send_supported_feature(manager, feature);
    for (const auto& [number, tf] : color_management::transfer_functions)
        wp_color_manager_v1_send_supported_tf_named(manager, number);
    for (const auto& [number, primaries] : color_management::primaries)
        wp_color_manager_v1_send_supported_primaries_named(manager, number);
    wp_color_manager_v1_send_done(manager);
}

namespace {
ColorManagerV1* manager_of(wl_resource* manager)
{
    return static_cast<ColorManagerV1*>(wl_resource_get_user_data(manager));
}
}  // namespace

void ColorManagerV1::get_output(wl_client* client, wl_resource* manager, uint32_t id, wl_resource* output) noexcept
{
    ColorManagerV1* self = manager_of(manager);
    wl_resource* resource = wl_resource_create(client, &wp_color_management_output_v1_interface,
                                               wl_resource_get_version(manager), id);
    auto* object = resource ? new (std::nothrow) OutputObject{} : nullptr;
    if (!object) {
        if (resource)
            wl_resource_destroy(resource);
        wl_client_post_no_memory(client);
        return;
    }
    object->owner = self;
    object->resource = resource;
    object->output = wlr_output_from_resource(output);  // null for an inert wl_output: this object is inert too
    if (object->output) {
        object->current = self->output_record(object->output);
        object->output_destroy.connect(&object->output->events.destroy, [object](void*) {
            object->output_destroy.disconnect();
            object->output = nullptr;
            object->current = nullptr;
        });
    }
    self->outputs_.insert(object);
    wl_resource_set_implementation(resource, &output_requests, object, [](wl_resource* r) noexcept {
        auto* gone = static_cast<OutputObject*>(wl_resource_get_user_data(r));
        if (gone->owner)
            gone->owner->outputs_.erase(gone);
        delete gone;
    });
}

void ColorManagerV1::get_surface(wl_client* client, wl_resource* manager, uint32_t id, wl_resource* surface) noexcept
{
    manager_of(manager)->surfaces_.get(client, manager, id, surface);
}

void ColorManagerV1::get_surface_feedback(wl_client* client, wl_resource* manager, uint32_t id,
                                          wl_resource* surface_resource) noexcept
{
    ColorManagerV1* self = manager_of(manager);
    wl_resource* resource = wl_resource_create(client, &wp_color_management_surface_feedback_v1_interface,
                                               wl_resource_get_version(manager), id);
    auto* feedback = resource ? new (std::nothrow) Feedback{} : nullptr;
    if (!feedback) {
        if (resource)
            wl_resource_destroy(resource);
        wl_client_post_no_memory(client);
        return;
    }
    feedback->owner = self;
    feedback->resource = resource;
    feedback->surface = wlr_surface_from_resource(surface_resource);
    feedback->preferred = self->preferred_record(feedback->surface);
    feedback->identities = self->identities_;
    feedback->commit.connect(&feedback->surface->events.commit, [self, feedback](void*) { self->update(*feedback); });
    feedback->surface_destroy.connect(&feedback->surface->events.destroy, [feedback](void*) { feedback->leave(); });
    self->feedbacks_.insert(feedback);
    wl_resource_set_implementation(resource, &feedback_requests, feedback, [](wl_resource* r) noexcept {
        auto* gone = static_cast<Feedback*>(wl_resource_get_user_data(r));
        if (gone->owner)
            gone->owner->feedbacks_.erase(gone);
        delete gone;
    });
}

void ColorManagerV1::icc_creator(wl_client*, wl_resource* manager, uint32_t id) noexcept
{
    create_icc_creator(manager, id, manager_of(manager)->identities_);
}

void ColorManagerV1::parametric_creator(wl_client*, wl_resource* manager, uint32_t id) noexcept
{
    create_parametric_creator(manager, id, manager_of(manager)->identities_);
}

void ColorManagerV1::windows_scrgb(wl_client*, wl_resource* manager, uint32_t) noexcept
{
    wl_resource_post_error(manager, WP_COLOR_MANAGER_V1_ERROR_UNSUPPORTED_FEATURE,
                           "create_windows_scrgb is not supported (feature windows_scrgb is not advertised)");
}

const void* ColorManagerV1::requests()
{
    static const struct wp_color_manager_v1_interface table = {
        .destroy = destroy_resource,
        .get_output = &ColorManagerV1::get_output,
        .get_surface = &ColorManagerV1::get_surface,
        .get_surface_feedback = &ColorManagerV1::get_surface_feedback,
        .create_icc_creator = &ColorManagerV1::icc_creator,
        .create_parametric_creator = &ColorManagerV1::parametric_creator,
        .create_windows_scrgb = &ColorManagerV1::windows_scrgb,
    };
    return &table;
}

void ColorManagerV1::set_output_descriptions(OutputDescriptions descriptions)
{
    output_descriptions_ = std::move(descriptions);
    outputs_changed();
}

std::shared_ptr<const DescriptionRecord> ColorManagerV1::output_record(wlr_output* output)
{
    std::shared_ptr<const renderer::ImageDescription> description =
        output_descriptions_ ? output_descriptions_(output) : nullptr;
    if (!description)
        return default_record_;
    if (auto known = records_[description.get()].lock())
        return known;
    std::erase_if(records_, [](const auto& entry) { return entry.second.expired(); });
    auto record = std::make_shared<DescriptionRecord>();
    record->identity = identities_->take();
    record->primaries_named = description->icc ? std::nullopt : primaries_number(description->primaries);
    if (description->icc_profile)
        record->icc = *description->icc_profile;  // an ICC output (color-profile=icc:PATH): get_information's icc_file
    record->description = std::move(description);
    records_[record->description.get()] = record;
    return record;
}

std::shared_ptr<const DescriptionRecord> ColorManagerV1::preferred_record(wlr_surface* surface)
{
    wlr_surface_output* entered = nullptr;
    wl_list_for_each(entered, &surface->current_outputs, link)
        return output_record(entered->output);
    return default_record_;
}

void ColorManagerV1::update(Feedback& feedback)
{
    if (!feedback.surface)
        return;
    std::shared_ptr<const DescriptionRecord> record = preferred_record(feedback.surface);
    if (record->identity == feedback.preferred->identity)
        return;
    feedback.preferred = std::move(record);
    wp_color_management_surface_feedback_v1_send_preferred_changed(feedback.resource, feedback.preferred->identity);
}

void ColorManagerV1::report(Stats& stats) const
{
    using Colour = renderer::SurfaceColour;
    stats.set("surfaces.colour_described", surfaces_.count([](const Colour& c) { return c.description != nullptr; }));
    stats.set("surfaces.colour_relative", surfaces_.count([](const Colour& c) {
        return c.description && c.intent == renderer::RenderIntent::relative;
    }));
    stats.set("surfaces.colour_icc", surfaces_.count([](const Colour& c) {
        return c.description && c.description->icc != nullptr;
    }));
}

void ColorManagerV1::outputs_changed()
{
    for (OutputObject* object : outputs_) {
        if (!object->output)
            continue;
        std::shared_ptr<const DescriptionRecord> record = output_record(object->output);
        if (record->identity == object->current->identity)
            continue;
        object->current = std::move(record);
        wp_color_management_output_v1_send_image_description_changed(object->resource);
        wlr_output_schedule_done(object->output);  // the wl_output.done the event is to be followed by
    }
    for (Feedback* feedback : feedbacks_)
        update(*feedback);
}

}  // namespace kiln::compositor
