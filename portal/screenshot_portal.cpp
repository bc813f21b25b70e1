// ScreenshotPortal: a one-frame ext-image-copy-capture session per request, written with libpng to XDG_RUNTIME_DIR.
#include "screenshot_portal.hpp"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <vector>

#include <png.h>
#include <wayland-client.h>

#include "access_portal.hpp"
#include "cursor_capture.hpp"
#include "output_capture.hpp"
#include "wayland_outputs.hpp"

namespace portal {

namespace {

// Reads kiln's events until `done()` or `seconds` pass; false on timeout or a failed connection. Only the Wayland
// queue is dispatched here: the D-Bus call this answers is still being handled.
bool wait_until(WaylandOutputs& wayland, const std::function<bool()>& done, int seconds, std::string& error) {
    timespec start{};
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (!done()) {
        timespec now{};
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - start.tv_sec > seconds) {
            error = "no answer from kiln in " + std::to_string(seconds) + " s";
            return false;
        }
        while (wl_display_prepare_read(wayland.display()) != 0)
            wl_display_dispatch_pending(wayland.display());
        wayland.flush();
        pollfd fd{wayland.fd(), POLLIN, 0};
        if (poll(&fd, 1, 100) > 0) {
            if (wl_display_read_events(wayland.display()) < 0) {
                error = "the Wayland connection failed";
                return false;
            }
        } else {
            wl_display_cancel_read(wayland.display());
        }
        wl_display_dispatch_pending(wayland.display());
    }
    return true;
}

// A whole frame of `capture` as RGB rows, or false with `error` set; waits up to 5 s.
bool capture_once(WaylandOutputs& wayland, OutputCapture& capture, const bool& done, const bool& stopped,
                  std::vector<uint8_t>& rgb, int& width, int& height, std::string& error) {
    for (int i = 0; i < 4 && !capture.image() && !stopped; ++i)
        if (wl_display_roundtrip(wayland.display()) < 0)
            break;
    if (!capture.image()) {
        error = "kiln sent no buffer constraints";
        return false;
    }
    capture.request_frame();
    if (!wait_until(wayland, [&] { return done || stopped; }, 5, error))
        return false;
    if (!done) {
        error = "kiln stopped the capture";
        return false;
    }
    const ShmImage& image = *capture.image();
    width = image.width();
    height = image.height();
    rgb.resize(static_cast<size_t>(width) * static_cast<size_t>(height) * 3);
    for (int y = 0; y < height; ++y) {
        const uint8_t* row = image.pixels() + static_cast<size_t>(y) * static_cast<size_t>(image.stride());
        uint8_t* out = rgb.data() + static_cast<size_t>(y) * static_cast<size_t>(width) * 3;
        for (int x = 0; x < width; ++x) {  // B, G, R, X in memory
            out[x * 3] = row[x * 4 + 2];
            out[x * 3 + 1] = row[x * 4 + 1];
            out[x * 3 + 2] = row[x * 4];
        }
    }
    return true;
}

// A capture of `output` (the cursor drawn in, or not), with the flags capture_once waits on.
struct OneCapture {
    bool done = false, stopped = false;
    OutputCapture capture;
    OneCapture(WaylandOutputs& wayland, const Output& output, bool cursors)
        : capture(wayland, output.output, cursors, events()) {}
    OutputCapture::Events events() {
        OutputCapture::Events e;
        e.frame = [this](const std::vector<Rect>&) { done = true; };
        e.stopped = [this] { stopped = true; };
        return e;
    }
};

}  // namespace

