// kiln-drm-lease-client: a client of wp_drm_lease_device_v1 as a VR runtime is: it takes the DRM fd and the
// connectors each lease device offers, leases one, and drives it itself through the lease fd (a dumb buffer
// modeset), printing what the kernel shows through that fd; or it provokes one of the protocol's errors.
#include "clients/unique_fd.hpp"

#include "drm-lease-v1-client-protocol.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace {

using kiln::clients::UniqueFd;

constexpr const char* usage = R"(Usage: kiln-drm-lease-client [--list | --watch]
                            [--lease NAME [--colour RRGGBB] [--end destroy|close]]
                            [--error wrong-device|duplicate-connector|empty-lease NAME]
Binds every wp_drm_lease_device_v1 and prints what each offers ("device D: connector NAME id=ID", "device D: done").
--list: that only. --watch: goes on printing connector events ("device D: withdrawn NAME", new connectors) until a
line on stdin, then releases each device and waits for released ("device D: released"). --lease NAME: leases the
connector NAME, prints the DRM resources the lease fd shows ("lease resources: connectors=ID,... crtcs=ID,..."),
sets a mode on it with a dumb buffer of --colour ("modeset WxH ok"), then waits for a line on stdin and ends the
lease (--end destroy: wp_drm_lease_v1.destroy, the default; close: closes the lease fd, and waits for finished)
and waits until the connector is offered again ("re-offered NAME"). --error: provokes that wp_drm_lease_request_v1
error with connector NAME (wrong-device takes the connector from a second device) and prints "protocol error:
interface=I code=C". Exits 3 when no lease device is offered.
)";

struct Device;

struct Connector {
    Device* device = nullptr;
    wp_drm_lease_connector_v1* object = nullptr;
    std::string name;
    uint32_t id = 0;
    bool withdrawn = false;
};

struct Device {
    int index = 0;
    wp_drm_lease_device_v1* object = nullptr;
    UniqueFd drm_fd;
    std::vector<std::unique_ptr<Connector>> connectors;
    int done = 0;  // how many done events so far
    int* released = nullptr;  // counts released events (--watch)
};

struct Lease {
    UniqueFd fd;
    bool finished = false;
};

struct State {
    wl_registry* registry = nullptr;
    std::vector<std::unique_ptr<Device>> devices;
    int released_count = 0;
};

void connector_name(void* data, wp_drm_lease_connector_v1*, const char* name)
{
    static_cast<Connector*>(data)->name = name;
}

void connector_description(void*, wp_drm_lease_connector_v1*, const char*) {}

void connector_id(void* data, wp_drm_lease_connector_v1*, uint32_t id)
{
    static_cast<Connector*>(data)->id = id;
}

void connector_done(void* data, wp_drm_lease_connector_v1*)
{
    auto* connector = static_cast<Connector*>(data);
    std::printf("device %d: connector %s id=%u\n", connector->device->index, connector->name.c_str(), connector->id);
    std::fflush(stdout);
}

void connector_withdrawn(void* data, wp_drm_lease_connector_v1*)
{
    auto* connector = static_cast<Connector*>(data);
    connector->withdrawn = true;
    std::printf("device %d: withdrawn %s\n", connector->device->index, connector->name.c_str());
    std::fflush(stdout);
}

const wp_drm_lease_connector_v1_listener connector_listener = {
    .name = connector_name,
    .description = connector_description,
    .connector_id = connector_id,
    .done = connector_done,
    .withdrawn = connector_withdrawn,
};

void device_drm_fd(void* data, wp_drm_lease_device_v1*, int32_t fd)
{
    auto* device = static_cast<Device*>(data);
    device->drm_fd = UniqueFd(fd);
    drmVersion* version = drmGetVersion(fd);
    std::printf("device %d: drm_fd driver=%s master=%d\n", device->index, version ? version->name : "?",
                drmIsMaster(fd) ? 1 : 0);
    drmFreeVersion(version);
    std::fflush(stdout);
}

void device_connector(void* data, wp_drm_lease_device_v1*, wp_drm_lease_connector_v1* object)
{
    auto* device = static_cast<Device*>(data);
    auto connector = std::make_unique<Connector>();
    connector->device = device;
    connector->object = object;
    wp_drm_lease_connector_v1_add_listener(object, &connector_listener, connector.get());
    device->connectors.push_back(std::move(connector));
}

