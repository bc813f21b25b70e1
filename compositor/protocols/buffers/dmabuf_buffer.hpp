// DmabufBuffer: a client's wl_buffer made from dma-buf planes (by linux-dmabuf or wl_drm), as a wlr_buffer that
// wlroots' surfaces accept and the render bridge imports once.
#pragma once

#include "compositor/wlr.hpp"
#include "renderer/types.hpp"

namespace kiln::compositor {

class DmabufBuffer {
public:
    // Creates wl_buffer `id` for `client` holding `attributes`, whose plane fds it now owns (closed when the buffer
    // dies). nullptr if the resource cannot be made (the fds are closed then too).
    static DmabufBuffer* create(wl_client* client, uint32_t id, const renderer::DmabufAttributes& attributes);
    // Makes wlroots' wlr_buffer_from_resource know kiln's wl_buffers (once per process: wlroots keeps the list).
    static void register_resource_interface();

    wlr_buffer* wlr() { return &base_.buffer; }
    wl_resource* resource() const { return resource_; }
    const renderer::DmabufAttributes& attributes() const { return attributes_; }

private:
    DmabufBuffer() = default;
    ~DmabufBuffer();
    static DmabufBuffer* from_wlr(wlr_buffer* buffer);
    static DmabufBuffer* from_resource(wl_resource* resource);

    // wlroots hands back the wlr_buffer pointer; the wrapper finds its owner from it.
    struct Base {
        wlr_buffer buffer;
        DmabufBuffer* self;
    } base_{};
    wl_resource* resource_ = nullptr;
    renderer::DmabufAttributes attributes_;
    struct ReleaseListener {
        wl_listener listener;  // first, so the wl_listener pointer is the struct's
        DmabufBuffer* owner;
    } release_{};

    friend struct DmabufBufferCallbacks;
};

}  // namespace kiln::compositor
