// Connection set-up, shm helpers, the configure dance for toplevels and popups, and the outcome line.
#include "tests/hostile/hostile_connection.hpp"

#include <cerrno>
#include <poll.h>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

namespace kiln::hostile {

bool flush_all(wl_display* display)
{
    while (wl_display_flush(display) < 0) {
        if (errno != EAGAIN)
            return false;
        pollfd fd{wl_display_get_fd(display), POLLOUT, 0};
        poll(&fd, 1, 1000);
    }
    return true;
}
namespace {

const wl_registry_listener registry_listener = {
    [](void* data, wl_registry* registry, uint32_t name, const char* interface, uint32_t version) {
        auto* c = static_cast<Connection*>(data);
        c->globals[name] = interface;
        auto bind = [&](const wl_interface* iface, uint32_t want) {
            return wl_registry_bind(registry, name, iface, version < want ? version : want);
        };
        if (std::strcmp(interface, wl_compositor_interface.name) == 0)
            c->compositor = static_cast<wl_compositor*>(bind(&wl_compositor_interface, 4));
        else if (std::strcmp(interface, wl_subcompositor_interface.name) == 0)
            c->subcompositor = static_cast<wl_subcompositor*>(bind(&wl_subcompositor_interface, 1));
        else if (std::strcmp(interface, wl_shm_interface.name) == 0)
            c->shm = static_cast<wl_shm*>(bind(&wl_shm_interface, 1));
        else if (std::strcmp(interface, wl_seat_interface.name) == 0)
            c->seat = static_cast<wl_seat*>(bind(&wl_seat_interface, 5));
        else if (std::strcmp(interface, wl_data_device_manager_interface.name) == 0)
            c->data_device_manager = static_cast<wl_data_device_manager*>(bind(&wl_data_device_manager_interface, 3));
        else if (std::strcmp(interface, wp_viewporter_interface.name) == 0)
            c->viewporter = static_cast<wp_viewporter*>(bind(&wp_viewporter_interface, 1));
        else if (std::strcmp(interface, xdg_wm_base_interface.name) == 0)
            c->wm_base = static_cast<xdg_wm_base*>(bind(&xdg_wm_base_interface, 2));
    },
    [](void*, wl_registry*, uint32_t) {},
};

const xdg_wm_base_listener wm_base_listener = {
    [](void*, xdg_wm_base* base, uint32_t serial) { xdg_wm_base_pong(base, serial); },
};

// Every configure is acknowledged at once: the cases misbehave on purpose elsewhere, not here.
const xdg_surface_listener ack_listener = {
    [](void*, xdg_surface* surface, uint32_t serial) { xdg_surface_ack_configure(surface, serial); },
};

const xdg_toplevel_listener toplevel_listener = {
    [](void*, xdg_toplevel*, int32_t, int32_t, wl_array*) {},
    [](void*, xdg_toplevel*) {},
};

const xdg_popup_listener popup_listener = {
    [](void*, xdg_popup*, int32_t, int32_t, int32_t, int32_t) {},
    [](void*, xdg_popup*) {},
};

}  // namespace

Connection::Connection()
{
    // libwayland binds the socket's name before it listens: a client that starts as soon as the name exists may
    // be refused for a moment.
    for (int attempt = 0; attempt < 50 && !display; ++attempt) {
        display = wl_display_connect(nullptr);
        if (!display && errno != ECONNREFUSED)
            break;
        if (!display)
            usleep(20 * 1000);
    }
    if (!display)
        return;
    registry = wl_display_get_registry(display);
    wl_registry_add_listener(registry, &registry_listener, this);
    wl_display_roundtrip(display);
    if (wm_base)
        xdg_wm_base_add_listener(wm_base, &wm_base_listener, nullptr);
}

Connection::~Connection()
{
    if (display)
        wl_display_disconnect(display);
}

Pool Connection::make_pool(int32_t size, int32_t file_size)
{
    Pool pool;
    pool.fd = memfd_create("kiln-hostile", MFD_CLOEXEC);
    pool.size = size;
    if (pool.fd < 0 || ftruncate(pool.fd, file_size < 0 ? size : file_size) != 0)
        return pool;
    pool.pool = wl_shm_create_pool(shm, pool.fd, size);
    return pool;
}

wl_buffer* Connection::make_buffer(int32_t width, int32_t height, uint32_t argb)
{
    const int32_t stride = width * 4;
    Pool pool = make_pool(stride * height);
    if (!pool.pool)
        return nullptr;
    void* memory = mmap(nullptr, static_cast<size_t>(pool.size), PROT_WRITE, MAP_SHARED, pool.fd, 0);
    if (memory != MAP_FAILED) {
        auto* pixels = static_cast<uint32_t*>(memory);
        for (int32_t i = 0; i < width * height; ++i)
            pixels[i] = argb;
        munmap(memory, static_cast<size_t>(pool.size));
    }
    wl_buffer* buffer = wl_shm_pool_create_buffer(pool.pool, 0, width, height, stride, WL_SHM_FORMAT_ARGB8888);
    wl_shm_pool_destroy(pool.pool);
    close(pool.fd);
    return buffer;
}

Toplevel Connection::make_toplevel(bool map, int32_t width, int32_t height)
{
    Toplevel t;
    t.surface = wl_compositor_create_surface(compositor);
    t.xdg = xdg_wm_base_get_xdg_surface(wm_base, t.surface);
    xdg_surface_add_listener(t.xdg, &ack_listener, nullptr);
    t.toplevel = xdg_surface_get_toplevel(t.xdg);
    xdg_toplevel_add_listener(t.toplevel, &toplevel_listener, nullptr);
    wl_surface_commit(t.surface);
    wl_display_roundtrip(display);
    if (map) {
        wl_surface_attach(t.surface, make_buffer(width, height), 0, 0);
        wl_surface_damage(t.surface, 0, 0, width, height);
        wl_surface_commit(t.surface);
    }
    return t;
}

xdg_surface* Connection::make_popup_surface(wl_surface* surface, xdg_surface* parent, xdg_popup** popup_out)
{
    xdg_surface* xdg = xdg_wm_base_get_xdg_surface(wm_base, surface);
    xdg_surface_add_listener(xdg, &ack_listener, nullptr);
    xdg_positioner* positioner = xdg_wm_base_create_positioner(wm_base);
    xdg_positioner_set_size(positioner, 32, 32);
    xdg_positioner_set_anchor_rect(positioner, 8, 8, 1, 1);
    xdg_popup* popup = xdg_surface_get_popup(xdg, parent, positioner);
    xdg_popup_add_listener(popup, &popup_listener, nullptr);
    xdg_positioner_destroy(positioner);
    wl_surface_commit(surface);
    if (popup_out)
        *popup_out = popup;
    return xdg;
}

std::string Connection::outcome(int rounds)
{
    for (int i = 0; i < rounds && wl_display_roundtrip(display) >= 0; ++i) {
    }
    const int error = wl_display_get_error(display);
    if (error == 0)
        return "connected";
    if (error == EPROTO) {
        const wl_interface* interface = nullptr;
        const uint32_t code = wl_display_get_protocol_error(display, &interface, nullptr);
        return std::string("protocol-error ") + (interface ? interface->name : "?") + " " + std::to_string(code);
    }
    return "disconnected " + std::to_string(error);
}

}  // namespace kiln::hostile
