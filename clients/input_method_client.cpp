// kiln-input-method-client: a zwp_input_method_v2 that logs what the compositor sends it and, on commands from stdin,
// commits text, sets preedit, grabs the keyboard (typing grabbed keys back through a virtual keyboard) and shows a
// popup; for tests/protocol/text_input.py.
#include "clients/event_log.hpp"
#include "clients/stdin_commands.hpp"
#include "clients/shm_buffer.hpp"

#include "input-method-unstable-v2-client-protocol.h"
#include "virtual-keyboard-unstable-v1-client-protocol.h"


#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>

using namespace kiln::clients;

namespace {

constexpr const char* usage = R"(Usage: kiln-input-method-client

An input method (input-method-unstable-v2). Logs one line per event: activate, deactivate, surrounding TEXT CURSOR
ANCHOR, content_type HINT PURPOSE, done, unavailable, grab_keymap, grab_key CODE STATE, popup_rectangle X Y W H.
Commands on stdin, one a line (answered "ok COMMAND" once the compositor has seen it):
  commit TEXT                 commit_string TEXT, then commit
  preedit TEXT BEGIN END      set_preedit_string, then commit
  delete BEFORE AFTER         delete_surrounding_text, then commit
  grab SHIFT                  grab the keyboard; each grabbed key is typed back as key+SHIFT on a virtual keyboard
  popup W H RRGGBB            show a popup surface of that size and colour
  quit
)";

struct Client {
    wl_display* display = nullptr;
    wl_seat* seat = nullptr;
    wl_compositor* compositor = nullptr;
    wl_shm* shm = nullptr;
    zwp_input_method_manager_v2* manager = nullptr;
    zwp_virtual_keyboard_manager_v1* keyboards = nullptr;
    zwp_input_method_v2* input_method = nullptr;
    zwp_input_method_keyboard_grab_v2* grab = nullptr;
    zwp_virtual_keyboard_v1* keyboard = nullptr;
    uint32_t serial = 0;  // done events seen: what commit must name
    int shift = 0;
    std::unique_ptr<ShmBuffer> popup_buffer;
};

const wl_registry_listener registry_listener = {
    [](void* data, wl_registry* registry, uint32_t name, const char* interface, uint32_t version) {
        auto* c = static_cast<Client*>(data);
        if (std::strcmp(interface, wl_seat_interface.name) == 0 && !c->seat)
            c->seat = static_cast<wl_seat*>(wl_registry_bind(registry, name, &wl_seat_interface, 1));
        else if (std::strcmp(interface, wl_compositor_interface.name) == 0)
            c->compositor = static_cast<wl_compositor*>(wl_registry_bind(registry, name, &wl_compositor_interface, 4));
        else if (std::strcmp(interface, wl_shm_interface.name) == 0)
            c->shm = static_cast<wl_shm*>(wl_registry_bind(registry, name, &wl_shm_interface, 1));
        else if (std::strcmp(interface, zwp_input_method_manager_v2_interface.name) == 0)
            c->manager = static_cast<zwp_input_method_manager_v2*>(
                wl_registry_bind(registry, name, &zwp_input_method_manager_v2_interface, 1));
        else if (std::strcmp(interface, zwp_virtual_keyboard_manager_v1_interface.name) == 0)
            c->keyboards = static_cast<zwp_virtual_keyboard_manager_v1*>(
                wl_registry_bind(registry, name, &zwp_virtual_keyboard_manager_v1_interface, 1));
    },
    [](void*, wl_registry*, uint32_t) {},
};

const zwp_input_method_v2_listener input_method_listener = {
    [](void*, zwp_input_method_v2*) { log_event("activate"); },
    [](void*, zwp_input_method_v2*) { log_event("deactivate"); },
    [](void*, zwp_input_method_v2*, const char* text, uint32_t cursor, uint32_t anchor) {
        log_event("surrounding %s %u %u", text, cursor, anchor);
    },
    [](void*, zwp_input_method_v2*, uint32_t) {},
    [](void*, zwp_input_method_v2*, uint32_t hint, uint32_t purpose) {
        log_event("content_type %u %u", hint, purpose);
    },
    [](void* data, zwp_input_method_v2*) {
        ++static_cast<Client*>(data)->serial;
        log_event("done");
    },
    [](void*, zwp_input_method_v2*) { log_event("unavailable"); },
};

