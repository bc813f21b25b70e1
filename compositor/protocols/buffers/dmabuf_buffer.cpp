// wl_buffer and wlr_buffer glue for dma-buf buffers: release events follow wlroots' locks, fds close with the buffer.
#include "compositor/protocols/buffers/dmabuf_buffer.hpp"

#include <unistd.h>

namespace kiln::compositor {

struct DmabufBufferCallbacks {
    static void destroy_request(wl_client*, wl_resource* resource) noexcept { wl_resource_destroy(resource); }

    static void resource_destroyed(wl_resource* resource) noexcept
    {
        DmabufBuffer* self = DmabufBuffer::from_resource(resource);
        if (!self)
            return;
        self->resource_ = nullptr;
        wl_resource_set_user_data(resource, nullptr);
        // The client let go; the buffer lives on while wlroots still holds locks (e.g. on screen).
        wlr_buffer_drop(self->wlr());
    }

    static void buffer_destroy(wlr_buffer* buffer) noexcept { delete DmabufBuffer::from_wlr(buffer); }

    static bool get_dmabuf(wlr_buffer* buffer, wlr_dmabuf_attributes* out) noexcept
    {
        const auto& a = DmabufBuffer::from_wlr(buffer)->attributes_;
        *out = {};
        out->width = a.width;
        out->height = a.height;
        out->format = a.fourcc;
        out->modifier = a.modifier;
        out->n_planes = static_cast<int>(a.plane_count);
        for (uint32_t i = 0; i < a.plane_count && i < WLR_DMABUF_MAX_PLANES; ++i) {
            out->fd[i] = a.planes[i].fd;
            out->offset[i] = a.planes[i].offset;
            out->stride[i] = a.planes[i].stride;
        }
        return true;
    }

    static bool is_instance(wl_resource* resource) noexcept;
    static wlr_buffer* from_resource(wl_resource* resource) noexcept
    {
        DmabufBuffer* self = DmabufBuffer::from_resource(resource);
        return self ? self->wlr() : nullptr;
    }
};

namespace {

const struct wl_buffer_interface buffer_requests = {DmabufBufferCallbacks::destroy_request};

const wlr_buffer_impl buffer_impl = {
    .destroy = DmabufBufferCallbacks::buffer_destroy,
    .get_dmabuf = DmabufBufferCallbacks::get_dmabuf,
    .get_shm = nullptr,
    .begin_data_ptr_access = nullptr,
    .end_data_ptr_access = nullptr,
};

const wlr_buffer_resource_interface resource_interface = {
    .name = "kiln_dmabuf_buffer",
    .is_instance = DmabufBufferCallbacks::is_instance,
    .from_resource = DmabufBufferCallbacks::from_resource,
};

}  // namespace

bool DmabufBufferCallbacks::is_instance(wl_resource* resource) noexcept
{
    return wl_resource_instance_of(resource, &wl_buffer_interface, &buffer_requests);
}

void DmabufBuffer::register_resource_interface()
{
    static const bool registered = [] {
        wlr_buffer_register_resource_interface(&resource_interface);
        return true;
    }();
    (void)registered;
}

DmabufBuffer* DmabufBuffer::create(wl_client* client, uint32_t id, const renderer::DmabufAttributes& attributes)
{
    auto* self = new DmabufBuffer();
    self->attributes_ = attributes;
    self->resource_ = wl_resource_create(client, &wl_buffer_interface, 1, id);
    if (!self->resource_) {
        wl_client_post_no_memory(client);
        delete self;
        return nullptr;
    }
    wlr_buffer_init(&self->base_.buffer, &buffer_impl, attributes.width, attributes.height);
    self->base_.self = self;
    wl_resource_set_implementation(self->resource_, &buffer_requests, self,
                                   DmabufBufferCallbacks::resource_destroyed);
    // wlroots signals release when the last lock goes: then the client may reuse the buffer.
    self->release_.owner = self;
    self->release_.listener.notify = [](wl_listener* listener, void*) noexcept {
        DmabufBuffer* owner = reinterpret_cast<ReleaseListener*>(listener)->owner;
        if (owner->resource_)
            wl_buffer_send_release(owner->resource_);
    };
    wl_signal_add(&self->base_.buffer.events.release, &self->release_.listener);
    return self;
}

DmabufBuffer::~DmabufBuffer()
{
    if (release_.listener.link.next)
        wl_list_remove(&release_.listener.link);
    for (uint32_t i = 0; i < attributes_.plane_count && i < renderer::max_planes; ++i)
        if (attributes_.planes[i].fd >= 0)
            close(attributes_.planes[i].fd);
}

DmabufBuffer* DmabufBuffer::from_wlr(wlr_buffer* buffer)
{
    return reinterpret_cast<Base*>(buffer)->self;
}

DmabufBuffer* DmabufBuffer::from_resource(wl_resource* resource)
{
    if (!DmabufBufferCallbacks::is_instance(resource))
        return nullptr;
    return static_cast<DmabufBuffer*>(wl_resource_get_user_data(resource));
}

}  // namespace kiln::compositor
