// wp_color_representation_manager_v1 and wp_color_representation_surface_v1: what kiln advertises (only what its
// shaders do), one object per surface (SurfaceHints, the four values packed), and the commit's format check.
#include "compositor/protocols/surface/color_representation_v1.hpp"

#include "color-representation-v1-protocol.h"
#include "renderer/formats.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace kiln::compositor {
namespace {

using Coefficients = wp_color_representation_surface_v1_coefficients;
using Range = wp_color_representation_surface_v1_range;

// What kiln's conversion really does: RGB buffers are taken as they are (identity, full range); YCbCr ones through
// kiln's matrix (renderer/yuv.cpp) for these three standards in either range. FCC, SMPTE 240, BT.2020 constant
// luminance and ICtCp are not converted, so not offered.
constexpr std::array<std::pair<Coefficients, Range>, 7> supported{{
    {WP_COLOR_REPRESENTATION_SURFACE_V1_COEFFICIENTS_IDENTITY, WP_COLOR_REPRESENTATION_SURFACE_V1_RANGE_FULL},
    {WP_COLOR_REPRESENTATION_SURFACE_V1_COEFFICIENTS_BT601, WP_COLOR_REPRESENTATION_SURFACE_V1_RANGE_FULL},
    {WP_COLOR_REPRESENTATION_SURFACE_V1_COEFFICIENTS_BT601, WP_COLOR_REPRESENTATION_SURFACE_V1_RANGE_LIMITED},
    {WP_COLOR_REPRESENTATION_SURFACE_V1_COEFFICIENTS_BT709, WP_COLOR_REPRESENTATION_SURFACE_V1_RANGE_FULL},
    {WP_COLOR_REPRESENTATION_SURFACE_V1_COEFFICIENTS_BT709, WP_COLOR_REPRESENTATION_SURFACE_V1_RANGE_LIMITED},
    {WP_COLOR_REPRESENTATION_SURFACE_V1_COEFFICIENTS_BT2020, WP_COLOR_REPRESENTATION_SURFACE_V1_RANGE_FULL},
    {WP_COLOR_REPRESENTATION_SURFACE_V1_COEFFICIENTS_BT2020, WP_COLOR_REPRESENTATION_SURFACE_V1_RANGE_LIMITED},
}};

// kiln blends premultiplied values as they are encoded; its sampling programs turn the other two modes into those
// (renderer/shaders.cpp's *_straight and *_optical).
constexpr std::array<uint32_t, 3> supported_alpha{
    WP_COLOR_REPRESENTATION_SURFACE_V1_ALPHA_MODE_PREMULTIPLIED_ELECTRICAL,
    WP_COLOR_REPRESENTATION_SURFACE_V1_ALPHA_MODE_PREMULTIPLIED_OPTICAL,
    WP_COLOR_REPRESENTATION_SURFACE_V1_ALPHA_MODE_STRAIGHT,
};

bool is_supported(uint32_t coefficients, uint32_t range)
{
    for (const auto& [c, r] : supported)
        if (c == coefficients && r == range)
            return true;
    return false;
}

// The packed value `object` will commit, after `change`; or the inert error.
template <class Change>
void update(wl_resource* object, Change change)
{
    uint32_t packed = 0;
    if (!SurfaceHints::pending(object, packed)) {
        wl_resource_post_error(object, WP_COLOR_REPRESENTATION_SURFACE_V1_ERROR_INERT, "the wl_surface is gone");
        return;
    }
    ColorRepresentation values = ColorRepresentation::unpack(packed);
    change(values);
    SurfaceHints::set(object, values.pack());
}

void set_alpha_mode(wl_client*, wl_resource* object, uint32_t mode) noexcept
{
    uint32_t ignored = 0;
    if (SurfaceHints::pending(object, ignored) &&
        std::find(supported_alpha.begin(), supported_alpha.end(), mode) == supported_alpha.end()) {
        wl_resource_post_error(object, WP_COLOR_REPRESENTATION_SURFACE_V1_ERROR_ALPHA_MODE,
                               "alpha mode %u is not supported (kiln offers 0, 1 and 2)", mode);
        return;
    }
    update(object, [&](ColorRepresentation& v) { v.alpha_mode = mode + 1; });
}

void set_coefficients_and_range(wl_client*, wl_resource* object, uint32_t coefficients, uint32_t range) noexcept
{
    uint32_t ignored = 0;
    if (SurfaceHints::pending(object, ignored) && !is_supported(coefficients, range)) {
        wl_resource_post_error(object, WP_COLOR_REPRESENTATION_SURFACE_V1_ERROR_COEFFICIENTS,
                               "coefficients %u with range %u are not supported", coefficients, range);
        return;
    }
    update(object, [&](ColorRepresentation& v) {
        v.coefficients = coefficients;
        v.range = range;
    });
}

void set_chroma_location(wl_client*, wl_resource* object, uint32_t location) noexcept
{
    uint32_t ignored = 0;
    if (SurfaceHints::pending(object, ignored) &&
        !wp_color_representation_surface_v1_chroma_location_is_valid(location, wl_resource_get_version(object))) {
        wl_resource_post_error(object, WL_DISPLAY_ERROR_INVALID_METHOD, "%u is not a chroma location", location);
        return;
    }
    update(object, [&](ColorRepresentation& v) { v.chroma_location = location; });
}

const struct wp_color_representation_surface_v1_interface object_requests = {
    .destroy = destroy_resource,
    .set_alpha_mode = set_alpha_mode,
    .set_coefficients_and_range = set_coefficients_and_range,
    .set_chroma_location = set_chroma_location,
};

const struct wp_color_representation_manager_v1_interface manager_requests = {
    .destroy = destroy_resource,
    .get_surface = SurfaceHints::get,
};

void advertise(wl_resource* manager, void*) noexcept
{
    for (uint32_t mode : supported_alpha)
        wp_color_representation_manager_v1_send_supported_alpha_mode(manager, mode);
    for (const auto& [coefficients, range] : supported)
        wp_color_representation_manager_v1_send_supported_coefficients_and_ranges(manager, coefficients, range);
    wp_color_representation_manager_v1_send_done(manager);
}

// The fourcc of a client buffer: a dma-buf's, or wl_shm's (whose codes 0 and 1 are ARGB8888 and XRGB8888); 0 for
// others (single-pixel buffers), which are RGB.
uint32_t format_of(wlr_buffer* buffer)
{
    wlr_dmabuf_attributes dmabuf{};
    if (wlr_buffer_get_dmabuf(buffer, &dmabuf))
        return dmabuf.format;
    wlr_shm_attributes shm{};
    if (wlr_buffer_get_shm(buffer, &shm))
        return shm.format;
    return 0;
}

// The format of the contents the commit will show: its new buffer, else the one shown now; nullopt for none.
std::optional<uint32_t> committed_format(wlr_surface* surface)
{
    if (surface->pending.committed & WLR_SURFACE_STATE_BUFFER)
        return surface->pending.buffer ? std::optional(format_of(surface->pending.buffer)) : std::nullopt;
    if (!surface->buffer)
        return std::nullopt;
    if (surface->buffer->source)
        return format_of(surface->buffer->source);
    return surface->buffer->shm_source_format;  // a released shm buffer's copy: RGB
}

}  // namespace

