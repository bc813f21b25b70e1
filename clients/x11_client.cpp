// kiln-x11-client: a plain X11 (xcb) client for the Xwayland tests: a solid window driven by commands on stdin, or
// a flood of map/unmap and create/destroy.
//
//   kiln-x11-client window RRGGBB X Y W H [override-redirect | no-delete | undecorated | splash]
//       maps a window of one colour where it asks, titled "x11 window RRGGBB" with WM_CLASS kiln-x11-client, prints
//       "window ID" and then, one per line, answers commands:
//       configure X Y W H | fullscreen on|off | active (prints "active ID", _NET_ACTIVE_WINDOW) | geometry |
//       move (_NET_WM_MOVERESIZE: a move with button 1, as a title bar asks for one) |
//       override-redirect X Y (the mapped window turns override-redirect and moves itself to X Y) |
//       decorations on|off (_MOTIF_WM_HINTS: whether the window manager may decorate it) | quit
//       undecorated: _MOTIF_WM_HINTS ask for no decorations from the start, as GTK's and Chromium's windows do;
//       splash: _NET_WM_WINDOW_TYPE is _NET_WM_WINDOW_TYPE_SPLASH (a start-up splash screen).
//       A managed window takes WM_DELETE_WINDOW (unless no-delete): asked to close, it prints "deleted" and exits 0.
//   kiln-x11-client flood N
//       N rounds of map, unmap, create and destroy as fast as xcb sends them; prints "flooded N" and exits 0.
#include <xcb/xcb.h>

#include <poll.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>

