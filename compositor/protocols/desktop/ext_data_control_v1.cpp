// ext_data_control_v1: sources (a client's data as the seat's selection or primary selection, through wlroots'
// source interfaces), devices (the seat's selections sent as offers as they change) and offers (reads from
// whichever client holds the selection).
#include "compositor/protocols/desktop/ext_data_control_v1.hpp"

#include "ext-data-control-v1-protocol.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

namespace kiln::compositor {

struct ExtControlDataSource;
struct ExtControlPrimarySource;

// An ext_data_control_source_v1; once given to set_selection or set_primary_selection it is the client side of a
// wlroots source (`data` or `primary`) until that source is replaced.
struct ExtDataControlV1::Source {
    wl_resource* resource = nullptr;
    std::vector<std::string> mime_types;
    bool used = false;
    ExtControlDataSource* data = nullptr;
    ExtControlPrimarySource* primary = nullptr;
};

// wlroots' side of a source: what the seat holds as its selection or primary selection.
struct ExtControlDataSource {
    wlr_data_source base;  // first: wlroots hands this pointer back
    ExtDataControlV1::Source* control = nullptr;  // null once the client destroyed its source
};

struct ExtControlPrimarySource {
    wlr_primary_selection_source base;  // first
    ExtDataControlV1::Source* control = nullptr;
};

// An ext_data_control_device_v1 on the seat: an offer for each selection as it changes.
struct ExtDataControlV1::Device {
    wl_resource* resource = nullptr;
    wlr_seat* seat = nullptr;                // null once the seat is gone (finished)
    wl_resource* selection_offer = nullptr;  // the current ones; older offers are inert
    wl_resource* primary_offer = nullptr;
    wl_listener set_selection{};
    wl_listener set_primary_selection{};
    wl_listener seat_destroy{};