void ColorRepresentation::set_siting_and_alpha(renderer::YuvEncoding& encoding) const
{
    switch (alpha_mode) {  // stored + 1 (0: unset, premultiplied electrical)
    case WP_COLOR_REPRESENTATION_SURFACE_V1_ALPHA_MODE_PREMULTIPLIED_OPTICAL + 1:
        encoding.alpha = renderer::AlphaMode::premultiplied_optical;
        break;
    case WP_COLOR_REPRESENTATION_SURFACE_V1_ALPHA_MODE_STRAIGHT + 1:
        encoding.alpha = renderer::AlphaMode::straight;
        break;
    default: break;
    }
    // H.273 Chroma420SampleLocType 0..5 (the protocol's 1..6): x 0, 0.5, 0, 0.5, 0, 0.5; y 0.5, 0.5, 0, 0, 1, 1.
    if (chroma_location < WP_COLOR_REPRESENTATION_SURFACE_V1_CHROMA_LOCATION_TYPE_0 ||
        chroma_location > WP_COLOR_REPRESENTATION_SURFACE_V1_CHROMA_LOCATION_TYPE_5)
        return;  // unset: centred, as kiln sampled before the protocol
    const uint32_t type = chroma_location - WP_COLOR_REPRESENTATION_SURFACE_V1_CHROMA_LOCATION_TYPE_0;
    encoding.chroma_x = type % 2 == 0 ? 0.0f : 0.5f;
    encoding.chroma_y = type < 2 ? 0.5f : type < 4 ? 0.0f : 1.0f;
}