namespace {

struct Free {
    void operator()(void* p) const { std::free(p); }
};
template <typename T>
using Reply = std::unique_ptr<T, Free>;

xcb_atom_t atom(xcb_connection_t* c, const char* name)
{
    Reply<xcb_intern_atom_reply_t> reply(
        xcb_intern_atom_reply(c, xcb_intern_atom(c, 0, static_cast<uint16_t>(std::strlen(name)), name), nullptr));
    return reply ? reply->atom : xcb_atom_t{XCB_ATOM_NONE};
}

void set_string(xcb_connection_t* c, xcb_window_t window, xcb_atom_t property, xcb_atom_t type, const std::string& text)
{
    xcb_change_property(c, XCB_PROP_MODE_REPLACE, window, property, type, 8, static_cast<uint32_t>(text.size()),
                        text.data());
}

xcb_window_t create_window(xcb_connection_t* c, xcb_screen_t* screen, uint32_t rgb, int16_t x, int16_t y,
                           uint16_t w, uint16_t h, bool override_redirect)
{
    const xcb_window_t window = xcb_generate_id(c);
    // The root visual is 24-bit TrueColor under Xwayland: a pixel is 0xRRGGBB.
    const uint32_t values[] = {rgb, override_redirect ? 1u : 0u, XCB_EVENT_MASK_STRUCTURE_NOTIFY};
    xcb_create_window(c, XCB_COPY_FROM_PARENT, window, screen->root, x, y, w, h, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT,
                      screen->root_visual, XCB_CW_BACK_PIXEL | XCB_CW_OVERRIDE_REDIRECT | XCB_CW_EVENT_MASK,
                      values);
    if (!override_redirect) {
        // Where it asked to be, not where a window manager would like it (USPosition).
        const uint32_t hints[18] = {1u | 2u, static_cast<uint32_t>(x), static_cast<uint32_t>(y), w, h};
        xcb_change_property(c, XCB_PROP_MODE_REPLACE, window, XCB_ATOM_WM_NORMAL_HINTS, XCB_ATOM_WM_SIZE_HINTS, 32,
                            18, hints);
    }
    return window;
}

void set_fullscreen(xcb_connection_t* c, xcb_screen_t* screen, xcb_window_t window, bool on)
{
    // EWMH: a _NET_WM_STATE client message to the root, which the window manager answers.
    xcb_client_message_event_t event{};
    event.response_type = XCB_CLIENT_MESSAGE;
    event.format = 32;
    event.window = window;
    event.type = atom(c, "_NET_WM_STATE");
    event.data.data32[0] = on ? 1 : 0;  // _NET_WM_STATE_ADD / _REMOVE
    event.data.data32[1] = atom(c, "_NET_WM_STATE_FULLSCREEN");
    event.data.data32[3] = 1;  // from a normal application
    xcb_send_event(c, 0, screen->root,
                   XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT | XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY,
                   reinterpret_cast<const char*>(&event));
}

void request_move(xcb_connection_t* c, xcb_screen_t* screen, xcb_window_t window)
{
    Reply<xcb_query_pointer_reply_t> pointer(xcb_query_pointer_reply(c, xcb_query_pointer(c, window), nullptr));
    xcb_client_message_event_t event{};
    event.response_type = XCB_CLIENT_MESSAGE;
    event.format = 32;
    event.window = window;
    event.type = atom(c, "_NET_WM_MOVERESIZE");
    event.data.data32[0] = pointer ? static_cast<uint32_t>(pointer->root_x) : 0;
    event.data.data32[1] = pointer ? static_cast<uint32_t>(pointer->root_y) : 0;
    event.data.data32[2] = 8;  // _NET_WM_MOVERESIZE_MOVE
    event.data.data32[3] = 1;  // button 1
    event.data.data32[4] = 1;  // from a normal application
    xcb_send_event(c, 0, screen->root,
                   XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT | XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY,
                   reinterpret_cast<const char*>(&event));
}

xcb_window_t active_window(xcb_connection_t* c, xcb_screen_t* screen)
{
    Reply<xcb_get_property_reply_t> reply(xcb_get_property_reply(
        c, xcb_get_property(c, 0, screen->root, atom(c, "_NET_ACTIVE_WINDOW"), XCB_ATOM_WINDOW, 0, 1), nullptr));
    if (!reply || xcb_get_property_value_length(reply.get()) < 4)
        return XCB_WINDOW_NONE;
    return *static_cast<xcb_window_t*>(xcb_get_property_value(reply.get()));
}

// Handles what has arrived without blocking, so replies to commands are not held up by events; true when the
// window manager asked the window to close (WM_DELETE_WINDOW).
bool drain(xcb_connection_t* c, xcb_atom_t wm_protocols, xcb_atom_t delete_window)
{
    bool deleted = false;
    while (xcb_generic_event_t* event = xcb_poll_for_event(c)) {
        if ((event->response_type & 0x7f) == XCB_CLIENT_MESSAGE) {
            auto* message = reinterpret_cast<xcb_client_message_event_t*>(event);
            deleted |= message->type == wm_protocols && message->data.data32[0] == delete_window;
        }
        std::free(event);
    }
    return deleted;
}

// The next line on stdin, waiting for X events meanwhile; false at the end of input or when the window was asked to
// close (`deleted`).
bool next_line(xcb_connection_t* c, xcb_atom_t wm_protocols, xcb_atom_t delete_window, std::string& pending,
               std::string& line, bool& deleted)
{
    for (;;) {
        if (drain(c, wm_protocols, delete_window)) {
            deleted = true;
            return false;
        }
        const size_t end = pending.find('\n');
        if (end != std::string::npos) {
            line = pending.substr(0, end);
            pending.erase(0, end + 1);
            return true;
        }
        pollfd fds[] = {{STDIN_FILENO, POLLIN, 0}, {xcb_get_file_descriptor(c), POLLIN, 0}};
        if (poll(fds, 2, -1) < 0)
            return false;
        if (fds[0].revents) {
            char buffer[256];
            const ssize_t n = read(STDIN_FILENO, buffer, sizeof buffer);
            if (n <= 0)
                return false;
            pending.append(buffer, static_cast<size_t>(n));
        }
        if (fds[1].revents & (POLLHUP | POLLERR))
            return false;
    }
}

// _MOTIF_WM_HINTS: flags (2: the decorations field is set), functions, decorations (0: none, 1: all), input mode,
// status: the property programs that draw their own frames set to tell the window manager to draw none.
void set_decorations(xcb_connection_t* c, xcb_window_t window, bool on)
{
    const xcb_atom_t hints = atom(c, "_MOTIF_WM_HINTS");
    const uint32_t values[] = {2, 0, on ? 1u : 0u, 0, 0};
    xcb_change_property(c, XCB_PROP_MODE_REPLACE, window, hints, hints, 32, 5, values);
}

int run_window(xcb_connection_t* c, xcb_screen_t* screen, int argc, char** argv)
{
    if (argc < 7)
        return 2;
    const uint32_t rgb = static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 16));
    const auto x = static_cast<int16_t>(std::atoi(argv[3]));
    const auto y = static_cast<int16_t>(std::atoi(argv[4]));
    const auto w = static_cast<uint16_t>(std::atoi(argv[5]));
    const auto h = static_cast<uint16_t>(std::atoi(argv[6]));
    const bool override_redirect = argc > 7 && std::string(argv[7]) == "override-redirect";
    const bool takes_delete = !override_redirect && !(argc > 7 && std::string(argv[7]) == "no-delete");
    const xcb_window_t window = create_window(c, screen, rgb, x, y, w, h, override_redirect);
    // What a taskbar shows: the title (both ICCCM's and EWMH's) and the program's class ("instance\0class\0").
    const std::string title = std::string("x11 window ") + argv[2];
    set_string(c, window, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, title);
    set_string(c, window, atom(c, "_NET_WM_NAME"), atom(c, "UTF8_STRING"), title);
    set_string(c, window, XCB_ATOM_WM_CLASS, XCB_ATOM_STRING, std::string("kiln-x11-client\0kiln-x11-client\0", 32));
    const xcb_atom_t wm_protocols = atom(c, "WM_PROTOCOLS");
    const xcb_atom_t delete_window = atom(c, "WM_DELETE_WINDOW");
    if (takes_delete)
        xcb_change_property(c, XCB_PROP_MODE_REPLACE, window, wm_protocols, XCB_ATOM_ATOM, 32, 1, &delete_window);
    if (argc > 7 && std::string(argv[7]) == "undecorated")
        set_decorations(c, window, false);
    if (argc > 7 && std::string(argv[7]) == "splash") {
        const xcb_atom_t splash = atom(c, "_NET_WM_WINDOW_TYPE_SPLASH");
        xcb_change_property(c, XCB_PROP_MODE_REPLACE, window, atom(c, "_NET_WM_WINDOW_TYPE"), XCB_ATOM_ATOM, 32, 1,
                            &splash);
    }
    xcb_map_window(c, window);
    xcb_flush(c);
    std::printf("window %u\n", window);
    std::fflush(stdout);

    std::string pending;
    std::string line;
    bool deleted = false;
    while (next_line(c, wm_protocols, delete_window, pending, line, deleted)) {
        std::istringstream in(line);
        std::string command;
        in >> command;
        if (command == "configure") {
            int nx = 0, ny = 0, nw = 0, nh = 0;
            in >> nx >> ny >> nw >> nh;
            const uint32_t values[] = {static_cast<uint32_t>(nx), static_cast<uint32_t>(ny),
                                       static_cast<uint32_t>(nw), static_cast<uint32_t>(nh)};
            xcb_configure_window(c, window,
                                 XCB_CONFIG_WINDOW_X | XCB_CONFIG_WINDOW_Y | XCB_CONFIG_WINDOW_WIDTH |
                                     XCB_CONFIG_WINDOW_HEIGHT,
                                 values);
            std::printf("configured\n");
        } else if (command == "fullscreen") {
            std::string on;
            in >> on;
            set_fullscreen(c, screen, window, on == "on");
            std::printf("fullscreen %s\n", on.c_str());
        } else if (command == "override-redirect") {
            int nx = 0, ny = 0;
            in >> nx >> ny;
            const uint32_t on = 1;
            xcb_change_window_attributes(c, window, XCB_CW_OVERRIDE_REDIRECT, &on);
            // No longer redirected to the window manager: the move happens at once, and its ConfigureNotify
            // carries the new override-redirect flag.
            const uint32_t position[] = {static_cast<uint32_t>(nx), static_cast<uint32_t>(ny)};
            xcb_configure_window(c, window, XCB_CONFIG_WINDOW_X | XCB_CONFIG_WINDOW_Y, position);
            std::printf("override-redirect\n");
        } else if (command == "decorations") {
            std::string on;
            in >> on;
            set_decorations(c, window, on == "on");
            std::printf("decorations %s\n", on.c_str());
        } else if (command == "move") {
            request_move(c, screen, window);
            std::printf("move\n");
        } else if (command == "active") {
            std::printf("active %u\n", active_window(c, screen));
        } else if (command == "geometry") {
            Reply<xcb_get_geometry_reply_t> g(xcb_get_geometry_reply(c, xcb_get_geometry(c, window), nullptr));
            if (g)
                std::printf("geometry %d %d %u %u\n", g->x, g->y, g->width, g->height);
            else
                std::printf("geometry none\n");
        } else if (command == "quit") {
            break;
        } else {
            std::printf("unknown %s\n", command.c_str());
        }
        xcb_flush(c);
        std::fflush(stdout);
        if (xcb_connection_has_error(c))
            return 1;
    }
    if (deleted) {
        // A polite program: the window goes and the program ends by itself.
        xcb_destroy_window(c, window);
        xcb_flush(c);
        std::printf("deleted\n");
        std::fflush(stdout);
    }
    return xcb_connection_has_error(c) ? 1 : 0;
}

