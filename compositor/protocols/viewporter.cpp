// wp_viewporter and wp_viewport: requests, the per-surface registry, and the checks made at each commit.
#include "compositor/protocols/viewporter.hpp"

#include "compositor/listener.hpp"

#include "viewporter-protocol.h"

#include <cmath>
#include <new>
#include <utility>

namespace kiln::compositor {

// One surface's viewport: inert (no surface) once the surface is gone, until the client destroys it.
class Viewporter::Viewport {
public:
    Viewport(Viewporter& owner, wl_resource* resource, wlr_surface* surface)
        : owner_(owner), resource_(resource), surface_(surface)
    {
        surface_destroy_.connect(&surface->events.destroy, [this](void*) { forget(); });
    }

    wl_resource* resource() const { return resource_; }
    wlr_surface* surface() const { return surface_; }

    // The client destroyed the viewport: the surface is shown unscaled and uncropped from its next commit.
    void reset_surface()
    {
        surface_->pending.viewport.has_src = false;
        surface_->pending.viewport.has_dst = false;
        surface_->pending.committed |= WLR_SURFACE_STATE_VIEWPORT;
    }

    // Detaches from the resource and the registry; `this` is gone afterwards.
    void forget()
    {
        wl_resource_set_user_data(resource_, nullptr);
        owner_.viewports_.erase(surface_);
    }

private:
    Viewporter& owner_;
    wl_resource* resource_;
    wlr_surface* surface_;

    wl::Listener surface_destroy_;
};

namespace {

using Viewport = Viewporter::Viewport;

Viewport* viewport_of(wl_resource* resource)
{
    return static_cast<Viewport*>(wl_resource_get_user_data(resource));
}

void destroy_request(wl_client*, wl_resource* resource) noexcept
{
    wl_resource_destroy(resource);
}

void viewport_destroyed(wl_resource* resource) noexcept
{
    if (Viewport* viewport = viewport_of(resource)) {
        viewport->reset_surface();
        viewport->forget();
    }
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
    auto& pending = viewport->surface()->pending;
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
    auto& pending = viewport->surface()->pending;
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
    .destroy = destroy_request,
    .set_source = set_source,
    .set_destination = set_destination,
};

void get_viewport_request(wl_client* client, wl_resource* manager, uint32_t id, wl_resource* surface) noexcept
{
    static_cast<Viewporter*>(wl_resource_get_user_data(manager))->get_viewport(client, manager, id, surface);
}

const struct wp_viewporter_interface viewporter_requests = {
    .destroy = destroy_request,
    .get_viewport = get_viewport_request,
};

void bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
{
    wl_resource* resource = wl_resource_create(client, &wp_viewporter_interface, static_cast<int>(version), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    wl_resource_set_implementation(resource, &viewporter_requests, data, nullptr);
}

}  // namespace

Viewporter::Viewporter(wl_display* display, RequestHooks& hooks)
    : global_(wl_global_create(display, &wp_viewporter_interface, 1, this, bind)),
      hook_(hooks.add(wl_surface_interface, "commit", HookOrder::viewporter,
                      [this](const wl_protocol_logger_message& message) {
                          if (viewports_.empty())
                              return;
                          if (wlr_surface* surface = wlr_surface_from_resource(message.resource))
                              check_commit(surface);
                      }))
{
}

Viewporter::~Viewporter()
{
    hook_ = {};
    if (global_)
        wl_global_destroy(global_);
    // Viewports still alive (clients connected at shutdown) go inert; libwayland destroys their resources later.
    for (auto& [surface, viewport] : viewports_)
        wl_resource_set_user_data(viewport->resource(), nullptr);
}

void Viewporter::get_viewport(wl_client* client, wl_resource* manager, uint32_t id, wl_resource* surface_resource)
{
    auto& self = *this;
    wlr_surface* surface = wlr_surface_from_resource(surface_resource);
    if (self.viewports_.count(surface)) {
        wl_resource_post_error(manager, WP_VIEWPORTER_ERROR_VIEWPORT_EXISTS, "the wl_surface already has a viewport");
        return;
    }
    wl_resource* resource = wl_resource_create(client, &wp_viewport_interface, wl_resource_get_version(manager), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    auto viewport = std::make_unique<Viewport>(self, resource, surface);
    wl_resource_set_implementation(resource, &viewport_requests, viewport.get(), viewport_destroyed);
    self.viewports_.emplace(surface, std::move(viewport));
}

// The state the commit is about to apply: a source rectangle must have whole sizes when no destination scales it,
// and must lie within the buffer (in surface coordinates, after its transform and scale).
void Viewporter::check_commit(wlr_surface* surface) const
{
    const auto found = viewports_.find(surface);
    if (found == viewports_.end())
        return;
    wl_resource* resource = found->second->resource();
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
