// wp_single_pixel_buffer_manager_v1: the global, and its one-pixel wl_buffers as wlr_buffers wlroots' surfaces take.
#include "compositor/protocols/buffers/single_pixel_buffer_v1.hpp"

#include "single-pixel-buffer-v1-protocol.h"

#include <drm_fourcc.h>

#include <cstdint>
#include <new>

namespace kiln::compositor {
namespace {

// One pixel, premultiplied ARGB8888 in memory order B, G, R, A (little-endian 0xAARRGGBB, as wl_shm's argb8888).
struct PixelBuffer {
    wlr_buffer base;  // first: wlroots hands back this pointer
    wl_resource* resource = nullptr;
    uint32_t pixel = 0;
    wl_listener release{};
};

PixelBuffer* from_wlr(wlr_buffer* buffer)
{
    return reinterpret_cast<PixelBuffer*>(buffer);
}

void buffer_destroy(wlr_buffer* buffer) noexcept
{
    PixelBuffer* self = from_wlr(buffer);
    wl_list_remove(&self->release.link);
    delete self;
}

bool begin_access(wlr_buffer* buffer, uint32_t flags, void** data, uint32_t* format, size_t* stride) noexcept
{
    if (flags & WLR_BUFFER_DATA_PTR_ACCESS_WRITE)
        return false;  // the colour is the client's, fixed at creation
    PixelBuffer* self = from_wlr(buffer);
    *data = &self->pixel;
    *format = DRM_FORMAT_ARGB8888;
    *stride = sizeof(self->pixel);
    return true;
}

void end_access(wlr_buffer*) noexcept {}

const wlr_buffer_impl buffer_impl = {
    .destroy = buffer_destroy,
    .get_dmabuf = nullptr,
    .get_shm = nullptr,
    .begin_data_ptr_access = begin_access,
    .end_data_ptr_access = end_access,
};

void destroy_request(wl_client*, wl_resource* resource) noexcept
{
    wl_resource_destroy(resource);
}

const struct wl_buffer_interface buffer_requests = {destroy_request};

bool is_instance(wl_resource* resource) noexcept
{
    return wl_resource_instance_of(resource, &wl_buffer_interface, &buffer_requests);
}

wlr_buffer* buffer_from_resource(wl_resource* resource) noexcept
{
    auto* self = static_cast<PixelBuffer*>(wl_resource_get_user_data(resource));
    return self ? &self->base : nullptr;
}

const wlr_buffer_resource_interface resource_interface = {
    .name = "kiln_single_pixel_buffer",
    .is_instance = is_instance,
    .from_resource = buffer_from_resource,
};

void resource_destroyed(wl_resource* resource) noexcept
{
    auto* self = static_cast<PixelBuffer*>(wl_resource_get_user_data(resource));
    if (!self)
        return;
    self->resource = nullptr;
    // The client let go; the buffer lives on while a surface still shows it.
    wlr_buffer_drop(&self->base);
}

// A channel from the protocol's 32-bit range to 8 bits, rounded.
uint32_t to_8bit(uint32_t value)
{
    return static_cast<uint32_t>((static_cast<uint64_t>(value) * 255 + 0x7fffffffu) / UINT32_MAX);
}

void create_buffer(wl_client* client, wl_resource* manager, uint32_t id, uint32_t r, uint32_t g, uint32_t b,
                   uint32_t a) noexcept
{
    auto* self = new (std::nothrow) PixelBuffer();
    if (!self) {
        wl_client_post_no_memory(client);
        return;
    }
    self->resource = wl_resource_create(client, &wl_buffer_interface, 1, id);
    if (!self->resource) {
        delete self;
        wl_client_post_no_memory(client);
        return;
    }
    (void)manager;
    // The protocol's values are premultiplied already, as wl_shm's argb8888 is.
    self->pixel = to_8bit(a) << 24 | to_8bit(r) << 16 | to_8bit(g) << 8 | to_8bit(b);
    wlr_buffer_init(&self->base, &buffer_impl, 1, 1);
    wl_resource_set_implementation(self->resource, &buffer_requests, self, resource_destroyed);
    // wl_buffer.release when no surface holds the buffer any more, as for wl_shm buffers.
    self->release.notify = [](wl_listener* listener, void*) noexcept {
        PixelBuffer* owner = wl_container_of(listener, owner, release);
        if (owner->resource)
            wl_buffer_send_release(owner->resource);
    };
    wl_signal_add(&self->base.events.release, &self->release);
}

void manager_destroy(wl_client*, wl_resource* resource) noexcept
{
    wl_resource_destroy(resource);
}

const struct wp_single_pixel_buffer_manager_v1_interface manager_requests = {
    .destroy = manager_destroy,
    .create_u32_rgba_buffer = create_buffer,
};

void bind(wl_client* client, void*, uint32_t version, uint32_t id) noexcept
{
    wl_resource* resource = wl_resource_create(client, &wp_single_pixel_buffer_manager_v1_interface,
                                               static_cast<int>(version), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    wl_resource_set_implementation(resource, &manager_requests, nullptr, nullptr);
}

}  // namespace

SinglePixelBufferV1::SinglePixelBufferV1(wl_display* display)
    : global_(wl_global_create(display, &wp_single_pixel_buffer_manager_v1_interface, 1, nullptr, bind))
{
    // wlroots keeps the list of buffer kinds for the process: registered once.
    static const bool registered = [] {
        wlr_buffer_register_resource_interface(&resource_interface);
        return true;
    }();
    (void)registered;
}

SinglePixelBufferV1::~SinglePixelBufferV1()
{
    if (global_)
        wl_global_destroy(global_);
}

}  // namespace kiln::compositor
