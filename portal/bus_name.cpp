// BusName: RequestName with --replace, NameLost, and a filter that refuses portal calls once the name is gone.
#include "bus_name.hpp"

#include <cstdio>
#include <cstring>
#include <string_view>
#include <utility>

namespace portal {

BusName::BusName(sd_bus* bus, const char* name, std::function<void()> lost)
    : bus_(bus), name_(name), on_lost_(std::move(lost))
{
    // Both before the name is requested: a NameLost or a question may follow at once.
    sd_bus_add_filter(bus_, &filter_, refuse_after_loss, this);
    sd_bus_match_signal(bus_, &match_, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                        "NameLost", name_lost, this);
}

BusName::~BusName()
{
    sd_bus_slot_unref(match_);
    sd_bus_slot_unref(filter_);
}

bool BusName::request(bool replace, std::string& error)
{
    uint64_t flags = replace ? SD_BUS_NAME_REPLACE_EXISTING | SD_BUS_NAME_ALLOW_REPLACEMENT
                             : SD_BUS_NAME_ALLOW_REPLACEMENT;
    if (int r = sd_bus_request_name(bus_, name_, flags); r < 0) {
        error = std::strerror(-r);
        return false;
    }
    return true;
}

int BusName::name_lost(sd_bus_message* message, void* data, sd_bus_error*) noexcept
{
    auto* self = static_cast<BusName*>(data);
    const char* name = nullptr;
    if (self->lost_ || sd_bus_message_read(message, "s", &name) < 0 || !name || std::strcmp(name, self->name_) != 0)
        return 0;
    self->lost_ = true;
    std::fprintf(stderr, "kiln-portal: another kiln-portal replaced this one; exiting\n");
    self->on_lost_();
    return 0;
}

// xdg-desktop-portal calls the unique name it last saw own kiln's name, and follows a new owner only once it has read
// the new one's properties: a question can reach this kiln-portal after the name went to its replacement. Answering
// it by this one's policy would put a stale answer in xdg-permission-store for good, and leaving it unanswered as
// this one exits costs the caller a timeout; an error at once lets the request fail cleanly and be asked again.
int BusName::refuse_after_loss(sd_bus_message* message, void* data, sd_bus_error*) noexcept
{
    auto* self = static_cast<BusName*>(data);
    if (!self->lost_ || !sd_bus_message_is_method_call(message, nullptr, nullptr))
        return 0;
    const char* interface = sd_bus_message_get_interface(message);
    if (!interface || !std::string_view(interface).starts_with("org.freedesktop.impl.portal."))
        return 0;
    std::fprintf(stderr, "kiln-portal: refused %s.%s: another kiln-portal has %s now\n", interface,
                 sd_bus_message_get_member(message), self->name_);
    sd_bus_reply_method_errorf(message, SD_BUS_ERROR_SERVICE_UNKNOWN, "kiln-portal was replaced: ask %s again",
                               self->name_);
    return 1;
}

}  // namespace portal
