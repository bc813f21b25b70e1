// wp_drm_lease_device_v1, wp_drm_lease_connector_v1, wp_drm_lease_request_v1 and wp_drm_lease_v1 on wlroots'
// wlr_drm_create_lease and wlr_drm_lease_terminate.
#include "compositor/protocols/desktop/drm_lease_v1.hpp"

#include "compositor/log.hpp"

#include "drm-lease-v1-protocol.h"

#include <algorithm>
#include <cstdio>
#include <unistd.h>

namespace kiln::compositor {

// One DRM device's global, the clients bound to it and what it offers and has leased.
struct DrmLeaseV1::Device {
    uint64_t* granted = nullptr;  // DrmLeaseV1's count of leases granted
    wlr_backend* drm = nullptr;
    wl_global* global = nullptr;
    std::vector<wl_resource*> resources;  // wp_drm_lease_device_v1 objects not released
    std::list<std::unique_ptr<Connector>> connectors;
    std::list<std::unique_ptr<Request>> requests;
    std::list<std::unique_ptr<Lease>> leases;
    bool offering = true;  // false while kiln's session is away (no DRM master): nothing offered or granted
    wl::Listener backend_destroy;

    void send_done() const
    {
        for (wl_resource* resource : resources)
            wp_drm_lease_device_v1_send_done(resource);
    }
};

// An output on offer: a wp_drm_lease_connector_v1 for it in each client's device while it is free.
struct DrmLeaseV1::Connector {
    Device* device = nullptr;
    wlr_output* output = nullptr;
    Lease* lease = nullptr;  // the lease holding it now
    std::vector<wl_resource*> resources;
    wl::Listener destroy;
};

struct DrmLeaseV1::Request {
    Device* device = nullptr;
    wl_resource* resource = nullptr;
    std::vector<Connector*> connectors;
    bool withdrawn = false;  // it named a connector no longer on offer: the lease is refused (finished)
};

struct DrmLeaseV1::Lease {
    Device* device = nullptr;
    wl_resource* resource = nullptr;  // null once the client destroyed it
    wlr_drm_lease* drm_lease = nullptr;  // null until granted and once ended
    std::vector<Connector*> connectors;
    wl::Listener ended;
};

namespace {

using Device = DrmLeaseV1::Device;
using Connector = DrmLeaseV1::Connector;
using Request = DrmLeaseV1::Request;
using Lease = DrmLeaseV1::Lease;

template <typename T>
void erase_object(std::list<std::unique_ptr<T>>& list, const T* object)
{
    list.remove_if([object](const auto& o) { return o.get() == object; });
}

const struct wp_drm_lease_connector_v1_interface connector_requests = {
    .destroy = [](wl_client*, wl_resource* resource) noexcept { wl_resource_destroy(resource); },
};

// Sends `connector` to one client's device as a new wp_drm_lease_connector_v1 with its name, description and id.
void send_connector(Connector& connector, wl_resource* device_resource)
{
    wl_resource* resource = wl_resource_create(wl_resource_get_client(device_resource),
                                               &wp_drm_lease_connector_v1_interface,
                                               wl_resource_get_version(device_resource), 0);
    if (!resource) {
        wl_resource_post_no_memory(device_resource);
        return;
    }
    wl_resource_set_implementation(resource, &connector_requests, &connector, [](wl_resource* resource) noexcept {
        if (auto* connector = static_cast<Connector*>(wl_resource_get_user_data(resource)))
            std::erase(connector->resources, resource);
    });
    connector.resources.push_back(resource);
    wlr_output* output = connector.output;
    wp_drm_lease_device_v1_send_connector(device_resource, resource);
    wp_drm_lease_connector_v1_send_name(resource, output->name);
    wp_drm_lease_connector_v1_send_description(resource, output->description ? output->description : output->name);
    wp_drm_lease_connector_v1_send_connector_id(resource, wlr_drm_connector_get_id(output));
    wp_drm_lease_connector_v1_send_done(resource);
}

// Takes `connector` off every client's offer (its objects go inert); the caller sends the devices' done.
void withdraw(Connector& connector)
{
    for (wl_resource* resource : connector.resources) {
        wp_drm_lease_connector_v1_send_withdrawn(resource);
        wl_resource_set_user_data(resource, nullptr);
    }
    connector.resources.clear();
}

// The lease has ended (its client destroyed it, or closed the lease fd and the kernel revoked it, or a connector
// went away): its client hears finished, and its connectors still here are offered again.
void lease_ended(Lease& lease)
{
    lease.ended.disconnect();
    lease.drm_lease = nullptr;
    if (lease.resource)
        wp_drm_lease_v1_send_finished(lease.resource);
    Device& device = *lease.device;
    bool offered = false;
    for (Connector* connector : lease.connectors) {
        connector->lease = nullptr;
        if (!device.offering)
            continue;
        for (wl_resource* resource : device.resources)
            send_connector(*connector, resource);
        offered = true;
    }
    lease.connectors.clear();
    if (offered)
        device.send_done();
}

const struct wp_drm_lease_v1_interface lease_requests = {
    .destroy = [](wl_client*, wl_resource* resource) noexcept { wl_resource_destroy(resource); },
};

void lease_resource_destroyed(wl_resource* resource) noexcept
{
    auto* lease = static_cast<Lease*>(wl_resource_get_user_data(resource));
    if (!lease)
        return;
    lease->resource = nullptr;
    if (lease->drm_lease)
        wlr_drm_lease_terminate(lease->drm_lease);  // its destroy signal runs lease_ended()
    erase_object(lease->device->leases, lease);
}

// Grants what the request names if every connector is still on offer and free; finished otherwise.
void grant(Lease& lease, const Request& request)
{
    std::vector<wlr_output*> outputs;
    bool available = !request.withdrawn && lease.device->offering;
    for (Connector* connector : request.connectors) {
        available = available && !connector->lease;
        outputs.push_back(connector->output);
    }
    int fd = -1;
    wlr_drm_lease* drm_lease = available ? wlr_drm_create_lease(outputs.data(), outputs.size(), &fd) : nullptr;
    if (!drm_lease) {
        if (available)
            log::error("a DRM lease of %zu connector(s) was refused by the kernel or wlroots",
                       outputs.size());
        wp_drm_lease_v1_send_finished(lease.resource);
        return;
    }
    ++*lease.device->granted;
    lease.drm_lease = drm_lease;
    lease.connectors = request.connectors;
    Lease* raw = &lease;
    lease.ended.connect(&drm_lease->events.destroy, [raw](void*) { lease_ended(*raw); });
    for (Connector* connector : lease.connectors) {
        connector->lease = &lease;
        withdraw(*connector);
    }
    lease.device->send_done();
    wp_drm_lease_v1_send_lease_fd(lease.resource, fd);
    close(fd);  // the client has its own copy now; the lease lives until it closes that or kiln revokes it
}

void request_connector(wl_client*, wl_resource* resource, wl_resource* connector_resource) noexcept
{
    auto* request = static_cast<Request*>(wl_resource_get_user_data(resource));
    auto* connector = static_cast<Connector*>(wl_resource_get_user_data(connector_resource));
    if (!request)
        return;
    if (!connector) {
        request->withdrawn = true;  // withdrawn since it was offered: the lease will be refused
        return;
    }
    if (connector->device != request->device) {
        wl_resource_post_error(resource, WP_DRM_LEASE_REQUEST_V1_ERROR_WRONG_DEVICE,
                               "connector %s belongs to another DRM lease device", connector->output->name);
        return;
    }
    if (std::find(request->connectors.begin(), request->connectors.end(), connector) != request->connectors.end()) {
        wl_resource_post_error(resource, WP_DRM_LEASE_REQUEST_V1_ERROR_DUPLICATE_CONNECTOR,
                               "connector %s is in this lease request already", connector->output->name);
        return;
    }
    request->connectors.push_back(connector);
}

void submit(wl_client* client, wl_resource* resource, uint32_t id) noexcept
{
    auto* request = static_cast<Request*>(wl_resource_get_user_data(resource));
    if (request && request->connectors.empty() && !request->withdrawn) {
        wl_resource_post_error(resource, WP_DRM_LEASE_REQUEST_V1_ERROR_EMPTY_LEASE,
                               "a lease request must name a connector");
        return;
    }
    wl_resource* lease_resource =
        wl_resource_create(client, &wp_drm_lease_v1_interface, wl_resource_get_version(resource), id);
    if (!lease_resource) {
        wl_client_post_no_memory(client);
        return;
    }
    if (!request) {  // kiln is shutting down: nothing to lease
        wl_resource_set_implementation(lease_resource, &lease_requests, nullptr, nullptr);
        wp_drm_lease_v1_send_finished(lease_resource);
        wl_resource_destroy(resource);
        return;
    }
    Device& device = *request->device;
    auto lease = std::make_unique<Lease>();
    lease->device = &device;
    lease->resource = lease_resource;
    wl_resource_set_implementation(lease_resource, &lease_requests, lease.get(), lease_resource_destroyed);
    Lease& raw = *device.leases.emplace_back(std::move(lease));
    grant(raw, *request);
    wl_resource_destroy(resource);  // submit is the request's destructor
}

const struct wp_drm_lease_request_v1_interface request_requests = {
    .request_connector = request_connector,
    .submit = submit,
};

void create_lease_request(wl_client* client, wl_resource* resource, uint32_t id) noexcept
{
    auto* device = static_cast<Device*>(wl_resource_get_user_data(resource));
    wl_resource* request_resource =
        wl_resource_create(client, &wp_drm_lease_request_v1_interface, wl_resource_get_version(resource), id);
    if (!request_resource) {
        wl_client_post_no_memory(client);
        return;
    }
    Request* raw = nullptr;
    if (device) {
        auto request = std::make_unique<Request>();
        request->device = device;
        request->resource = request_resource;
        raw = device->requests.emplace_back(std::move(request)).get();
    }
    wl_resource_set_implementation(request_resource, &request_requests, raw, [](wl_resource* resource) noexcept {
        if (auto* request = static_cast<Request*>(wl_resource_get_user_data(resource)))
            erase_object(request->device->requests, request);
    });
}

void device_resource_destroyed(wl_resource* resource) noexcept
{
    if (auto* device = static_cast<Device*>(wl_resource_get_user_data(resource)))
        std::erase(device->resources, resource);
}

void release(wl_client*, wl_resource* resource) noexcept
{
    device_resource_destroyed(resource);  // no connector event after released
    wl_resource_set_user_data(resource, nullptr);
    wp_drm_lease_device_v1_send_released(resource);
    wl_resource_destroy(resource);
}

const struct wp_drm_lease_device_v1_interface device_requests = {
    .create_lease_request = create_lease_request,
    .release = release,
};

void bind_device(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
{
    auto* device = static_cast<Device*>(data);
    wl_resource* resource =
        wl_resource_create(client, &wp_drm_lease_device_v1_interface, static_cast<int>(version), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    wl_resource_set_implementation(resource, &device_requests, device, device_resource_destroyed);
    // A non-master fd of the device, for the client to look at its connectors; never authenticated.
    const int fd = wlr_drm_backend_get_non_master_fd(device->drm);
    if (fd < 0) {
        log::error("drm-lease: cannot open a non-master fd of the DRM device for a client");
        wl_resource_post_no_memory(resource);
        return;
    }
    wp_drm_lease_device_v1_send_drm_fd(resource, fd);
    close(fd);
    device->resources.push_back(resource);
    for (const auto& connector : device->connectors)
        if (!connector->lease && device->offering)
            send_connector(*connector, resource);
    wp_drm_lease_device_v1_send_done(resource);
}

// Every object of `device`'s clients goes inert (kiln or the device is going away).
void detach(Device& device)
{
    for (wl_resource* resource : device.resources)
        wl_resource_set_user_data(resource, nullptr);
    device.resources.clear();
    for (const auto& connector : device.connectors) {
        connector->destroy.disconnect();
        for (wl_resource* resource : connector->resources)
            wl_resource_set_user_data(resource, nullptr);
    }
    for (const auto& request : device.requests)
        wl_resource_set_user_data(request->resource, nullptr);
    for (const auto& lease : device.leases) {
        lease->ended.disconnect();
        if (lease->resource)
            wl_resource_set_user_data(lease->resource, nullptr);
    }
}

// kiln's session went away or came back. Going, kiln is still DRM master while the signal runs (wlroots lets go
// after it), so the leases can be revoked then; they would otherwise outlive kiln's hold on the device.
void set_offering(Device& device, bool offering)
{
    if (device.offering == offering)
        return;
    device.offering = offering;
    if (!offering) {
        std::vector<wlr_drm_lease*> held;
        for (const auto& lease : device.leases)
            if (lease->drm_lease)
                held.push_back(lease->drm_lease);
        for (wlr_drm_lease* drm_lease : held)
            wlr_drm_lease_terminate(drm_lease);  // lease_ended(): finished, nothing offered meanwhile
        for (const auto& connector : device.connectors)
            withdraw(*connector);
        for (const auto& request : device.requests)
            request->withdrawn = true;  // named before the switch: refused
    } else {
        for (const auto& connector : device.connectors)
            if (!connector->lease)
                for (wl_resource* resource : device.resources)
                    send_connector(*connector, resource);
    }
    device.send_done();
}

}  // namespace

DrmLeaseV1::DrmLeaseV1(wl_display* display, wlr_backend* backend)
{
    auto add = [this, display](wlr_backend* candidate) {
        if (!wlr_backend_is_drm(candidate))
            return;
        auto device = std::make_unique<Device>();
        device->granted = &leases_granted_;
        device->drm = candidate;
        device->global = wl_global_create(display, &wp_drm_lease_device_v1_interface, 1, device.get(), bind_device);
        Device* raw = device.get();
        device->backend_destroy.connect(&candidate->events.destroy, [this, raw](void*) {
            detach(*raw);
            wl_global_destroy(raw->global);
            erase_object(devices_, static_cast<const Device*>(raw));  // last: this listener goes with it
        });
        devices_.push_back(std::move(device));
    };
    if (wlr_backend_is_multi(backend)) {
        wlr_multi_for_each_backend(
            backend,
            [](wlr_backend* child, void* data) noexcept {
                (*static_cast<decltype(add)*>(data))(child);
            },
            &add);
    } else {
        add(backend);
    }
    wlr_session* session = wlr_backend_get_session(backend);
    if (!session || devices_.empty())
        return;
    session_active_.connect(&session->events.active, [this, session](void*) {
        for (const auto& device : devices_)
            set_offering(*device, session->active);
    });
}

DrmLeaseV1::~DrmLeaseV1()
{
    for (const auto& device : devices_) {
        // Leases outlive kiln only as long as its DRM master fd: the kernel revokes them when that closes.
        std::vector<wlr_drm_lease*> active;
        for (const auto& lease : device->leases)
            if (lease->drm_lease)
                active.push_back(lease->drm_lease);
        detach(*device);
        for (wlr_drm_lease* drm_lease : active)
            wlr_drm_lease_terminate(drm_lease);
        wl_global_destroy(device->global);
    }
}

bool DrmLeaseV1::offer(wlr_output* output)
{
    if (!wlr_output_is_drm(output))
        return false;
    auto found = std::find_if(devices_.begin(), devices_.end(),
                              [output](const auto& device) { return device->drm == output->backend; });
    if (found == devices_.end())
        return false;
    Device& device = **found;
    for (const auto& connector : device.connectors)
        if (connector->output == output)
            return true;
    auto connector = std::make_unique<Connector>();
    connector->device = &device;
    connector->output = output;
    Connector* raw = connector.get();
    // Unplugged: off every offer; a lease holding it ends (its client hears finished), the requests naming it fail.
    connector->destroy.connect(&output->events.destroy, [raw](void*) {
        Device& device = *raw->device;
        if (Lease* lease = raw->lease) {
            std::erase(lease->connectors, raw);
            raw->lease = nullptr;
            if (lease->drm_lease)
                wlr_drm_lease_terminate(lease->drm_lease);  // lease_ended() offers the rest of it again
        }
        withdraw(*raw);
        device.send_done();
        for (const auto& request : device.requests) {
            if (std::erase(request->connectors, raw) > 0)
                request->withdrawn = true;
        }
        erase_object(device.connectors, static_cast<const Connector*>(raw));  // last: this listener goes with it
    });
    device.connectors.push_back(std::move(connector));
    if (!device.offering)
        return true;  // offered once kiln's session is back
    for (wl_resource* resource : device.resources)
        send_connector(*raw, resource);
    device.send_done();
    return true;
}

std::vector<const wl_global*> DrmLeaseV1::globals() const
{
    std::vector<const wl_global*> globals;
    for (const auto& device : devices_)
        globals.push_back(device->global);
    return globals;
}

}  // namespace kiln::compositor
