// kiln-portal: kiln's xdg-desktop-portal backend: ScreenCast over PipeWire and Screenshot, from kiln's capture.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include <systemd/sd-bus.h>
#include <wayland-client.h>

#include "access_portal.hpp"
#include "bus_name.hpp"
#include "event_loop.hpp"
#include "pipewire_link.hpp"
#include "screencast_portal.hpp"
#include "screenshot_portal.hpp"
#include "wayland_outputs.hpp"

namespace {

constexpr const char* bus_name = "org.freedesktop.impl.portal.desktop.kiln";

void usage(FILE* to) {
    std::fprintf(to,
                 "usage: kiln-portal [--output NAME] [--window APP_ID|TITLE] [--chooser COMMAND]\n"
                 "                   [--deny APP_ID[,APP_ID...]|*] [--allow APP_ID[,APP_ID...]] [--max-fps N]\n"
                 "                   [--replace]\n"
                 "kiln's xdg-desktop-portal backend; started by D-Bus as %s.\n"
                 "A screen cast shares the output or window named by --output or --window, else the one the\n"
                 "--chooser command picks (it reads 'output NAME (WxH)' or 'window IDENTIFIER APP_ID: TITLE' lines\n"
                 "on stdin and prints the one chosen), else the output or window kiln reports focused (kiln msg).\n"
                 "Environment: KILN_PORTAL_OUTPUT, KILN_PORTAL_WINDOW, KILN_PORTAL_CHOOSER, KILN_PORTAL_DENY,\n"
                 "KILN_PORTAL_ALLOW (as the options); KILN_SOCKET (kiln's control socket).\n",
                 bus_name);
}

void split_into(std::vector<std::string>& list, std::string_view text) {
    while (!text.empty()) {
        size_t comma = text.find(',');
        std::string_view item = text.substr(0, comma);
        if (!item.empty())
            list.emplace_back(item);
        if (comma == std::string_view::npos)
            break;
        text.remove_prefix(comma + 1);
    }
}

}  // namespace

int main(int argc, char** argv) {
    portal::PortalOptions options;
    bool replace = false;
    if (const char* output = std::getenv("KILN_PORTAL_OUTPUT"))
        options.output = output;
    if (const char* window = std::getenv("KILN_PORTAL_WINDOW"))
        options.window = window;
    if (const char* chooser = std::getenv("KILN_PORTAL_CHOOSER"))
        options.chooser = chooser;
    if (const char* deny = std::getenv("KILN_PORTAL_DENY"))
        split_into(options.denied, deny);
    if (const char* allow = std::getenv("KILN_PORTAL_ALLOW"))
        split_into(options.allowed, allow);
    for (int i = 1; i < argc; ++i) {
        std::string_view arg = argv[i];
        bool has_value = i + 1 < argc;
        if (arg == "--output" && has_value) {
            options.output = argv[++i];
        } else if (arg == "--window" && has_value) {
            options.window = argv[++i];
        } else if (arg == "--chooser" && has_value) {
            options.chooser = argv[++i];
        } else if (arg == "--deny" && has_value) {
            split_into(options.denied, argv[++i]);
        } else if (arg == "--allow" && has_value) {
            split_into(options.allowed, argv[++i]);
        } else if (arg == "--max-fps" && has_value) {
            options.max_fps = std::atoi(argv[++i]);
            if (options.max_fps < 1 || options.max_fps > 1000) {
                std::fprintf(stderr, "kiln-portal: --max-fps wants 1..1000\n");
                return 2;
            }
        } else if (arg == "--replace") {
            replace = true;
        } else if (arg == "--help" || arg == "-h") {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }

    portal::WaylandOutputs wayland;
    if (std::string missing = wayland.missing(); !missing.empty()) {
        std::fprintf(stderr, "kiln-portal: cannot capture: %s (%s)\n", missing.c_str(),
                     wayland.connected() ? "kiln does not offer it to this program: see `Sharing your screen` in "
                                           "doc/using-kiln.md"
                                         : "start kiln-portal inside a kiln session");
        return 1;
    }

    sd_bus* bus = nullptr;
    if (int r = sd_bus_open_user(&bus); r < 0) {
        std::fprintf(stderr, "kiln-portal: cannot connect to the session bus: %s\n", std::strerror(-r));
        return 1;
    }
    portal::EventLoop loop;
    portal::PipeWireLink pipewire(loop);
    int exit_code = 0;
    {
        portal::ScreenCastPortal screencast(bus, loop, wayland, pipewire, options);
        portal::ScreenshotPortal screenshot(bus, wayland, options);
        portal::AccessPortal access(bus, options);
        portal::BusName name(bus, bus_name, [&loop] { loop.quit(); });
        if (std::string error; !name.request(replace, error)) {
            std::fprintf(stderr, "kiln-portal: cannot own %s: %s\n", bus_name, error.c_str());
            sd_bus_flush_close_unref(bus);
            return 1;
        }
        std::fprintf(stderr, "kiln-portal: serving %s\n", bus_name);

        loop.add(wayland.fd(), [&](short) {
            if (!wayland.dispatch()) {
                const wl_interface* interface = nullptr;
                uint32_t id = 0;
                uint32_t code = wl_display_get_protocol_error(wayland.display(), &interface, &id);
                std::fprintf(stderr, "kiln-portal: the connection to kiln is gone (%s%s%s %u, error %u); exiting\n",
                             std::strerror(wl_display_get_error(wayland.display())), interface ? ": " : "",
                             interface ? interface->name : "", id, code);
                loop.quit();
            }
        });
        loop.add(sd_bus_get_fd(bus), [&](short) {});  // processed below, before every wait
        while (loop.running()) {
            int r;
            while ((r = sd_bus_process(bus, nullptr)) > 0) {
            }
            if (r < 0) {
                std::fprintf(stderr, "kiln-portal: the session bus is gone: %s\n", std::strerror(-r));
                exit_code = 1;
                break;
            }
            sd_bus_flush(bus);
            screencast.drop_closed();
            wl_display_dispatch_pending(wayland.display());
            wayland.flush();
            if (!loop.iterate(-1))
                break;
        }
    }
    sd_bus_flush_close_unref(bus);
    return exit_code;
}
