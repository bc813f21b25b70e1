// ScreenshotPortal: org.freedesktop.impl.portal.Screenshot (version 2): one capture of the chosen output, saved as a
// PNG; PickColor: the colour of the pixel under the pointer.
#pragma once

#include <string>

#include <systemd/sd-bus.h>

#include "portal_options.hpp"

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
    static int pick_color(sd_bus_message* message, void* data, sd_bus_error* error) noexcept;
    static int version(sd_bus* bus, const char* path, const char* interface, const char* property, sd_bus_message* reply,
                       void* data, sd_bus_error* error) noexcept;
    // The colour (0..1) of the output pixel under the pointer, or false with `error` set.
    bool pick(double rgb[3], std::string& error);
    // Captures the output into a PNG file; its path, or empty with `error` set.
    std::string take(std::string& error);

    WaylandOutputs& wayland_;
    const PortalOptions& options_;
    unsigned taken_ = 0;
    sd_bus_slot* slot_ = nullptr;
};

}  // namespace portal
