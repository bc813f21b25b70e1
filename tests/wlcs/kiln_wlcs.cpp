// The wlcs integration module: Canonical's Wayland conformance suite runs kiln in-process through embedded.hpp.
//
// wlcs loads this module, creates a server per test, starts it (kiln's event loop then runs on its own thread),
// connects its clients through socketpairs, and drives pointer and touch from the test's thread. Every call below
// returns once kiln's thread has handled it, so a client's next roundtrip sees its effect.
#include "compositor/embedded.hpp"

#include <wayland-client-core.h>
#include <wayland-client-protocol.h>

#include <wlcs/display_server.h>
#include <wlcs/pointer.h>
#include <wlcs/touch.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace {

using kiln::compositor::EmbeddedServer;
using kiln::compositor::Options;
using kiln::compositor::PrecompileMode;

// The globals a client of this kiln sees, by name and version: wlcs skips the tests of protocols not listed.
struct Global {
    std::string name;
    uint32_t version;
};

Options test_options()
{
    Options options;
    options.headless_width = 1920;
    options.headless_height = 1080;
    // Programs compile on first use: most tests draw a few frames, and each test starts a new server.
    options.precompile = PrecompileMode::off;
    if (const char* dir = std::getenv("KILN_WLCS_CACHE_DIR"); dir && *dir)
        options.cache_dir = dir;
    return options;
}

// Asks a running kiln which globals it offers, as a client would.
std::vector<Global> probe_globals(EmbeddedServer& kiln)
{
    std::vector<Global> globals;
    const int fd = kiln.add_client();
    wl_display* display = fd >= 0 ? wl_display_connect_to_fd(fd) : nullptr;
    if (!display)
        return globals;
    static const wl_registry_listener listener = {
        [](void* data, wl_registry*, uint32_t, const char* interface, uint32_t version) {
            static_cast<std::vector<Global>*>(data)->push_back({interface, version});
        },
        [](void*, wl_registry*, uint32_t) {},
    };
    wl_registry* registry = wl_display_get_registry(display);
    wl_registry_add_listener(registry, &listener, &globals);
    wl_display_roundtrip(display);
    wl_registry_destroy(registry);
    wl_display_disconnect(display);  // closes fd
    return globals;
}

struct KilnServer : WlcsDisplayServer {
    EmbeddedServer kiln{test_options()};
    std::vector<Global> globals;
    std::vector<WlcsExtensionDescriptor> extensions;
    WlcsIntegrationDescriptor descriptor{};
    int32_t next_touch_id = 0;
};

KilnServer* kiln_server(WlcsDisplayServer* server)
{
    return static_cast<KilnServer*>(server);
}

void fail(const std::string& what)
{
    std::fprintf(stderr, "kiln-wlcs: %s\n", what.c_str());
    std::abort();  // wlcs has no way to report a server that did not start; the test run stops loudly
}

struct KilnPointer : WlcsPointer {
    EmbeddedServer* kiln;
};

struct KilnTouch : WlcsTouch {
    EmbeddedServer* kiln;
    int32_t id;
    bool down = false;
};

WlcsPointer* create_pointer(WlcsDisplayServer* server)
{
    // The device itself exists from start(): a wlcs pointer is a hand on it.
    auto* pointer = new KilnPointer{};
    pointer->version = WLCS_POINTER_VERSION;
    pointer->kiln = &kiln_server(server)->kiln;
    pointer->move_absolute = [](WlcsPointer* p, wl_fixed_t x, wl_fixed_t y) {
        static_cast<KilnPointer*>(p)->kiln->pointer_move_to(wl_fixed_to_double(x), wl_fixed_to_double(y));
    };
    pointer->move_relative = [](WlcsPointer* p, wl_fixed_t dx, wl_fixed_t dy) {
        static_cast<KilnPointer*>(p)->kiln->pointer_move_by(wl_fixed_to_double(dx), wl_fixed_to_double(dy));
    };
    pointer->button_down = [](WlcsPointer* p, int button) {
        static_cast<KilnPointer*>(p)->kiln->pointer_button(static_cast<uint32_t>(button), true);
    };
    pointer->button_up = [](WlcsPointer* p, int button) {
        static_cast<KilnPointer*>(p)->kiln->pointer_button(static_cast<uint32_t>(button), false);
    };
    pointer->destroy = [](WlcsPointer* p) { delete static_cast<KilnPointer*>(p); };
    return pointer;
}

