// zwp_linux_dmabuf_v1: the client side of zero-copy. Every description is checked here (planes) and by the
// renderer's validate_dmabuf (fds, sizes, formats) before EGL sees it; a bad one is a protocol error for that
// client alone, except that create (the asynchronous request) answers memory that cannot hold the buffer with
// 'failed'.
#include "compositor/protocols/buffers/linux_dmabuf_v1.hpp"

#include "compositor/protocol_kit/resource_object.hpp"
#include "compositor/protocols/buffers/dmabuf_buffer.hpp"
#include "compositor/bridge/render_bridge.hpp"
#include "compositor/log.hpp"
#include "renderer/dmabuf_validation.hpp"
#include "renderer/formats.hpp"

#include "linux-dmabuf-v1-protocol.h"

#include <drm_fourcc.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <cstring>

namespace kiln::compositor {

struct LinuxDmabufV1::Params {
    LinuxDmabufV1* owner = nullptr;
    renderer::DmabufAttributes attributes;
    std::array<bool, renderer::max_planes> set{};
    bool used = false;
    bool modifier_known = false;

    ~Params()
    {
        for (uint32_t i = 0; i < renderer::max_planes; ++i)
            if (set[i] && attributes.planes[i].fd >= 0)
                close(attributes.planes[i].fd);
    }
};

namespace {

using Params = LinuxDmabufV1::Params;

Params* params_of(wl_resource* resource)
{
    return resource_object<Params>(resource);
}

uint32_t error_code(renderer::DmabufError error)
{
    switch (error) {
    case renderer::DmabufError::incomplete: return ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INCOMPLETE;
    case renderer::DmabufError::invalid_format: return ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_FORMAT;
    case renderer::DmabufError::invalid_dimensions: return ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_DIMENSIONS;
    case renderer::DmabufError::out_of_bounds:
    case renderer::DmabufError::bad_fd: return ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_OUT_OF_BOUNDS;
    case renderer::DmabufError::none: break;
    }
    return ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_WL_BUFFER;
}

const struct zwp_linux_buffer_params_v1_interface params_requests = {
    .destroy = [](wl_client*, wl_resource* resource) noexcept { wl_resource_destroy(resource); },
    .add = [](wl_client*, wl_resource* resource, int32_t fd, uint32_t plane_idx, uint32_t offset, uint32_t stride,
              uint32_t modifier_hi, uint32_t modifier_lo) noexcept {
        Params* p = params_of(resource);
        if (p->used) {
            close(fd);
            wl_resource_post_error(resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_ALREADY_USED,
                                   "params was already used to create a wl_buffer");
            return;
        }
        if (plane_idx >= renderer::max_planes) {
            close(fd);
            wl_resource_post_error(resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_PLANE_IDX,
                                   "plane index %u is not below %u", plane_idx, renderer::max_planes);
            return;
        }
        if (p->set[plane_idx]) {
            close(fd);
            wl_resource_post_error(resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_PLANE_SET, "plane %u was already set",
                                   plane_idx);
            return;
        }
        // Before v3 the modifier fields carry no meaning: the layout is the driver's implicit one.
        const uint64_t modifier = wl_resource_get_version(resource) >= ZWP_LINUX_DMABUF_V1_MODIFIER_SINCE_VERSION
                                      ? (static_cast<uint64_t>(modifier_hi) << 32) | modifier_lo
                                      : DRM_FORMAT_MOD_INVALID;
        if (p->modifier_known && p->attributes.modifier != modifier) {
            close(fd);
            wl_resource_post_error(resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_FORMAT,
                                   "planes of one buffer must share a modifier");
            return;
        }
        p->attributes.modifier = modifier;
        p->modifier_known = true;
        p->set[plane_idx] = true;
        p->attributes.planes[plane_idx] = {fd, offset, stride};
    },
    .create = [](wl_client*, wl_resource* resource, int32_t width, int32_t height, uint32_t format,
                 uint32_t flags) noexcept {
        Params* p = params_of(resource);
        p->owner->create_buffer(*p, resource, 0, width, height, format, flags, false);
    },
    .create_immed = [](wl_client*, wl_resource* resource, uint32_t buffer_id, int32_t width, int32_t height,
                       uint32_t format, uint32_t flags) noexcept {
        Params* p = params_of(resource);
        p->owner->create_buffer(*p, resource, buffer_id, width, height, format, flags, true);
    },
};

const struct zwp_linux_dmabuf_feedback_v1_interface feedback_requests = {
    .destroy = [](wl_client*, wl_resource* resource) noexcept { wl_resource_destroy(resource); },
};

const struct zwp_linux_dmabuf_v1_interface dmabuf_requests = {
    .destroy = [](wl_client*, wl_resource* resource) noexcept { wl_resource_destroy(resource); },
    .create_params = [](wl_client*, wl_resource* resource, uint32_t id) noexcept {
        static_cast<LinuxDmabufV1*>(wl_resource_get_user_data(resource))->create_params(resource, id);
    },
    .get_default_feedback = [](wl_client*, wl_resource* resource, uint32_t id) noexcept {
        static_cast<LinuxDmabufV1*>(wl_resource_get_user_data(resource))->send_feedback(resource, id, nullptr);
    },
    .get_surface_feedback = [](wl_client*, wl_resource* resource, uint32_t id, wl_resource* surface) noexcept {
        static_cast<LinuxDmabufV1*>(wl_resource_get_user_data(resource))
            ->send_feedback(resource, id, wlr_surface_from_resource(surface));
    },
};

}  // namespace

LinuxDmabufV1::LinuxDmabufV1(wl_display* display, RenderBridge& bridge, std::optional<dev_t> main_device,
                             ScanoutFormats scanout_formats)
    : display_(display), bridge_(bridge), main_device_(main_device), scanout_formats_(std::move(scanout_formats))
{
    // The profile's (cached or probed): known before EGL starts.
    formats_ = bridge.egl().profile().dmabuf_formats;
    DmabufBuffer::register_resource_interface();
    if (main_device_ && build_format_table())
        version_ = 5;
    global_ = wl_global_create(display, &zwp_linux_dmabuf_v1_interface, static_cast<int>(version_), this,
                               [](wl_client* client, void* data, uint32_t version, uint32_t id) noexcept {
                                   static_cast<LinuxDmabufV1*>(data)->bind(client, version, id);
                               });
}

LinuxDmabufV1::~LinuxDmabufV1()
{
    if (global_)
        wl_global_destroy(global_);
    if (format_table_fd_ >= 0)
        close(format_table_fd_);
}

bool LinuxDmabufV1::build_format_table()
{
    // One 16-byte entry per format+modifier, in a sealed memfd clients map read-only.
    struct Entry {
        uint32_t format;
        uint32_t pad;
        uint64_t modifier;
    };
    std::vector<Entry> entries;
    for (const auto& fm : formats_)
        entries.push_back({fm.fourcc, 0, fm.modifier});
    format_table_size_ = entries.size() * sizeof(Entry);
    format_table_fd_ = memfd_create("kiln-dmabuf-format-table", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (format_table_fd_ < 0 || entries.empty())
        return false;
    if (write(format_table_fd_, entries.data(), format_table_size_) != static_cast<ssize_t>(format_table_size_))
        return false;
    fcntl(format_table_fd_, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
    return true;
}

void LinuxDmabufV1::bind(wl_client* client, uint32_t version, uint32_t id)
{
    wl_resource* resource = wl_resource_create(client, &zwp_linux_dmabuf_v1_interface, static_cast<int>(version), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    wl_resource_set_implementation(resource, &dmabuf_requests, this, nullptr);
    if (version >= ZWP_LINUX_DMABUF_V1_GET_DEFAULT_FEEDBACK_SINCE_VERSION)
        return;  // v4+: formats come through feedback only
    for (const auto& fm : formats_) {
        if (version >= ZWP_LINUX_DMABUF_V1_MODIFIER_SINCE_VERSION)
            zwp_linux_dmabuf_v1_send_modifier(resource, fm.fourcc, static_cast<uint32_t>(fm.modifier >> 32),
                                              static_cast<uint32_t>(fm.modifier & 0xffffffffu));
        else if (fm.modifier == DRM_FORMAT_MOD_INVALID)
            zwp_linux_dmabuf_v1_send_format(resource, fm.fourcc);
    }
}

void LinuxDmabufV1::create_params(wl_resource* dmabuf, uint32_t id)
{
    create_resource_object<Params>(wl_resource_get_client(dmabuf), &zwp_linux_buffer_params_v1_interface,
                                   wl_resource_get_version(dmabuf), id, &params_requests, this);
}

bool LinuxDmabufV1::validate(const renderer::DmabufAttributes& attributes, uint32_t& code, std::string& error) const
{
    renderer::DmabufCheck check = renderer::validate_dmabuf(attributes, formats_);
    if (!check.ok()) {
        code = error_code(check.error);
        error = check.reason;
        return false;
    }
    return true;
}

void LinuxDmabufV1::create_buffer(Params& params, wl_resource* params_resource, uint32_t buffer_id, int32_t width,
                                  int32_t height, uint32_t format, uint32_t flags, bool immediate)
{
    auto refuse = [&](uint32_t code, const std::string& why) {
        ++requests_refused_;
        wl_resource_post_error(params_resource, code, "%s", why.c_str());
    };
    if (params.used) {
        refuse(ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_ALREADY_USED, "params was already used to create a wl_buffer");
        return;
    }
    params.used = true;
    uint32_t planes = 0;
    while (planes < renderer::max_planes && params.set[planes])
        ++planes;
    for (uint32_t i = planes; i < renderer::max_planes; ++i)
        if (params.set[i]) {
            refuse(ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INCOMPLETE, "plane " + std::to_string(i) + " is set but plane " +
                                                                     std::to_string(planes) + " is missing");
            return;
        }
    if (planes == 0) {
        refuse(ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INCOMPLETE, "no planes were added");
        return;
    }
    if (width <= 0 || height <= 0) {
        refuse(ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_DIMENSIONS,
               "size " + std::to_string(width) + "x" + std::to_string(height) + " is not positive");
        return;
    }
    renderer::DmabufAttributes attributes = params.attributes;
    attributes.width = width;
    attributes.height = height;
    attributes.fourcc = format;
    attributes.plane_count = planes;

    uint32_t code = 0;
    std::string why;
    if (!validate(attributes, code, why)) {
        // create: a buffer kiln cannot take as described (its memory smaller than the layout, or no buffer memory at
        // all) is the 'failed' event, so the client can fall back, as the XML has import failures answered; the
        // other argument errors stay fatal there, and create_immed keeps all of its errors.
        if (!immediate && code == ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_OUT_OF_BOUNDS) {
            ++requests_refused_;
            for (uint32_t i = 0; i < planes; ++i)
                close(params.attributes.planes[i].fd);  // the used params holds no buffer memory any more
            params.set = {};
            log::debug("linux-dmabuf: create failed: %s", why.c_str());
            zwp_linux_buffer_params_v1_send_failed(params_resource);
            return;
        }
        refuse(code, why);
        return;
    }
    // Supported flags: none (y-invert and interlaced buffers are not imported).
    const bool unsupported = flags != 0;

    // The buffer now owns the fds.
    params.set = {};
    wl_client* client = wl_resource_get_client(params_resource);
    DmabufBuffer* buffer = unsupported ? nullptr : DmabufBuffer::create(client, immediate ? buffer_id : 0, attributes);
    std::string import_error;
    if (buffer && !bridge_.textures().import_client_buffer(buffer->wlr(), import_error)) {
        wl_resource_destroy(buffer->resource());
        buffer = nullptr;
    } else if (unsupported) {
        import_error = "buffer flags are not supported";
        for (uint32_t i = 0; i < attributes.plane_count; ++i)
            close(attributes.planes[i].fd);
    }
    if (!buffer) {
        if (immediate)
            refuse(ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_WL_BUFFER, "cannot import the buffer: " + import_error);
        else {
            ++requests_refused_;
            zwp_linux_buffer_params_v1_send_failed(params_resource);
        }
        return;
    }
    ++buffers_created_;
    if (!immediate)
        zwp_linux_buffer_params_v1_send_created(params_resource, buffer->resource());
}

void LinuxDmabufV1::send_feedback(wl_resource* dmabuf, uint32_t id, wlr_surface* surface)
{
    wl_client* client = wl_resource_get_client(dmabuf);
    wl_resource* resource =
        wl_resource_create(client, &zwp_linux_dmabuf_feedback_v1_interface, wl_resource_get_version(dmabuf), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    wl_resource_set_implementation(resource, &feedback_requests, nullptr, nullptr);

    zwp_linux_dmabuf_feedback_v1_send_format_table(resource, format_table_fd_, static_cast<uint32_t>(format_table_size_));
    wl_array device;
    wl_array_init(&device);
    if (auto* slot = static_cast<dev_t*>(wl_array_add(&device, sizeof(dev_t))))
        *slot = *main_device_;
    zwp_linux_dmabuf_feedback_v1_send_main_device(resource, &device);

    auto tranche = [&](const std::vector<uint16_t>& indices, uint32_t tranche_flags) {
        if (indices.empty())
            return;
        wl_array list;
        wl_array_init(&list);
        for (uint16_t index : indices)
            if (auto* slot = static_cast<uint16_t*>(wl_array_add(&list, sizeof index)))
                *slot = index;
        zwp_linux_dmabuf_feedback_v1_send_tranche_target_device(resource, &device);
        zwp_linux_dmabuf_feedback_v1_send_tranche_formats(resource, &list);
        zwp_linux_dmabuf_feedback_v1_send_tranche_flags(resource, tranche_flags);
        zwp_linux_dmabuf_feedback_v1_send_tranche_done(resource);
        wl_array_release(&list);
    };
    // A surface that could go straight to the primary plane first hears the formats that plane takes.
    if (surface && scanout_formats_) {
        if (const wlr_drm_format_set* plane = scanout_formats_()) {
            std::vector<uint16_t> scanout;
            for (size_t i = 0; i < formats_.size(); ++i)
                if (wlr_drm_format_set_has(plane, formats_[i].fourcc, formats_[i].modifier))
                    scanout.push_back(static_cast<uint16_t>(i));
            tranche(scanout, ZWP_LINUX_DMABUF_FEEDBACK_V1_TRANCHE_FLAGS_SCANOUT);
        }
    }
    std::vector<uint16_t> all;
    for (size_t i = 0; i < formats_.size() && i < 65536; ++i)
        all.push_back(static_cast<uint16_t>(i));
    tranche(all, 0);
    zwp_linux_dmabuf_feedback_v1_send_done(resource);
    wl_array_release(&device);
}

}  // namespace kiln::compositor