int run_flood(xcb_connection_t* c, xcb_screen_t* screen, int argc, char** argv)
{
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 1000;
    const xcb_window_t steady = create_window(c, screen, 0x808080, 10, 10, 64, 64, false);
    for (int i = 0; i < rounds; ++i) {
        xcb_map_window(c, steady);
        xcb_unmap_window(c, steady);
        // A window that lives for one round: created, mapped, and gone before anything could draw it.
        const xcb_window_t brief =
            create_window(c, screen, 0x00ff00, static_cast<int16_t>(i % 200), 20, 32, 32, i % 3 == 0);
        xcb_map_window(c, brief);
        if (i % 2)
            xcb_unmap_window(c, brief);
        xcb_destroy_window(c, brief);
        if (i % 64 == 0)
            xcb_flush(c);
    }
    xcb_destroy_window(c, steady);
    // A round trip: the server has taken every request before the client says it is done.
    std::free(xcb_get_input_focus_reply(c, xcb_get_input_focus(c), nullptr));
    if (xcb_connection_has_error(c))
        return 1;
    std::printf("flooded %d\n", rounds);
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s window RRGGBB X Y W H [override-redirect] | flood N\n", argv[0]);
        return 2;
    }
    xcb_connection_t* c = xcb_connect(nullptr, nullptr);
    if (xcb_connection_has_error(c)) {
        std::fprintf(stderr, "kiln-x11-client: cannot connect to DISPLAY\n");
        xcb_disconnect(c);
        return 1;
    }
    xcb_screen_t* screen = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
    const std::string mode = argv[1];
    int status = 2;
    if (mode == "window")
        status = run_window(c, screen, argc, argv);
    else if (mode == "flood")
        status = run_flood(c, screen, argc, argv);
    else
        std::fprintf(stderr, "kiln-x11-client: unknown mode %s\n", mode.c_str());
    xcb_disconnect(c);
    return status;
}
