// BusName: kiln-portal's well-known name on the session bus, taken (from another kiln-portal with --replace) and, once
// another kiln-portal has taken it, no longer answering questions here.
#pragma once

#include <functional>
#include <string>

#include <systemd/sd-bus.h>

namespace portal {

class BusName {
public:
    // `lost`: runs once another kiln-portal has taken the name (the caller leaves).
    BusName(sd_bus* bus, const char* name, std::function<void()> lost);
    ~BusName();
    BusName(const BusName&) = delete;
    BusName& operator=(const BusName&) = delete;

    // Takes the name: from another kiln-portal when `replace`; this one lets a later --replace take it in turn. The
    // portals' objects must be exported before this, so no question reaches the name before they can answer it.
    bool request(bool replace, std::string& error);
    bool lost() const { return lost_; }

private:
    static int name_lost(sd_bus_message* message, void* data, sd_bus_error* error) noexcept;
    static int refuse_after_loss(sd_bus_message* message, void* data, sd_bus_error* error) noexcept;

    sd_bus* bus_;
    const char* name_;
    std::function<void()> on_lost_;
    bool lost_ = false;
    sd_bus_slot* match_ = nullptr;
    sd_bus_slot* filter_ = nullptr;
};

}  // namespace portal