void device_done(void* data, wp_drm_lease_device_v1*)
{
    auto* device = static_cast<Device*>(data);
    ++device->done;
    std::printf("device %d: done\n", device->index);
    std::fflush(stdout);
}

void device_released(void* data, wp_drm_lease_device_v1* object)
{
    auto* device = static_cast<Device*>(data);
    std::printf("device %d: released\n", device->index);
    std::fflush(stdout);
    ++*device->released;
    wp_drm_lease_device_v1_destroy(object);  // released is a destructor event: the proxy goes with it
    device->object = nullptr;
}

const wp_drm_lease_device_v1_listener device_listener = {
    .drm_fd = device_drm_fd,
    .connector = device_connector,
    .done = device_done,
    .released = device_released,
};

void lease_fd(void* data, wp_drm_lease_v1*, int32_t fd)
{
    static_cast<Lease*>(data)->fd = UniqueFd(fd);
    std::printf("lease_fd\n");
    std::fflush(stdout);
}

void lease_finished(void* data, wp_drm_lease_v1*)
{
    static_cast<Lease*>(data)->finished = true;
    std::printf("finished\n");
    std::fflush(stdout);
}

const wp_drm_lease_v1_listener lease_listener = {.lease_fd = lease_fd, .finished = lease_finished};

void global(void* data, wl_registry* registry, uint32_t name, const char* interface, uint32_t)
{
    auto* state = static_cast<State*>(data);
    if (std::strcmp(interface, wp_drm_lease_device_v1_interface.name) != 0)
        return;
    auto device = std::make_unique<Device>();
    device->index = static_cast<int>(state->devices.size());
    device->released = &state->released_count;
    device->object = static_cast<wp_drm_lease_device_v1*>(
        wl_registry_bind(registry, name, &wp_drm_lease_device_v1_interface, 1));
    wp_drm_lease_device_v1_add_listener(device->object, &device_listener, device.get());
    state->devices.push_back(std::move(device));
}

void global_remove(void*, wl_registry*, uint32_t) {}

const wl_registry_listener registry_listener = {.global = global, .global_remove = global_remove};

Connector* find(State& state, const std::string& name, int skip_device = -1)
{
    for (const auto& device : state.devices)
        if (device->index != skip_device)
            for (const auto& connector : device->connectors)
                if (connector->name == name && !connector->withdrawn)
                    return connector.get();
    return nullptr;
}

std::string join(const uint32_t* ids, int count)
{
    std::string out;
    for (int i = 0; i < count; ++i)
        out += (i ? "," : "") + std::to_string(ids[i]);
    return out;
}

// What the kernel lets the lessee see, and a modeset of a dumb buffer filled with `colour` on it.
bool drive(int fd, uint32_t colour)
{
    drmModeRes* res = drmModeGetResources(fd);
    if (!res) {
        std::printf("drmModeGetResources on the lease fd failed: %s\n", std::strerror(errno));
        return false;
    }
    std::printf("lease resources: connectors=%s crtcs=%s\n", join(res->connectors, res->count_connectors).c_str(),
                join(res->crtcs, res->count_crtcs).c_str());
    std::fflush(stdout);
    bool ok = false;
    drmModeConnector* connector = res->count_connectors > 0 ? drmModeGetConnector(fd, res->connectors[0]) : nullptr;
    if (connector && connector->count_modes > 0 && res->count_crtcs > 0) {
        drmModeModeInfo mode = connector->modes[0];
        for (int i = 0; i < connector->count_modes; ++i)
            if (connector->modes[i].type & DRM_MODE_TYPE_PREFERRED)
                mode = connector->modes[i];
        drm_mode_create_dumb create{};
        create.width = mode.hdisplay;
        create.height = mode.vdisplay;
        create.bpp = 32;
        uint32_t fb = 0;
        if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &create) == 0) {
            drm_mode_map_dumb map{};
            map.handle = create.handle;
            if (drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &map) == 0) {
                void* pixels = mmap(nullptr, create.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                                    static_cast<off_t>(map.offset));
                if (pixels != MAP_FAILED) {
                    auto* p = static_cast<uint32_t*>(pixels);
                    for (uint64_t i = 0; i < create.size / 4; ++i)
                        p[i] = 0xff000000u | colour;
                    munmap(pixels, create.size);
                }
            }
            if (drmModeAddFB(fd, create.width, create.height, 24, 32, create.pitch, create.handle, &fb) == 0) {
                uint32_t connector_id = connector->connector_id;
                ok = drmModeSetCrtc(fd, res->crtcs[0], fb, 0, 0, &connector_id, 1, &mode) == 0;
                std::printf("modeset %ux%u %s\n", create.width, create.height, ok ? "ok" : std::strerror(errno));
            } else {
                std::printf("drmModeAddFB on the lease fd failed: %s\n", std::strerror(errno));
            }
        } else {
            std::printf("DRM_IOCTL_MODE_CREATE_DUMB on the lease fd failed: %s\n", std::strerror(errno));
        }
    } else {
        std::printf("the lease fd shows no connector with a mode, or no CRTC\n");
    }
    std::fflush(stdout);
    drmModeFreeConnector(connector);
    drmModeFreeResources(res);
    return ok;
}

