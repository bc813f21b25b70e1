// kiln-text-input-client: a window with a zwp_text_input_v3 that logs what the compositor sends it and takes
// commands (enable, disable, surrounding text, cursor rectangle) on stdin; for tests/protocol/text_input.py.
#include "clients/client_window.hpp"
#include "clients/event_log.hpp"
#include "clients/stdin_commands.hpp"
#include "clients/shm_buffer.hpp"

#include "text-input-unstable-v3-client-protocol.h"


#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>

using namespace kiln::clients;

namespace {

constexpr const char* usage = R"(Usage: kiln-text-input-client [--size WxH] [--color RRGGBB]

A window with a text input (text-input-unstable-v3). Logs one line per event: keyboard_enter, keyboard_leave,
key CODE STATE, enter, leave, preedit TEXT BEGIN END, commit_string TEXT, delete BEFORE AFTER, done SERIAL.
Commands on stdin, one a line (each ends with a commit and is answered "ok COMMAND" once kiln has seen it):
  enable TEXT CURSOR X Y W H   enable with surrounding TEXT, its cursor, and a cursor rectangle
  surrounding TEXT CURSOR       new surrounding text
  cursor X Y W H                new cursor rectangle
  disable
  quit
)";

struct Client {
    wl_seat* seat = nullptr;
    wl_keyboard* keyboard = nullptr;
    zwp_text_input_manager_v3* manager = nullptr;
    zwp_text_input_v3* text_input = nullptr;
};

const wl_registry_listener registry_listener = {
    [](void* data, wl_registry* registry, uint32_t name, const char* interface, uint32_t version) {
        auto* client = static_cast<Client*>(data);
        if (std::strcmp(interface, wl_seat_interface.name) == 0 && !client->seat)
            client->seat = static_cast<wl_seat*>(wl_registry_bind(registry, name, &wl_seat_interface, std::min(version, 5u)));
        else if (std::strcmp(interface, zwp_text_input_manager_v3_interface.name) == 0)
            client->manager = static_cast<zwp_text_input_manager_v3*>(
                wl_registry_bind(registry, name, &zwp_text_input_manager_v3_interface, 1));
    },
    [](void*, wl_registry*, uint32_t) {},
};

const wl_keyboard_listener keyboard_listener = {
    [](void*, wl_keyboard*, uint32_t, int32_t fd, uint32_t) { close(fd); },
    [](void*, wl_keyboard*, uint32_t, wl_surface*, wl_array*) { log_event("keyboard_enter"); },
    [](void*, wl_keyboard*, uint32_t, wl_surface*) { log_event("keyboard_leave"); },
    [](void*, wl_keyboard*, uint32_t, uint32_t, uint32_t key, uint32_t state) { log_event("key %u %u", key, state); },
    [](void*, wl_keyboard*, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t) {},
    [](void*, wl_keyboard*, int32_t, int32_t) {},
};

const zwp_text_input_v3_listener text_input_listener = {
    [](void*, zwp_text_input_v3*, wl_surface*) { log_event("enter"); },
    [](void*, zwp_text_input_v3*, wl_surface*) { log_event("leave"); },
    [](void*, zwp_text_input_v3*, const char* text, int32_t begin, int32_t end) {
        log_event("preedit %s %d %d", text ? text : "", begin, end);
    },
    [](void*, zwp_text_input_v3*, const char* text) { log_event("commit_string %s", text ? text : ""); },
    [](void*, zwp_text_input_v3*, uint32_t before, uint32_t after) { log_event("delete %u %u", before, after); },
    [](void*, zwp_text_input_v3*, uint32_t serial) { log_event("done %u", serial); },
};

// Applies one stdin command; false on quit or a line it cannot read.
bool run_command(Client& client, const std::string& line)
{
    std::istringstream in(line);
    std::string command;
    in >> command;
    zwp_text_input_v3* ti = client.text_input;
    if (command == "enable" || command == "surrounding") {
        std::string text;
        int cursor = 0;
        in >> text >> cursor;
        if (command == "enable")
            zwp_text_input_v3_enable(ti);
        zwp_text_input_v3_set_surrounding_text(ti, text.c_str(), cursor, cursor);
        if (command == "enable") {
            int x = 0, y = 0, w = 0, h = 0;
            in >> x >> y >> w >> h;
            zwp_text_input_v3_set_content_type(ti, ZWP_TEXT_INPUT_V3_CONTENT_HINT_NONE,
                                               ZWP_TEXT_INPUT_V3_CONTENT_PURPOSE_NORMAL);
            zwp_text_input_v3_set_cursor_rectangle(ti, x, y, w, h);
        }
    } else if (command == "cursor") {
        int x = 0, y = 0, w = 0, h = 0;
        in >> x >> y >> w >> h;
        zwp_text_input_v3_set_cursor_rectangle(ti, x, y, w, h);
    } else if (command == "disable") {
        zwp_text_input_v3_disable(ti);
    } else {
        return false;
    }
    zwp_text_input_v3_commit(ti);
    return true;
}

}  // namespace

int main(int argc, char** argv)
{
    WindowOptions options;
    options.title = "kiln-text-input-client";
    options.width = 200;
    options.height = 150;
    if (!parse_window_options(argc, argv, options, usage, [](const std::string&, const char*, bool&) { return false; }))
        return 2;
    ClientWindow window(options);
    std::string error;
    if (!window.connect(error) || !window.shm()) {
        std::fprintf(stderr, "kiln-text-input-client: %s\n", error.empty() ? "no wl_shm" : error.c_str());
        return 1;
    }
    Client client;
    wl_registry* registry = wl_display_get_registry(window.display());
    wl_registry_add_listener(registry, &registry_listener, &client);
    wl_display_roundtrip(window.display());
    if (!client.seat || !client.manager) {
        std::fprintf(stderr, "kiln-text-input-client: no wl_seat or zwp_text_input_manager_v3\n");
        return 1;
    }
    client.keyboard = wl_seat_get_keyboard(client.seat);
    wl_keyboard_add_listener(client.keyboard, &keyboard_listener, &client);
    client.text_input = zwp_text_input_manager_v3_get_text_input(client.manager, client.seat);
    zwp_text_input_v3_add_listener(client.text_input, &text_input_listener, &client);

    auto buffer = ShmBuffer::create(window.shm(), window.width(), window.height(), error);
    if (!buffer) {
        std::fprintf(stderr, "kiln-text-input-client: %s\n", error.c_str());
        return 1;
    }
    buffer->fill(0, 0, window.width(), window.height(), options.color);
    wl_surface_attach(window.surface(), buffer->buffer(), 0, 0);
    wl_surface_damage(window.surface(), 0, 0, window.width(), window.height());
    wl_surface_commit(window.surface());
    wl_display_roundtrip(window.display());
    log_event("mapped");

    return run_stdin_commands(window.display(), [&](const std::string& line) { return run_command(client, line); });
}
