// wp_viewporter and wp_viewport: requests, the per-surface registry, and the checks made at each commit.
#include "compositor/protocols/surface/viewporter.hpp"

#include "viewporter-protocol.h"

#include <cmath>
#include <utility>

namespace kiln::compositor {

void Viewporter::Viewport::released()
{
    surface->pending.viewport.has_src = false;
    surface->pending.viewport.has_dst = false;
    surface->pending.committed |= WLR_SURFACE_STATE_VIEWPORT;
}

namespace {

using Viewport = Viewporter::Viewport;

// The viewport of `resource`, or null once its surface is gone (an inert viewport).
Viewport* viewport_of(wl_resource* resource)
{
    Viewport* viewport = PerSurfaceObjects<Viewport>::from(resource);
    return viewport->surface ? viewport : nullptr;
}

void set_source(wl_client*, wl_resource* resource, wl_fixed_t x_fixed, wl_fixed_t y_fixed, wl_fixed_t width_fixed,
                wl_fixed_t height_fixed) noexcept
{
    Viewport* viewport = viewport_of(resource);
    if (!viewport) {
        wl_resource_post_error(resource, WP_VIEWPORT_ERROR_NO_SURFACE, "set_source after the wl_surface was destroyed");
        return;
    }
    const double x = wl_fixed_to_double(x_fixed), y = wl_fixed_to_double(y_fixed);
    const double width = wl_fixed_to_double(width_fixed), height = wl_fixed_to_double(height_fixed);
    auto& pending = viewport->surface->pending;
    if (x == -1.0 && y == -1.0 && width == -1.0 && height == -1.0) {
        pending.viewport.has_src = false;
    } else if (x < 0 || y < 0 || width <= 0 || height <= 0) {
        wl_resource_post_error(resource, WP_VIEWPORT_ERROR_BAD_VALUE, "set_source with a negative origin or an empty size");
        return;
    } else {
        pending.viewport.has_src = true;
    }
    pending.viewport.src = {x, y, width, height};
    pending.committed |= WLR_SURFACE_STATE_VIEWPORT;
}

void set_destination(wl_client*, wl_resource* resource, int32_t width, int32_t height) noexcept
{
    Viewport* viewport = viewport_of(resource);
    if (!viewport) {
        wl_resource_post_error(resource, WP_VIEWPORT_ERROR_NO_SURFACE,
                               "set_destination after the wl_surface was destroyed");
        return;
    }
    auto& pending = viewport->surface->pending;
    if (width == -1 && height == -1) {
        pending.viewport.has_dst = false;
    } else if (width <= 0 || height <= 0) {
        wl_resource_post_error(resource, WP_VIEWPORT_ERROR_BAD_VALUE, "set_destination with an empty size");
        return;
    } else {
        pending.viewport.has_dst = true;
    }
    pending.viewport.dst_width = width;
    pending.viewport.dst_height = height;
    pending.committed |= WLR_SURFACE_STATE_VIEWPORT;
}

const struct wp_viewport_interface viewport_requests = {
    .destroy = destroy_resource,
    .set_source = set_source,
    .set_destination = set_destination,
};

const struct wp_viewporter_interface viewporter_requests = {
    .destroy = destroy_resource,
    .get_viewport = PerSurfaceObjects<Viewport>::get,
};

}  // namespace

Viewporter::Viewporter(wl_display* display, RequestHooks& hooks)
    : viewports_({&wp_viewport_interface, &viewport_requests, WP_VIEWPORTER_ERROR_VIEWPORT_EXISTS}),
      global_(display, wp_viewporter_interface, 1, &viewporter_requests, &viewports_),
      hook_(hooks.add(wl_surface_interface, "commit", HookOrder::viewporter,
                      [this](const wl_protocol_logger_message& message) {
                          if (viewports_.empty())
                              return;
                          if (wlr_surface* surface = wlr_surface_from_resource(message.resource))
                              check_commit(surface);
                      }))
{
}

// The state the commit is about to apply: a source rectangle must have whole sizes when no destination scales it,
// and must lie within the buffer (in surface coordinates, after its transform and scale).
void Viewporter::check_commit(wlr_surface* surface) const
{
    const Viewport* viewport = viewports_.find(surface);
    if (!viewport)
        return;
    wl_resource* resource = viewport->resource;
    const auto& pending = surface->pending;
    if (!pending.viewport.has_src)
        return;
    const wlr_fbox& src = pending.viewport.src;
    if (!pending.viewport.has_dst && (std::floor(src.width) != src.width || std::floor(src.height) != src.height)) {
        wl_resource_post_error(resource, WP_VIEWPORT_ERROR_BAD_SIZE,
                               "a source size must be whole when no destination size is set");
        return;
    }
    int width = 0, height = 0;
    if (pending.committed & WLR_SURFACE_STATE_BUFFER) {
        if (pending.buffer) {
            width = pending.buffer->width;
            height = pending.buffer->height;
        }
    } else if (surface->current.buffer) {
        width = surface->current.buffer_width;
        height = surface->current.buffer_height;
    }
    if (width <= 0 || height <= 0)
        return;  // no buffer: nothing to be outside of
    if (pending.transform & WL_OUTPUT_TRANSFORM_90)
        std::swap(width, height);
    const double scale = pending.scale > 0 ? pending.scale : 1;
    if (src.x + src.width > width / scale || src.y + src.height > height / scale)
        wl_resource_post_error(resource, WP_VIEWPORT_ERROR_OUT_OF_BUFFER,
                               "source rectangle %.2f,%.2f %.2fx%.2f outside the %gx%g buffer", src.x, src.y,
                               src.width, src.height, width / scale, height / scale);
}

}  // namespace kiln::compositor
