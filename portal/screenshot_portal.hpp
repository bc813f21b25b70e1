// ScreenshotPortal: org.freedesktop.impl.portal.Screenshot: one capture of the chosen output, saved as a PNG.
#pragma once

#include <string>

#include <systemd/sd-bus.h>

#include "screencast_portal.hpp"

namespace portal {

class WaylandOutputs;

class ScreenshotPortal {
public:
    ScreenshotPortal(sd_bus* bus, WaylandOutputs& wayland, const PortalOptions& options);
    ~ScreenshotPortal();
    ScreenshotPortal(const ScreenshotPortal&) = delete;
    ScreenshotPortal& operator=(const ScreenshotPortal&) = delete;

private:
    static int screenshot(sd_bus_message* message, void* data, sd_bus_error* error) noexcept;
    // Captures the output into a PNG file; its path, or empty with `error` set.
    std::string take(std::string& error);

    WaylandOutputs& wayland_;
    const PortalOptions& options_;
    unsigned taken_ = 0;
    sd_bus_slot* slot_ = nullptr;
};

}  // namespace portal