const zwp_input_method_keyboard_grab_v2_listener grab_listener = {
    [](void* data, zwp_input_method_keyboard_grab_v2*, uint32_t format, int32_t fd, uint32_t size) {
        // The virtual keyboard types with the keymap the grabbed keys were in.
        auto* c = static_cast<Client*>(data);
        if (c->keyboard)
            zwp_virtual_keyboard_v1_keymap(c->keyboard, format, fd, size);
        close(fd);
        log_event("grab_keymap");
    },
    [](void* data, zwp_input_method_keyboard_grab_v2*, uint32_t, uint32_t time, uint32_t key, uint32_t state) {
        auto* c = static_cast<Client*>(data);
        log_event("grab_key %u %u", key, state);
        if (c->keyboard)
            zwp_virtual_keyboard_v1_key(c->keyboard, time, key + static_cast<uint32_t>(c->shift), state);
    },
    [](void* data, zwp_input_method_keyboard_grab_v2*, uint32_t, uint32_t depressed, uint32_t latched, uint32_t locked,
       uint32_t group) {
        auto* c = static_cast<Client*>(data);
        if (c->keyboard)
            zwp_virtual_keyboard_v1_modifiers(c->keyboard, depressed, latched, locked, group);
    },
    [](void*, zwp_input_method_keyboard_grab_v2*, int32_t, int32_t) {},
};

const zwp_input_popup_surface_v2_listener popup_listener = {
    [](void*, zwp_input_popup_surface_v2*, int32_t x, int32_t y, int32_t w, int32_t h) {
        log_event("popup_rectangle %d %d %d %d", x, y, w, h);
    },
};

bool run_command(Client& c, const std::string& line)
{
    std::istringstream in(line);
    std::string command;
    in >> command;
    if (command == "commit") {
        std::string text;
        in >> text;
        zwp_input_method_v2_commit_string(c.input_method, text.c_str());
    } else if (command == "preedit") {
        std::string text;
        int begin = 0, end = 0;
        in >> text >> begin >> end;
        zwp_input_method_v2_set_preedit_string(c.input_method, text.c_str(), begin, end);
    } else if (command == "delete") {
        uint32_t before = 0, after = 0;
        in >> before >> after;
        zwp_input_method_v2_delete_surrounding_text(c.input_method, before, after);
    } else if (command == "grab") {
        in >> c.shift;
        if (c.keyboards && !c.keyboard)
            c.keyboard = zwp_virtual_keyboard_manager_v1_create_virtual_keyboard(c.keyboards, c.seat);
        c.grab = zwp_input_method_v2_grab_keyboard(c.input_method);
        zwp_input_method_keyboard_grab_v2_add_listener(c.grab, &grab_listener, &c);
        return true;
    } else if (command == "popup") {
        int w = 0, h = 0;
        std::string color;
        in >> w >> h >> color;
        std::string error;
        c.popup_buffer = ShmBuffer::create(c.shm, w, h, error);
        if (!c.popup_buffer)
            return false;
        c.popup_buffer->fill(0, 0, w, h, static_cast<uint32_t>(std::stoul(color, nullptr, 16)));
        wl_surface* surface = wl_compositor_create_surface(c.compositor);
        zwp_input_popup_surface_v2* popup = zwp_input_method_v2_get_input_popup_surface(c.input_method, surface);
        zwp_input_popup_surface_v2_add_listener(popup, &popup_listener, &c);
        wl_surface_attach(surface, c.popup_buffer->buffer(), 0, 0);
        wl_surface_damage(surface, 0, 0, w, h);
        wl_surface_commit(surface);
        return true;
    } else {
        return false;
    }
    zwp_input_method_v2_commit(c.input_method, c.serial);
    return true;
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc > 1) {
        std::fputs(usage, std::strcmp(argv[1], "--help") == 0 ? stdout : stderr);
        return std::strcmp(argv[1], "--help") == 0 ? 0 : 2;
    }
    Client c;
    c.display = wl_display_connect(nullptr);
    if (!c.display) {
        std::fprintf(stderr, "kiln-input-method-client: cannot connect to a Wayland compositor\n");
        return 1;
    }
    wl_registry* registry = wl_display_get_registry(c.display);
    wl_registry_add_listener(registry, &registry_listener, &c);
    wl_display_roundtrip(c.display);
    if (!c.seat || !c.manager || !c.compositor || !c.shm) {
        log_event("no_input_method_manager");
        return 1;
    }
    c.input_method = zwp_input_method_manager_v2_get_input_method(c.manager, c.seat);
    zwp_input_method_v2_add_listener(c.input_method, &input_method_listener, &c);
    wl_display_roundtrip(c.display);
    log_event("ready");

    return run_stdin_commands(c.display, [&](const std::string& line) { return run_command(c, line); });
}
