// wp_image_description_creator_params_v1: the set requests (each property once, values checked as the XML says) and
// create (complete set, max_cll/max_fall against the target luminance, a primary volume that spans a triangle and a
// target volume inside it — kiln does not offer extended_target_volume).
#include "compositor/protocols/surface/parametric_creator_v1.hpp"

#include "color-management-v1-protocol.h"
#include "compositor/protocol_kit/resource_object.hpp"
#include "compositor/protocols/surface/color_management_names.hpp"

#include <memory>
#include <optional>

namespace kiln::compositor {
namespace {

struct ParametricCreator {
    std::shared_ptr<DescriptionIdentities> identities;
    std::optional<renderer::TransferFunction> transfer;
    std::optional<renderer::Primaries> primaries;
    std::optional<uint32_t> primaries_named;
    std::optional<color_management::Luminances> luminances;
    std::optional<renderer::Primaries> mastering_primaries;
    std::optional<renderer::LuminanceRange> mastering_luminance;
    std::optional<uint32_t> max_cll;
    std::optional<uint32_t> max_fall;
};

ParametricCreator* creator_of(wl_resource* resource)
{
    return resource_object<ParametricCreator>(resource);
}

bool already_set(wl_resource* resource, bool set, const char* what)
{
    if (set)
        wl_resource_post_error(resource, WP_IMAGE_DESCRIPTION_CREATOR_PARAMS_V1_ERROR_ALREADY_SET, "already set: %s",
                               what);
    return set;
}

renderer::Primaries primaries_from(int32_t r_x, int32_t r_y, int32_t g_x, int32_t g_y, int32_t b_x, int32_t b_y,
                                   int32_t w_x, int32_t w_y)
{
    auto c = [](int32_t x, int32_t y) { return renderer::Chromaticity{x / 1e6, y / 1e6}; };
    return {c(r_x, r_y), c(g_x, g_y), c(b_x, b_y), c(w_x, w_y)};
}

// Whether `p` lies in the triangle of `volume`'s primaries (a little slack for the 6-decimal encoding).
bool inside(const renderer::Primaries& volume, renderer::Chromaticity p)
{
    auto side = [&](renderer::Chromaticity a, renderer::Chromaticity b) {
        return (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
    };
    const double s1 = side(volume.red, volume.green), s2 = side(volume.green, volume.blue),
                 s3 = side(volume.blue, volume.red);
    constexpr double slack = 1e-5;
    return (s1 >= -slack && s2 >= -slack && s3 >= -slack) || (s1 <= slack && s2 <= slack && s3 <= slack);
}

void set_tf_named(wl_client*, wl_resource* resource, uint32_t tf) noexcept
{
    ParametricCreator* c = creator_of(resource);
    const auto named = color_management::value_of(color_management::transfer_functions, tf);
    if (!named) {
        wl_resource_post_error(resource, WP_IMAGE_DESCRIPTION_CREATOR_PARAMS_V1_ERROR_INVALID_TF,
                               "transfer function %u is not one kiln advertised", tf);
        return;
    }
    if (!already_set(resource, c->transfer.has_value(), "the transfer characteristic"))
        c->transfer = *named;
}

void set_tf_power(wl_client*, wl_resource* resource, uint32_t) noexcept
{
    wl_resource_post_error(resource, WP_IMAGE_DESCRIPTION_CREATOR_PARAMS_V1_ERROR_UNSUPPORTED_FEATURE,
                           "set_tf_power is not supported (feature set_tf_power is not advertised)");
}

void set_primaries_named(wl_client*, wl_resource* resource, uint32_t primaries) noexcept
{
    ParametricCreator* c = creator_of(resource);
    const auto named = color_management::value_of(color_management::primaries, primaries);
    if (!named) {
        wl_resource_post_error(resource, WP_IMAGE_DESCRIPTION_CREATOR_PARAMS_V1_ERROR_INVALID_PRIMARIES_NAMED,
                               "primaries %u are not ones kiln advertised", primaries);
        return;
    }
    if (already_set(resource, c->primaries.has_value(), "the primaries"))
        return;
    c->primaries = renderer::named_primaries(*named);
    c->primaries_named = primaries;
}

void set_primaries(wl_client*, wl_resource* resource, int32_t r_x, int32_t r_y, int32_t g_x, int32_t g_y,
                   int32_t b_x, int32_t b_y, int32_t w_x, int32_t w_y) noexcept
{
    ParametricCreator* c = creator_of(resource);
    if (!already_set(resource, c->primaries.has_value(), "the primaries"))
        c->primaries = primaries_from(r_x, r_y, g_x, g_y, b_x, b_y, w_x, w_y);
}

void set_luminances(wl_client*, wl_resource* resource, uint32_t min_lum, uint32_t max_lum,
                    uint32_t reference_lum) noexcept
{
    ParametricCreator* c = creator_of(resource);
    if (already_set(resource, c->luminances.has_value(), "the luminances"))
        return;
    const double min = min_lum / 10000.0;
    if (max_lum <= min || reference_lum <= min) {
        wl_resource_post_error(resource, WP_IMAGE_DESCRIPTION_CREATOR_PARAMS_V1_ERROR_INVALID_LUMINANCE,
                               "max (%u) and reference (%u) must be above min (%.4f) cd/m²", max_lum, reference_lum,
                               min);
        return;
    }
    c->luminances = color_management::Luminances{min, double(max_lum), double(reference_lum)};
}

void set_mastering_display_primaries(wl_client*, wl_resource* resource, int32_t r_x, int32_t r_y, int32_t g_x,
                                     int32_t g_y, int32_t b_x, int32_t b_y, int32_t w_x, int32_t w_y) noexcept
{
    ParametricCreator* c = creator_of(resource);
    if (!already_set(resource, c->mastering_primaries.has_value(), "the mastering display primaries"))
        c->mastering_primaries = primaries_from(r_x, r_y, g_x, g_y, b_x, b_y, w_x, w_y);
}

void set_mastering_luminance(wl_client*, wl_resource* resource, uint32_t min_lum, uint32_t max_lum) noexcept
{
    ParametricCreator* c = creator_of(resource);
    if (already_set(resource, c->mastering_luminance.has_value(), "the mastering luminance"))
        return;
    const double min = min_lum / 10000.0;
    if (max_lum <= min) {
        wl_resource_post_error(resource, WP_IMAGE_DESCRIPTION_CREATOR_PARAMS_V1_ERROR_INVALID_LUMINANCE,
                               "mastering max (%u) must be above min (%.4f) cd/m²", max_lum, min);
        return;
    }
    c->mastering_luminance = renderer::LuminanceRange{min, double(max_lum)};
}

void set_max_cll(wl_client*, wl_resource* resource, uint32_t max_cll) noexcept
{
    ParametricCreator* c = creator_of(resource);
    if (!already_set(resource, c->max_cll.has_value(), "max_cll"))
        c->max_cll = max_cll;
}

void set_max_fall(wl_client*, wl_resource* resource, uint32_t max_fall) noexcept
{
    ParametricCreator* c = creator_of(resource);
    if (!already_set(resource, c->max_fall.has_value(), "max_fall"))
        c->max_fall = max_fall;
}

// The XML's create checks of max_cll and max_fall, against the target luminance range; false after the error.
bool light_levels_valid(wl_resource* resource, const ParametricCreator& c, renderer::LuminanceRange target)
{
    auto fits = [&](uint32_t v) { return v > target.min && v <= target.max; };
    const char* wrong = nullptr;
    if (c.max_cll && !fits(*c.max_cll))
        wrong = "max_cll must be above the target's min and at most its max luminance";
    else if (c.max_fall && !fits(*c.max_fall))
        wrong = "max_fall must be above the target's min and at most its max luminance";
    else if (c.max_cll && c.max_fall && *c.max_fall > *c.max_cll)
        wrong = "max_fall must be at most max_cll";
    if (wrong)
        wl_resource_post_error(resource, WP_IMAGE_DESCRIPTION_CREATOR_PARAMS_V1_ERROR_INVALID_LUMINANCE, "%s", wrong);
    return !wrong;
}

// Why kiln cannot convert a complete, valid set; empty when it can.
std::string unsupported(const ParametricCreator& c)
{
    if (!renderer::rgb_to_xyz(*c.primaries))
        return "the primaries do not span a colour volume";
    if (c.mastering_primaries) {
        const renderer::Primaries& m = *c.mastering_primaries;
        if (!renderer::rgb_to_xyz(m))
            return "the mastering display primaries do not span a colour volume";
        if (!inside(*c.primaries, m.red) || !inside(*c.primaries, m.green) || !inside(*c.primaries, m.blue))
            return "the target colour volume exceeds the primary one (extended_target_volume is not supported)";
    }
    return {};
}

void create(wl_client* client, wl_resource* resource, uint32_t id) noexcept
{
    ParametricCreator& c = *creator_of(resource);
    const int version = wl_resource_get_version(resource);
    if (!c.transfer || !c.primaries) {
        wl_resource_post_error(resource, WP_IMAGE_DESCRIPTION_CREATOR_PARAMS_V1_ERROR_INCOMPLETE_SET,
                               "%s not set", !c.transfer ? "the transfer characteristic is" : "the primaries are");
        return;
    }
    color_management::Luminances lum = c.luminances.value_or(color_management::default_luminances(*c.transfer));
    if (*c.transfer == renderer::TransferFunction::st2084_pq)
        lum.max = lum.min + 10000.0;  // the XML: PQ's max_lum is ignored
    const renderer::LuminanceRange target = c.mastering_luminance.value_or(renderer::LuminanceRange{lum.min, lum.max});
    if (!light_levels_valid(resource, c, target))
        return;

    if (const std::string why = unsupported(c); !why.empty()) {
        create_failed_description(client, version, id, WP_IMAGE_DESCRIPTION_V1_CAUSE_UNSUPPORTED, why);
    } else {
        auto description = std::make_shared<renderer::ImageDescription>();
        description->primaries = *c.primaries;
        description->transfer = *c.transfer;
        description->min_luminance = lum.min;
        description->max_luminance = lum.max;
        description->reference_white = lum.reference;
        description->mastering_primaries = c.mastering_primaries;
        description->mastering_luminance = c.mastering_luminance;
        description->max_cll = c.max_cll.value_or(0);
        description->max_fall = c.max_fall.value_or(0);
        auto record = std::make_shared<DescriptionRecord>();
        record->identity = c.identities->take();
        record->description = std::move(description);
        record->primaries_named = c.primaries_named;
        create_ready_description(client, version, id, std::move(record), false);
    }
    wl_resource_destroy(resource);  // create is the creator's destructor
}

const struct wp_image_description_creator_params_v1_interface requests = {
    .create = create,
    .set_tf_named = set_tf_named,
    .set_tf_power = set_tf_power,
    .set_primaries_named = set_primaries_named,
    .set_primaries = set_primaries,
    .set_luminances = set_luminances,
    .set_mastering_display_primaries = set_mastering_display_primaries,
    .set_mastering_luminance = set_mastering_luminance,
    .set_max_cll = set_max_cll,
    .set_max_fall = set_max_fall,
};

}  // namespace

void create_parametric_creator(wl_resource* manager, uint32_t id, std::shared_ptr<DescriptionIdentities> identities)
{
    create_resource_object<ParametricCreator>(wl_resource_get_client(manager),
                                              &wp_image_description_creator_params_v1_interface,
                                              wl_resource_get_version(manager), id, &requests, std::move(identities));
}

}  // namespace kiln::compositor
