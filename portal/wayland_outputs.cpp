// WaylandOutputs: binds kiln's shm, xdg-output and ext-image-copy-capture globals and names every wl_output.
#include "wayland_outputs.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <wayland-client.h>

#include "ext-image-capture-source-v1-client-protocol.h"
#include "ext-foreign-toplevel-list-v1-client-protocol.h"
#include "ext-image-copy-capture-v1-client-protocol.h"
#include "linux-dmabuf-v1-client-protocol.h"
#include "xdg-output-unstable-v1-client-protocol.h"

namespace portal {

namespace {

void output_geometry(void*, wl_output*, int32_t, int32_t, int32_t, int32_t, int32_t, const char*, const char*,
                     int32_t) noexcept {}
void output_mode(void* data, wl_output*, uint32_t flags, int32_t width, int32_t height, int32_t) noexcept {
    auto* output = static_cast<Output*>(data);
    if ((flags & WL_OUTPUT_MODE_CURRENT) && output->width == 0) {
        output->width = width;
        output->height = height;
    }
}
void output_done(void*, wl_output*) noexcept {}
void output_scale(void*, wl_output*, int32_t) noexcept {}
void output_name(void* data, wl_output*, const char* name) noexcept {
    auto* output = static_cast<Output*>(data);
    if (output->name.empty())
        output->name = name;
}
void output_description(void*, wl_output*, const char*) noexcept {}
const wl_output_listener output_listener = {output_geometry, output_mode, output_done, output_scale, output_name,
                                            output_description};

void xdg_position(void* data, zxdg_output_v1*, int32_t x, int32_t y) noexcept {
    auto* output = static_cast<Output*>(data);
    output->x = x;
    output->y = y;
}
void xdg_size(void* data, zxdg_output_v1*, int32_t width, int32_t height) noexcept {
    auto* output = static_cast<Output*>(data);
    output->width = width;
    output->height = height;
}
void xdg_done(void*, zxdg_output_v1*) noexcept {}
void xdg_name(void* data, zxdg_output_v1*, const char* name) noexcept { static_cast<Output*>(data)->name = name; }
void xdg_description(void*, zxdg_output_v1*, const char*) noexcept {}
const zxdg_output_v1_listener xdg_output_listener = {xdg_position, xdg_size, xdg_done, xdg_name, xdg_description};

}  // namespace

Output::~Output() {
    if (xdg_output)
        zxdg_output_v1_destroy(xdg_output);
    if (output)
        wl_output_release(output);
}

WaylandOutputs::WaylandOutputs() {
    display_ = wl_display_connect(nullptr);
    if (!display_)
        return;
    registry_ = wl_display_get_registry(display_);
    static const wl_registry_listener listener = {on_global, on_global_remove};
    wl_registry_add_listener(registry_, &listener, this);
    wl_display_roundtrip(display_);  // the globals
    wl_display_roundtrip(display_);  // the outputs' modes and names, the windows' titles
}

WaylandOutputs::~WaylandOutputs() {
    outputs_.clear();
    windows_.release();
    if (pointer_)
        wl_pointer_release(pointer_);
    if (seat_)
        wl_seat_release(seat_);
    if (toplevel_sources_)
        ext_foreign_toplevel_image_capture_source_manager_v1_destroy(toplevel_sources_);
    if (copy_capture_)
        ext_image_copy_capture_manager_v1_destroy(copy_capture_);
    if (linux_dmabuf_)
        zwp_linux_dmabuf_v1_destroy(linux_dmabuf_);
    if (output_sources_)
        ext_output_image_capture_source_manager_v1_destroy(output_sources_);
    if (xdg_outputs_)
        zxdg_output_manager_v1_destroy(xdg_outputs_);
    if (shm_)
        wl_shm_destroy(shm_);
    if (registry_)
        wl_registry_destroy(registry_);
    if (display_)
        wl_display_disconnect(display_);
}

std::string WaylandOutputs::missing() const {
    if (!display_)
        return "no Wayland display (WAYLAND_DISPLAY)";
    if (!shm_)
        return "wl_shm";
    if (!output_sources_)
        return "ext_output_image_capture_source_manager_v1";
    if (!copy_capture_)
        return "ext_image_copy_capture_manager_v1";
    return {};
}

wl_pointer* WaylandOutputs::pointer() {
    // No listener: the portal has no surfaces, so kiln sends this pointer nothing it needs.
    if (!pointer_ && seat_)
        pointer_ = wl_seat_get_pointer(seat_);
    return pointer_;
}

int WaylandOutputs::fd() const { return display_ ? wl_display_get_fd(display_) : -1; }

bool WaylandOutputs::dispatch() {
    if (wl_display_dispatch(display_) < 0)
        return false;
    flush();
    return true;
}

void WaylandOutputs::flush() {
    if (display_)
        wl_display_flush(display_);
}

const Output* WaylandOutputs::choose(const std::string& name) const {
    if (outputs_.empty())
        return nullptr;
    for (const auto& output : outputs_)
        if (!name.empty() && output->name == name)
            return output.get();
    return outputs_.front().get();
}

std::vector<const Output*> WaylandOutputs::all() const {
    std::vector<const Output*> list;
    for (const auto& output : outputs_)
        list.push_back(output.get());
    return list;
}

const Output* WaylandOutputs::named(const std::string& name) const {
    for (const auto& output : outputs_)
        if (output->name == name)
            return output.get();
    return nullptr;
}

const Output* WaylandOutputs::find(const wl_output* wanted) const {
    for (const auto& output : outputs_)
        if (output->output == wanted)
            return output.get();
    return nullptr;
}

void WaylandOutputs::watch_output(Output& output) {
    if (xdg_outputs_ && !output.xdg_output) {
        output.xdg_output = zxdg_output_manager_v1_get_xdg_output(xdg_outputs_, output.output);
        zxdg_output_v1_add_listener(output.xdg_output, &xdg_output_listener, &output);
    }
}

void WaylandOutputs::on_global(void* data, wl_registry* registry, uint32_t name, const char* interface,
                               uint32_t version) noexcept {
    auto* self = static_cast<WaylandOutputs*>(data);
    if (std::strcmp(interface, wl_shm_interface.name) == 0) {
        self->shm_ = static_cast<wl_shm*>(wl_registry_bind(registry, name, &wl_shm_interface, 1));
    } else if (std::strcmp(interface, zxdg_output_manager_v1_interface.name) == 0 && version >= 2) {
        self->xdg_outputs_ = static_cast<zxdg_output_manager_v1*>(
            wl_registry_bind(registry, name, &zxdg_output_manager_v1_interface, std::min(version, 3u)));
        for (auto& output : self->outputs_)
            self->watch_output(*output);
    } else if (std::strcmp(interface, zwp_linux_dmabuf_v1_interface.name) == 0 && version >= 3) {
        // v3: create_immed and explicit modifiers, all a dma-buf frame needs.
        self->linux_dmabuf_ = static_cast<zwp_linux_dmabuf_v1*>(
            wl_registry_bind(registry, name, &zwp_linux_dmabuf_v1_interface, 3));
    } else if (std::strcmp(interface, ext_output_image_capture_source_manager_v1_interface.name) == 0) {
        self->output_sources_ = static_cast<ext_output_image_capture_source_manager_v1*>(
            wl_registry_bind(registry, name, &ext_output_image_capture_source_manager_v1_interface, 1));
    } else if (std::strcmp(interface, ext_foreign_toplevel_image_capture_source_manager_v1_interface.name) == 0) {
        self->toplevel_sources_ = static_cast<ext_foreign_toplevel_image_capture_source_manager_v1*>(
            wl_registry_bind(registry, name, &ext_foreign_toplevel_image_capture_source_manager_v1_interface, 1));
    } else if (std::strcmp(interface, ext_foreign_toplevel_list_v1_interface.name) == 0) {
        self->windows_.bind(registry, name);
    } else if (std::strcmp(interface, ext_image_copy_capture_manager_v1_interface.name) == 0) {
        self->copy_capture_ = static_cast<ext_image_copy_capture_manager_v1*>(
            wl_registry_bind(registry, name, &ext_image_copy_capture_manager_v1_interface, 1));
    } else if (std::strcmp(interface, wl_seat_interface.name) == 0 && version >= 5 && !self->seat_) {
        self->seat_ = static_cast<wl_seat*>(wl_registry_bind(registry, name, &wl_seat_interface, 5));
    } else if (std::strcmp(interface, wl_output_interface.name) == 0 && version >= 3) {
        auto output = std::make_unique<Output>();
        output->global_name = name;
        output->output = static_cast<wl_output*>(
            wl_registry_bind(registry, name, &wl_output_interface, std::min(version, 4u)));
        wl_output_add_listener(output->output, &output_listener, output.get());
        self->watch_output(*output);
        self->outputs_.push_back(std::move(output));
    }
}

void WaylandOutputs::on_global_remove(void* data, wl_registry*, uint32_t name) noexcept {
    auto* self = static_cast<WaylandOutputs*>(data);
    std::erase_if(self->outputs_, [name](const auto& output) { return output->global_name == name; });
}

}  // namespace portal