ColorRepresentation ColorRepresentation::unpack(uint32_t packed)
{
    return {packed & 0xffu, (packed >> 8) & 0xffu, (packed >> 16) & 0xffu, packed >> 24};
}

uint32_t ColorRepresentation::pack() const
{
    return (alpha_mode & 0xffu) | (coefficients & 0xffu) << 8 | (range & 0xffu) << 16 | chroma_location << 24;
}

renderer::YuvEncoding ColorRepresentation::yuv_encoding() const
{
    renderer::YuvEncoding encoding;
    switch (coefficients) {
    case WP_COLOR_REPRESENTATION_SURFACE_V1_COEFFICIENTS_BT709: encoding.space = renderer::YuvColorSpace::bt709; break;
    case WP_COLOR_REPRESENTATION_SURFACE_V1_COEFFICIENTS_BT2020:
        encoding.space = renderer::YuvColorSpace::bt2020;
        break;
    case WP_COLOR_REPRESENTATION_SURFACE_V1_COEFFICIENTS_BT601: break;
    default:  // unset (or identity, which a YCbCr buffer cannot have committed): the default matrix
        set_siting_and_alpha(encoding);
        return encoding;
    }
    encoding.range = range == WP_COLOR_REPRESENTATION_SURFACE_V1_RANGE_FULL ? renderer::YuvRange::full
                                                                           : renderer::YuvRange::limited;
    set_siting_and_alpha(encoding);
    return encoding;
}

ColorRepresentationV1::ColorRepresentationV1(wl_display* display, RequestHooks& hooks,
                                             std::function<void(wlr_surface*)> changed)
    : hints_({&wp_color_representation_surface_v1_interface, &object_requests,
              WP_COLOR_REPRESENTATION_MANAGER_V1_ERROR_SURFACE_EXISTS},
             0, [changed = std::move(changed)](wlr_surface* surface, uint32_t) { changed(surface); }),
      global_(display, wp_color_representation_manager_v1_interface, 1, &manager_requests, &hints_, &advertise),
      hook_(hooks.add(wl_surface_interface, "commit", HookOrder::colour_format,
                      [this](const wl_protocol_logger_message& message) {
                          if (wlr_surface* surface = wlr_surface_from_resource(message.resource))
                              check_commit(surface);
                      }))
{
}

// H.273: YCbCr coefficients produce YCbCr channels, identity RGB ones; a chroma location needs chroma subsampled.
void ColorRepresentationV1::check_commit(wlr_surface* surface) const
{
    const ColorRepresentation values = ColorRepresentation::unpack(hints_.pending(surface));
    if (values.coefficients == 0 && values.chroma_location == 0)
        return;
    wl_resource* object = hints_.object(surface);
    const std::optional<uint32_t> format = committed_format(surface);
    if (!object || !format)
        return;  // values being unset (the object is gone), or no contents to check
    const auto info = renderer::format_info(*format);
    const bool yuv = info && info->yuv;
    const bool subsampled = yuv && info->plane_count > 1 &&
                            (info->planes[1].h_subsample > 1 || info->planes[1].v_subsample > 1);
    const bool identity = values.coefficients == WP_COLOR_REPRESENTATION_SURFACE_V1_COEFFICIENTS_IDENTITY;
    if (values.coefficients != 0 && identity == yuv)
        wl_resource_post_error(object, WP_COLOR_REPRESENTATION_SURFACE_V1_ERROR_PIXEL_FORMAT,
                               "coefficients %u cannot describe %s buffer", values.coefficients,
                               yuv ? "a YCbCr" : "an RGB");
    else if (values.chroma_location != 0 && !subsampled)
        wl_resource_post_error(object, WP_COLOR_REPRESENTATION_SURFACE_V1_ERROR_PIXEL_FORMAT,
                               "a chroma location needs a buffer with subsampled chroma");
}

}  // namespace kiln::compositor