ScreenshotPortal::ScreenshotPortal(sd_bus* bus, WaylandOutputs& wayland, const PortalOptions& options)
    : wayland_(wayland), options_(options) {
    static const sd_bus_vtable vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("Screenshot", "ossa{sv}", "ua{sv}", screenshot, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("PickColor", "ossa{sv}", "ua{sv}", pick_color, SD_BUS_VTABLE_UNPRIVILEGED),
        // Version 2 (PickColor) is what makes xdg-desktop-portal ask the Access portal before a Screenshot without
        // a dialog; below 2 it hands every request straight to this backend.
        SD_BUS_PROPERTY("version", "u", version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_VTABLE_END,
    };
    sd_bus_add_object_vtable(bus, &slot_, "/org/freedesktop/portal/desktop", "org.freedesktop.impl.portal.Screenshot",
                             vtable, this);
}

ScreenshotPortal::~ScreenshotPortal() { sd_bus_slot_unref(slot_); }

std::string ScreenshotPortal::take(std::string& error) {
    const Output* output = wayland_.choose(options_.output);
    if (!output) {
        error = "kiln announces no output";
        return {};
    }
    std::vector<uint8_t> rgb;
    int width = 0, height = 0;
    // The screen as it looks, cursor included.
    OneCapture one(wayland_, *output, true);
    if (!capture_once(wayland_, one.capture, one.done, one.stopped, rgb, width, height, error))
        return {};
    const char* runtime = std::getenv("XDG_RUNTIME_DIR");
    if (!runtime || !*runtime) {
        error = "XDG_RUNTIME_DIR is not set";
        return {};
    }
    std::string path = std::string(runtime) + "/kiln-screenshot-" + std::to_string(getpid()) + "-" +
                       std::to_string(++taken_) + ".png";
    png_image png{};
    png.version = PNG_IMAGE_VERSION;
    png.width = static_cast<png_uint_32>(width);
    png.height = static_cast<png_uint_32>(height);
    png.format = PNG_FORMAT_RGB;
    if (!png_image_write_to_file(&png, path.c_str(), 0, rgb.data(), width * 3, nullptr)) {
        error = std::string("cannot write ") + path + ": " + png.message;
        return {};
    }
    return path;
}

int ScreenshotPortal::screenshot(sd_bus_message* message, void* data, sd_bus_error*) noexcept {
    auto* self = static_cast<ScreenshotPortal*>(data);
    const char *handle = nullptr, *app_id = nullptr, *parent = nullptr;
    if (sd_bus_message_read(message, "oss", &handle, &app_id, &parent) < 0)
        return sd_bus_reply_method_return(message, "ua{sv}", 2u, 0);
    // Asked after 1.16's Access question when not interactive, but with none when interactive: the same policy.
    if (refused(self->options_, app_id, "screenshot"))
        return sd_bus_reply_method_return(message, "ua{sv}", 1u, 0);
    std::string error;
    std::string path = self->take(error);
    if (path.empty()) {
        std::fprintf(stderr, "kiln-portal: screenshot failed: %s\n", error.c_str());
        return sd_bus_reply_method_return(message, "ua{sv}", 2u, 0);
    }
    std::string uri = "file://" + path;
    return sd_bus_reply_method_return(message, "ua{sv}", 0u, 1, "uri", "s", uri.c_str());
}


int ScreenshotPortal::version(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply, void*,
                              sd_bus_error*) noexcept {
    return sd_bus_message_append(reply, "u", 2u);
}

bool ScreenshotPortal::pick(double rgb[3], std::string& error) {
    // The output the pointer is over: a cursor session on each output's capture source says where it is.
    for (const Output* output : wayland_.all()) {
        OneCapture one(wayland_, *output, false);  // the picture under the cursor, not the cursor itself
        CursorCapture cursor(wayland_, one.capture.source(), nullptr);
        if (!cursor.valid()) {
            error = "kiln has no pointer to pick with";
            return false;
        }
        for (int i = 0; i < 2; ++i)
            if (wl_display_roundtrip(wayland_.display()) < 0)
                break;
        if (!cursor.state().inside)
            continue;
        std::vector<uint8_t> pixels;
        int width = 0, height = 0;
        if (!capture_once(wayland_, one.capture, one.done, one.stopped, pixels, width, height, error))
            return false;
        const int x = cursor.state().x, y = cursor.state().y;
        if (x < 0 || y < 0 || x >= width || y >= height)
            continue;
        const uint8_t* at = pixels.data() + (static_cast<size_t>(y) * static_cast<size_t>(width) + x) * 3;
        for (int c = 0; c < 3; ++c)
            rgb[c] = at[c] / 255.0;
        return true;
    }
    error = "the pointer is over no output";
    return false;
}

int ScreenshotPortal::pick_color(sd_bus_message* message, void* data, sd_bus_error*) noexcept {
    auto* self = static_cast<ScreenshotPortal*>(data);
    const char *handle = nullptr, *app_id = nullptr, *parent = nullptr;
    if (sd_bus_message_read(message, "oss", &handle, &app_id, &parent) < 0)
        return sd_bus_reply_method_return(message, "ua{sv}", 2u, 0);
    if (refused(self->options_, app_id, "colour pick"))
        return sd_bus_reply_method_return(message, "ua{sv}", 1u, 0);
    double rgb[3] = {};
    std::string error;
    if (!self->pick(rgb, error)) {
        std::fprintf(stderr, "kiln-portal: colour pick failed: %s\n", error.c_str());
        return sd_bus_reply_method_return(message, "ua{sv}", 2u, 0);
    }
    return sd_bus_reply_method_return(message, "ua{sv}", 0u, 1, "color", "(ddd)", rgb[0], rgb[1], rgb[2]);
}

}  // namespace portal
