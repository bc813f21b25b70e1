// ext_idle_notifier_v1 and its ext_idle_notification_v1 objects: one timer each, restarted by activity.
#include "compositor/protocols/desktop/ext_idle_notify_v1.hpp"

#include "ext-idle-notify-v1-protocol.h"

#include <algorithm>
#include <climits>
#include <new>

namespace kiln::compositor {

// One client's notification; owned by its resource. `owner` is null once kiln's side is gone (the object is inert).
struct ExtIdleNotifyV1::Notification {
    ExtIdleNotifyV1* owner = nullptr;
    wl_resource* resource = nullptr;
    wl_event_source* timer = nullptr;
    uint32_t timeout_ms = 0;
    bool input_only = false;  // from get_input_idle_notification: inhibitors do not hold it
    bool idle = false;

    // While held, the notification never goes idle.
    bool held() const { return !input_only && owner->inhibited(); }

    void resume()
    {
        if (!idle)
            return;
        idle = false;
        ext_idle_notification_v1_send_resumed(resource);
    }

    // The timeout counts from now; a held one waits for the inhibitors to go. A zero timeout ("as soon as the seat is
    // inactive") fires on the next turn of the loop: libwayland reads a zero timer as "disarm".
    void arm()
    {
        const int ms = held() ? 0 : static_cast<int>(std::clamp<uint32_t>(timeout_ms, 1, INT_MAX));
        wl_event_source_timer_update(timer, ms);
    }

    static int fire(void* data) noexcept
    {
        auto* self = static_cast<Notification*>(data);
        if (self->owner && !self->held() && !self->idle) {
            self->idle = true;
            ext_idle_notification_v1_send_idled(self->resource);
        }
        return 0;
    }
};

namespace {

void destroy_request(wl_client*, wl_resource* resource) noexcept
{
    wl_resource_destroy(resource);
}

const struct ext_idle_notification_v1_interface notification_requests = {
    .destroy = destroy_request,
};

void notification_destroyed(wl_resource* resource) noexcept
{
    auto* notification = static_cast<ExtIdleNotifyV1::Notification*>(wl_resource_get_user_data(resource));
    if (notification->owner)
        notification->owner->remove(notification);
    if (notification->timer)
        wl_event_source_remove(notification->timer);
    delete notification;
}

void create_notification(wl_client* client, wl_resource* manager, uint32_t id, uint32_t timeout, bool input_only)
{
    wl_resource* resource =
        wl_resource_create(client, &ext_idle_notification_v1_interface, wl_resource_get_version(manager), id);
    auto* notification = new (std::nothrow) ExtIdleNotifyV1::Notification;
    if (!resource || !notification) {
        if (resource)
            wl_resource_destroy(resource);
        delete notification;
        wl_client_post_no_memory(client);
        return;
    }
    notification->resource = resource;
    notification->timeout_ms = timeout;
    notification->input_only = input_only;
    wl_resource_set_implementation(resource, &notification_requests, notification, notification_destroyed);
    // kiln has one seat: every wl_seat a client names is that one, so the seat argument selects nothing.
    auto* owner = static_cast<ExtIdleNotifyV1*>(wl_resource_get_user_data(manager));
    if (!owner)
        return;  // the manager outlived kiln's side: the notification stays inert, never idle
    notification->timer = wl_event_loop_add_timer(owner->loop(), &ExtIdleNotifyV1::Notification::fire, notification);
    if (!notification->timer) {
        wl_client_post_no_memory(client);
        return;
    }
    notification->owner = owner;
    owner->add(notification);
    notification->arm();
}

void get_idle_notification(wl_client* client, wl_resource* manager, uint32_t id, uint32_t timeout,
                           wl_resource* /*seat*/) noexcept
{
    create_notification(client, manager, id, timeout, false);
}

void get_input_idle_notification(wl_client* client, wl_resource* manager, uint32_t id, uint32_t timeout,
                                 wl_resource* /*seat*/) noexcept
{
    create_notification(client, manager, id, timeout, true);
}

const struct ext_idle_notifier_v1_interface manager_requests = {
    .destroy = destroy_request,
    .get_idle_notification = get_idle_notification,
    .get_input_idle_notification = get_input_idle_notification,
};

// Managers whose global is gone must not reach the freed ExtIdleNotifyV1: its destructor clears their user data.
void manager_destroyed(wl_resource* resource) noexcept
{
    wl_list_remove(wl_resource_get_link(resource));
}

void bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
{
    wl_resource* resource = wl_resource_create(client, &ext_idle_notifier_v1_interface, static_cast<int>(version), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    wl_resource_set_implementation(resource, &manager_requests, data, manager_destroyed);
    static_cast<ExtIdleNotifyV1*>(data)->add_manager(resource);
}

}  // namespace

ExtIdleNotifyV1::ExtIdleNotifyV1(wl_display* display)
    : loop_(wl_display_get_event_loop(display)),
      global_(wl_global_create(display, &ext_idle_notifier_v1_interface, 2, this, bind))
{
    wl_list_init(&managers_);
}

ExtIdleNotifyV1::~ExtIdleNotifyV1()
{
    for (Notification* notification : notifications_) {
        wl_event_source_remove(notification->timer);
        notification->timer = nullptr;
        notification->owner = nullptr;
    }
    wl_resource* manager = nullptr;
    wl_resource* next = nullptr;
    wl_resource_for_each_safe(manager, next, &managers_) {
        wl_resource_set_user_data(manager, nullptr);
        wl_list_init(wl_resource_get_link(manager));
    }
    if (global_)
        wl_global_destroy(global_);
}

void ExtIdleNotifyV1::add_manager(wl_resource* manager)
{
    wl_list_insert(&managers_, wl_resource_get_link(manager));
}

void ExtIdleNotifyV1::add(Notification* notification)
{
    notifications_.push_back(notification);
}

void ExtIdleNotifyV1::remove(Notification* notification)
{
    notifications_.remove(notification);
}

void ExtIdleNotifyV1::activity()
{
    for (Notification* notification : notifications_) {
        if (notification->held())
            continue;  // not idle, and its timer waits for the inhibitors to go
        notification->resume();
        notification->arm();
    }
}

void ExtIdleNotifyV1::set_inhibited(bool inhibited)
{
    if (inhibited == inhibited_)
        return;
    inhibited_ = inhibited;
    for (Notification* notification : notifications_) {
        if (notification->input_only)
            continue;
        // An inhibitor ends the idle time (the screen stays on); when the last goes, the timeout counts from then.
        notification->resume();
        notification->arm();
    }
}

}  // namespace kiln::compositor