    void send_selection(bool primary);
    void retire_offer(bool primary);
    void forget_seat();
};

namespace {

using Source = ExtDataControlV1::Source;
using Device = ExtDataControlV1::Device;

void fill_mime_types(wl_array* array, const std::vector<std::string>& types)
{
    for (const std::string& type : types) {
        char* copy = strdup(type.c_str());
        auto** slot = copy ? static_cast<char**>(wl_array_add(array, sizeof(char*))) : nullptr;
        if (!slot) {
            std::free(copy);
            continue;
        }
        *slot = copy;
    }
}

void send_to_client(Source* control, const char* mime_type, int fd)
{
    if (control)
        ext_data_control_source_v1_send_send(control->resource, mime_type, fd);
    close(fd);  // libwayland sent a duplicate
}

const wlr_data_source_impl data_source_impl = {
    .send = [](wlr_data_source* base, const char* mime_type, int32_t fd) noexcept {
        send_to_client(reinterpret_cast<ExtControlDataSource*>(base)->control, mime_type, fd);
    },
    .accept = nullptr,
    .destroy = [](wlr_data_source* base) noexcept {
        // Replaced as the selection: the client's source is told, once, and is spent.
        auto* self = reinterpret_cast<ExtControlDataSource*>(base);
        if (self->control) {
            self->control->data = nullptr;
            ext_data_control_source_v1_send_cancelled(self->control->resource);
        }
        delete self;
    },
    .dnd_drop = nullptr,
    .dnd_finish = nullptr,
    .dnd_action = nullptr,
};

const wlr_primary_selection_source_impl primary_source_impl = {
    .send = [](wlr_primary_selection_source* base, const char* mime_type, int fd) noexcept {
        send_to_client(reinterpret_cast<ExtControlPrimarySource*>(base)->control, mime_type, fd);
    },
    .destroy = [](wlr_primary_selection_source* base) noexcept {
        auto* self = reinterpret_cast<ExtControlPrimarySource*>(base);
        if (self->control) {
            self->control->primary = nullptr;
            ext_data_control_source_v1_send_cancelled(self->control->resource);
        }
        delete self;
    },
};

Source* source_from(wl_resource* resource)
{
    return static_cast<Source*>(wl_resource_get_user_data(resource));
}

Device* device_from(wl_resource* resource)
{
    return static_cast<Device*>(wl_resource_get_user_data(resource));
}

void destroy_request(wl_client*, wl_resource* resource) noexcept
{
    wl_resource_destroy(resource);
}

const struct ext_data_control_source_v1_interface source_requests = {
    .offer = [](wl_client*, wl_resource* resource, const char* mime_type) noexcept {
        Source* source = source_from(resource);
        if (source->used) {
            wl_resource_post_error(resource, EXT_DATA_CONTROL_SOURCE_V1_ERROR_INVALID_OFFER,
                                   "offer after the source was set as a selection");
            return;
        }
        source->mime_types.emplace_back(mime_type);
    },
    .destroy = destroy_request,
};

void source_destroyed(wl_resource* resource) noexcept
{
    Source* source = source_from(resource);
    // The seat drops a selection whose source goes (its destroy listener), and devices hear it.
    if (ExtControlDataSource* data = source->data) {
        data->control = nullptr;
        wlr_data_source_destroy(&data->base);
    }
    if (ExtControlPrimarySource* primary = source->primary) {
        primary->control = nullptr;
        wlr_primary_selection_source_destroy(&primary->base);
    }
    delete source;
}

// An offer's user data is its device while it is that device's current offer; null once replaced (inert).
void receive(wl_resource* offer, const char* mime_type, int32_t fd, bool primary)
{
    Device* device = device_from(offer);
    wlr_seat* seat = device ? device->seat : nullptr;
    if (!seat) {
        close(fd);
        return;
    }
    // wlroots' sources close the fd once sent.
    if (primary && seat->primary_selection_source)
        wlr_primary_selection_source_send(seat->primary_selection_source, mime_type, fd);
    else if (!primary && seat->selection_source)
        wlr_data_source_send(seat->selection_source, mime_type, fd);
    else
        close(fd);
}

const struct ext_data_control_offer_v1_interface selection_offer_requests = {
    .receive = [](wl_client*, wl_resource* offer, const char* mime_type, int32_t fd) noexcept {
        receive(offer, mime_type, fd, false);
    },
    .destroy = destroy_request,
};

const struct ext_data_control_offer_v1_interface primary_offer_requests = {
    .receive = [](wl_client*, wl_resource* offer, const char* mime_type, int32_t fd) noexcept {
        receive(offer, mime_type, fd, true);
    },
    .destroy = destroy_request,
};

void offer_destroyed(wl_resource* offer) noexcept
{
    if (Device* device = device_from(offer)) {
        if (device->selection_offer == offer)
            device->selection_offer = nullptr;
        if (device->primary_offer == offer)
            device->primary_offer = nullptr;
    }
}

void set_source(wl_resource* device_resource, wl_resource* source_resource, bool primary)
{
    Device* device = device_from(device_resource);
    Source* source = source_resource ? source_from(source_resource) : nullptr;
    if (source && source->used) {
        wl_resource_post_error(device_resource, EXT_DATA_CONTROL_DEVICE_V1_ERROR_USED_SOURCE,
                               "the source was set as a selection before");
        return;
    }
    if (source)
        source->used = true;
    if (!device->seat)
        return;  // finished: nothing to set, the source is spent all the same
    wl_display* display = wl_client_get_display(wl_resource_get_client(device_resource));
    const uint32_t serial = wl_display_next_serial(display);
    if (primary) {
        ExtControlPrimarySource* wlr_source = nullptr;
        if (source) {
            wlr_source = new ExtControlPrimarySource();
            wlr_primary_selection_source_init(&wlr_source->base, &primary_source_impl);
            fill_mime_types(&wlr_source->base.mime_types, source->mime_types);
            wlr_source->control = source;
            source->primary = wlr_source;
        }
        wlr_seat_set_primary_selection(device->seat, wlr_source ? &wlr_source->base : nullptr, serial);
    } else {
        ExtControlDataSource* wlr_source = nullptr;
        if (source) {
            wlr_source = new ExtControlDataSource();
            wlr_data_source_init(&wlr_source->base, &data_source_impl);
            fill_mime_types(&wlr_source->base.mime_types, source->mime_types);
            wlr_source->control = source;
            source->data = wlr_source;
        }
        wlr_seat_set_selection(device->seat, wlr_source ? &wlr_source->base : nullptr, serial);
    }
}

const struct ext_data_control_device_v1_interface device_requests = {
    .set_selection = [](wl_client*, wl_resource* device, wl_resource* source) noexcept {
        set_source(device, source, false);
    },
    .destroy = destroy_request,
    .set_primary_selection = [](wl_client*, wl_resource* device, wl_resource* source) noexcept {
        set_source(device, source, true);
    },
};

}  // namespace

void ExtDataControlV1::Device::retire_offer(bool primary)
{
    wl_resource*& offer = primary ? primary_offer : selection_offer;
    if (offer)
        wl_resource_set_user_data(offer, nullptr);
    offer = nullptr;
}

void ExtDataControlV1::Device::send_selection(bool primary)
{
    retire_offer(primary);
    wl_array* mime_types = nullptr;
    if (primary && seat->primary_selection_source)
        mime_types = &seat->primary_selection_source->mime_types;
    else if (!primary && seat->selection_source)
        mime_types = &seat->selection_source->mime_types;
    wl_resource* offer = nullptr;
    if (mime_types) {
        offer = wl_resource_create(wl_resource_get_client(resource), &ext_data_control_offer_v1_interface,
                                   wl_resource_get_version(resource), 0);
        if (!offer) {
            wl_resource_post_no_memory(resource);
            return;
        }
        wl_resource_set_implementation(offer, primary ? &primary_offer_requests : &selection_offer_requests, this,
                                       offer_destroyed);
        ext_data_control_device_v1_send_data_offer(resource, offer);
        auto* const* types = static_cast<char* const*>(mime_types->data);
        for (size_t i = 0; i < mime_types->size / sizeof(char*); ++i)
            ext_data_control_offer_v1_send_offer(offer, types[i]);
        (primary ? primary_offer : selection_offer) = offer;
    }
    if (primary)
        ext_data_control_device_v1_send_primary_selection(resource, offer);
    else
        ext_data_control_device_v1_send_selection(resource, offer);
}

void ExtDataControlV1::Device::forget_seat()
{
    if (!seat)
        return;
    wl_list_remove(&set_selection.link);
    wl_list_remove(&set_primary_selection.link);
    wl_list_remove(&seat_destroy.link);
    seat = nullptr;
    retire_offer(false);
    retire_offer(true);
}

ExtDataControlV1::ExtDataControlV1(wl_display* display, wlr_seat* seat)
    : display_(display),
      seat_(seat),
      global_(wl_global_create(display, &ext_data_control_manager_v1_interface, 1, this, bind))
{
}

ExtDataControlV1::~ExtDataControlV1()
{
    if (global_)
        wl_global_destroy(global_);
}

void ExtDataControlV1::bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
{
    wl_resource* manager =
        wl_resource_create(client, &ext_data_control_manager_v1_interface, static_cast<int>(version), id);
    if (!manager) {
        wl_client_post_no_memory(client);
        return;
    }
    static const struct ext_data_control_manager_v1_interface requests = {
        .create_data_source = [](wl_client* client, wl_resource* manager, uint32_t id) noexcept {
            auto* source = new Source();
            source->resource = wl_resource_create(client, &ext_data_control_source_v1_interface,
                                                  wl_resource_get_version(manager), id);
            if (!source->resource) {
                delete source;
                wl_client_post_no_memory(client);
                return;
            }
            wl_resource_set_implementation(source->resource, &source_requests, source, source_destroyed);
        },
        .get_data_device = [](wl_client* client, wl_resource* manager, uint32_t id,
                              wl_resource* seat_resource) noexcept {
            auto* self = static_cast<ExtDataControlV1*>(wl_resource_get_user_data(manager));
            auto* device = new Device();
            device->resource = wl_resource_create(client, &ext_data_control_device_v1_interface,
                                                  wl_resource_get_version(manager), id);
            if (!device->resource) {
                delete device;
                wl_client_post_no_memory(client);
                return;
            }
            wl_resource_set_implementation(device->resource, &device_requests, device, [](wl_resource* r) noexcept {
                Device* d = device_from(r);
                d->forget_seat();
                delete d;
            });
            // kiln has one seat; a seat resource whose seat is gone gets a finished device.
            wlr_seat_client* seat_client = wlr_seat_client_from_resource(seat_resource);
            if (!seat_client || seat_client->seat != self->seat_) {
                ext_data_control_device_v1_send_finished(device->resource);
                return;
            }
            device->seat = self->seat_;
            device->set_selection.notify = [](wl_listener* listener, void*) noexcept {
                Device* d = wl_container_of(listener, d, set_selection);
                d->send_selection(false);
            };
            wl_signal_add(&device->seat->events.set_selection, &device->set_selection);
            device->set_primary_selection.notify = [](wl_listener* listener, void*) noexcept {
                Device* d = wl_container_of(listener, d, set_primary_selection);
                d->send_selection(true);
            };
            wl_signal_add(&device->seat->events.set_primary_selection, &device->set_primary_selection);
            device->seat_destroy.notify = [](wl_listener* listener, void*) noexcept {
                Device* d = wl_container_of(listener, d, seat_destroy);
                d->forget_seat();
                ext_data_control_device_v1_send_finished(d->resource);
            };
            wl_signal_add(&device->seat->events.destroy, &device->seat_destroy);
            device->send_selection(false);
            device->send_selection(true);
        },
        .destroy = destroy_request,
    };
    wl_resource_set_implementation(manager, &requests, data, nullptr);
}

}  // namespace kiln::compositor