int dispatch_until(wl_display* display, const std::function<bool()>& done)
{
    while (!done())
        if (wl_display_dispatch(display) < 0)
            return -1;
    return 0;
}

// Dispatches events until a line (or the end) on stdin, or until `stop` says so: 1 for stdin, 0 for stop, -1 when
// the connection failed or poll did.
int dispatch_until_stdin(wl_display* display, const std::function<bool()>& stop)
{
    for (;;) {
        wl_display_flush(display);
        pollfd fds[2] = {{wl_display_get_fd(display), POLLIN, 0}, {STDIN_FILENO, POLLIN, 0}};
        if (poll(fds, 2, -1) < 0 && errno != EINTR)
            return -1;
        if (fds[0].revents & POLLIN && wl_display_dispatch(display) < 0)
            return -1;
        if (fds[1].revents & (POLLIN | POLLHUP))
            return 1;
        if (stop())
            return 0;
    }
}

// `destroyed_interface`: the one object this client has destroyed (submit is a destructor); libwayland knows
// neither its interface nor its id when an error names it ("[destroyed object]").
int report_error(wl_display* display, const char* destroyed_interface = nullptr)
{
    const wl_interface* interface = nullptr;
    uint32_t id = 0;
    const uint32_t code = wl_display_get_protocol_error(display, &interface, &id);
    const char* name = interface ? interface->name : (wl_display_get_error(display) == EPROTO ? destroyed_interface
                                                                                             : nullptr);
    if (!name) {
        std::printf("no protocol error (connection: %s)\n", std::strerror(wl_display_get_error(display)));
        return 1;
    }
    std::printf("protocol error: interface=%s code=%u\n", name, code);
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    std::string lease_name, error_mode, error_name, end_mode = "destroy";
    uint32_t colour = 0x00c0c0;
    bool list = false, watch = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--list")
            list = true;
        else if (arg == "--watch")
            watch = true;
        else if (arg == "--lease" && i + 1 < argc)
            lease_name = argv[++i];
        else if (arg == "--colour" && i + 1 < argc)
            colour = static_cast<uint32_t>(std::strtoul(argv[++i], nullptr, 16));
        else if (arg == "--end" && i + 1 < argc)
            end_mode = argv[++i];
        else if (arg == "--error" && i + 2 < argc) {
            error_mode = argv[++i];
            error_name = argv[++i];
        } else {
            std::fputs(usage, stderr);
            return 2;
        }
    }
    if (!list && !watch && lease_name.empty() && error_mode.empty()) {
        std::fputs(usage, stderr);
        return 2;
    }
    wl_display* display = wl_display_connect(nullptr);
    if (!display) {
        std::fprintf(stderr, "kiln-drm-lease-client: cannot connect to the compositor\n");
        return 1;
    }
    State state;
    state.registry = wl_display_get_registry(display);
    wl_registry_add_listener(state.registry, &registry_listener, &state);
    wl_display_roundtrip(display);
    if (state.devices.empty()) {
        std::printf("no wp_drm_lease_device_v1\n");
        return 3;
    }
    // Every device's first done: its drm_fd and connectors are all here.
    if (dispatch_until(display, [&] {
            for (const auto& device : state.devices)
                if (device->done == 0)
                    return false;
            return true;
        }) < 0)
        return report_error(display), 1;
    if (list)
        return 0;
    if (watch) {
        // Connector events as they come (withdrawn, offered again) until a line on stdin; then release.
        if (dispatch_until_stdin(display, [] { return false; }) < 0)
            return report_error(display), 1;
        for (const auto& device : state.devices)
            wp_drm_lease_device_v1_release(device->object);
        const int devices = static_cast<int>(state.devices.size());
        if (dispatch_until(display, [&] { return state.released_count == devices; }) < 0)
            return report_error(display), 1;
        return 0;
    }

    if (!error_mode.empty()) {
        Connector* connector = find(state, error_name);
        if (!connector) {
            std::printf("no connector %s on offer\n", error_name.c_str());
            return 1;
        }
        Device* device = connector->device;
        if (error_mode == "wrong-device") {
            if (state.devices.size() < 2) {
                std::printf("one lease device only: a connector of another device cannot be named\n");
                return 77;
            }
            device = state.devices[connector->device->index == 0 ? 1 : 0].get();
        }
        wp_drm_lease_request_v1* request = wp_drm_lease_device_v1_create_lease_request(device->object);
        if (error_mode != "empty-lease")
            wp_drm_lease_request_v1_request_connector(request, connector->object);
        if (error_mode == "duplicate-connector")
            wp_drm_lease_request_v1_request_connector(request, connector->object);
        wl_display_roundtrip(display);  // an error of request_connector names the request while it lives
        if (wl_display_get_error(display) == 0)
            wp_drm_lease_request_v1_submit(request);
        for (int i = 0; i < 5 && wl_display_roundtrip(display) >= 0; ++i) {
        }
        return report_error(display, wp_drm_lease_request_v1_interface.name);
    }

    Connector* connector = find(state, lease_name);
    if (!connector) {
        std::printf("no connector %s on offer\n", lease_name.c_str());
        return 1;
    }
    Device* device = connector->device;
    wp_drm_lease_request_v1* request = wp_drm_lease_device_v1_create_lease_request(device->object);
    wp_drm_lease_request_v1_request_connector(request, connector->object);
    Lease lease;
    wp_drm_lease_v1* lease_object = wp_drm_lease_request_v1_submit(request);
    wp_drm_lease_v1_add_listener(lease_object, &lease_listener, &lease);
    if (dispatch_until(display, [&] { return static_cast<bool>(lease.fd) || lease.finished; }) < 0)
        return report_error(display), 1;
    if (!lease.fd) {
        std::printf("lease refused\n");
        return 1;
    }
    wl_display_roundtrip(display);  // the withdrawn events that come with the grant
    const bool driven = drive(lease.fd.get(), colour);
    std::printf("holding the lease; a line on stdin ends it\n");
    std::fflush(stdout);
    // Wait for stdin while dispatching (a finished event may come if kiln revokes the lease meanwhile).
    const int waited = dispatch_until_stdin(display, [&] { return lease.finished; });
    if (waited < 0)
        return report_error(display), 1;
    if (waited == 0) {
        std::printf("the lease was revoked while held\n");
        return 1;
    }
    const size_t offered_before = device->connectors.size();
    const int done_before = device->done;
    if (end_mode == "close") {
        lease.fd.reset();  // the kernel revokes the lease; kiln hears of it and sends finished
        if (dispatch_until(display, [&] { return lease.finished; }) < 0)
            return report_error(display), 1;
        wp_drm_lease_v1_destroy(lease_object);
    } else {
        wp_drm_lease_v1_destroy(lease_object);
    }
    if (dispatch_until(display, [&] {
            if (device->done == done_before)
                return false;
            for (size_t i = offered_before; i < device->connectors.size(); ++i)
                if (device->connectors[i]->name == lease_name && !device->connectors[i]->withdrawn)
                    return true;
            return false;
        }) < 0)
        return report_error(display), 1;
    std::printf("re-offered %s\n", lease_name.c_str());
    std::fflush(stdout);
    wl_display_disconnect(display);
    return driven ? 0 : 1;
}