WlcsTouch* create_touch(WlcsDisplayServer* server)
{
    // Each wlcs touch is one finger: a touch point id of its own on kiln's touchscreen.
    auto* touch = new KilnTouch{};
    touch->version = WLCS_TOUCH_VERSION;
    touch->kiln = &kiln_server(server)->kiln;
    touch->id = kiln_server(server)->next_touch_id++;
    // wlcs's header says wl_fixed_t, but its runner passes whole pixels (Touch::down_at(int x, int y) hands x and
    // y over unconverted, in 1.5.0 and still upstream; Mir's own integration reads them as ints too).
    touch->touch_down = [](WlcsTouch* t, wl_fixed_t x, wl_fixed_t y) {
        auto* self = static_cast<KilnTouch*>(t);
        self->kiln->touch_down(self->id, static_cast<double>(x), static_cast<double>(y));
        self->down = true;
    };
    touch->touch_move = [](WlcsTouch* t, wl_fixed_t x, wl_fixed_t y) {
        auto* self = static_cast<KilnTouch*>(t);
        self->kiln->touch_move(self->id, static_cast<double>(x), static_cast<double>(y));
    };
    touch->touch_up = [](WlcsTouch* t) {
        auto* self = static_cast<KilnTouch*>(t);
        self->kiln->touch_up(self->id);
        self->down = false;
    };
    touch->destroy = [](WlcsTouch* t) {
        auto* self = static_cast<KilnTouch*>(t);
        if (self->down)
            self->kiln->touch_up(self->id);  // a finger does not stay on the screen after its device is gone
        delete self;
    };
    return touch;
}

WlcsDisplayServer* create_server(int, const char**)
{
    auto server = std::make_unique<KilnServer>();
    server->version = 3;
    server->start = [](WlcsDisplayServer* s) {
        std::string error;
        if (!kiln_server(s)->kiln.start(error))
            fail("kiln did not start: " + error);
    };
    server->stop = [](WlcsDisplayServer* s) { kiln_server(s)->kiln.stop(); };
    server->create_client_socket = [](WlcsDisplayServer* s) { return kiln_server(s)->kiln.add_client(); };
    server->position_window_absolute = [](WlcsDisplayServer* s, wl_display* client, wl_surface* surface, int x,
                                          int y) {
        // The client is in this process: its fd is the one add_client returned, its surface id is kiln's too.
        const uint32_t id = wl_proxy_get_id(reinterpret_cast<wl_proxy*>(surface));
        if (!kiln_server(s)->kiln.place_window(wl_display_get_fd(client), id, x, y))
            std::fprintf(stderr, "kiln-wlcs: no toplevel for surface %u to place at %d,%d\n", id, x, y);
    };
    server->create_pointer = &create_pointer;
    server->create_touch = &create_touch;
    server->get_descriptor = [](const WlcsDisplayServer* s) {
        return &static_cast<const KilnServer*>(s)->descriptor;
    };
    server->start_on_this_thread = nullptr;

    // What this kiln offers, asked once per run of a kiln started for the purpose: every test's server has the same
    // options, so the same globals, and a second start per test would cost a third of the suite's time.
    static const std::vector<Global> offered = [] {
        EmbeddedServer probe(test_options());
        std::string error;
        if (!probe.start(error))
            fail("kiln did not start: " + error);
        return probe_globals(probe);
    }();
    server->globals = offered;
    for (const Global& global : server->globals)
        server->extensions.push_back({global.name.c_str(), global.version});
    server->descriptor.version = 1;
    server->descriptor.num_extensions = server->extensions.size();
    server->descriptor.supported_extensions = server->extensions.data();
    return server.release();
}

void destroy_server(WlcsDisplayServer* server)
{
    delete kiln_server(server);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const WlcsServerIntegration wlcs_server_integration = {
    1,
    &create_server,
    &destroy_server,
};
