// EmbeddedServer's promises, without wlcs: the process is left alone, clients come in by fd, input reaches them.
#include "compositor/embedded.hpp"

#include "clients/shm_buffer.hpp"
#include "xdg-shell-client-protocol.h"

#include <catch2/catch_test_macros.hpp>

#include <wayland-client.h>

#include <linux/input-event-codes.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

extern char** environ;

namespace {

using kiln::compositor::EmbeddedServer;
using kiln::compositor::Options;

Options small_output()
{
    Options options;
    options.headless_width = 800;
    options.headless_height = 600;
    options.precompile = kiln::compositor::PrecompileMode::off;
    return options;
}

std::vector<std::string> environment()
{
    std::vector<std::string> all;
    for (char** e = environ; *e; ++e)
        all.emplace_back(*e);
    return all;
}

// One client on an fd from add_client: its globals, one toplevel with a buffer, and what its seat told it.
struct TestClient {
    wl_display* display = nullptr;
    wl_compositor* compositor = nullptr;
    wl_shm* shm = nullptr;
    xdg_wm_base* wm_base = nullptr;
    wl_seat* seat = nullptr;
    wl_pointer* pointer = nullptr;
    wl_touch* touch = nullptr;
    wl_keyboard* keyboard = nullptr;
    uint32_t capabilities = 0;
    wl_surface* surface = nullptr;
    xdg_surface* xdg = nullptr;
    xdg_toplevel* toplevel = nullptr;
    std::unique_ptr<kiln::clients::ShmBuffer> buffer;
    bool configured = false;
    bool frame_done = false;

    wl_surface* pointer_surface = nullptr;
    double pointer_x = -1;
    double pointer_y = -1;
    std::vector<uint32_t> buttons_pressed;
    wl_surface* touch_surface = nullptr;
    int32_t touch_id = -1;
    double touch_x = -1;
    double touch_y = -1;
    std::vector<int32_t> touches_up;
    wl_surface* keyboard_surface = nullptr;
    std::vector<uint32_t> keys_pressed;

    explicit TestClient(int fd) : display(wl_display_connect_to_fd(fd))
    {
        REQUIRE(display);
        static const wl_registry_listener registry_listener = {
            [](void* data, wl_registry* registry, uint32_t name, const char* interface, uint32_t) {
                auto* self = static_cast<TestClient*>(data);
                const std::string iface = interface;
                if (iface == "wl_compositor")
                    self->compositor =
                        static_cast<wl_compositor*>(wl_registry_bind(registry, name, &wl_compositor_interface, 4));
                else if (iface == "wl_shm")
                    self->shm = static_cast<wl_shm*>(wl_registry_bind(registry, name, &wl_shm_interface, 1));
                else if (iface == "xdg_wm_base")
                    self->wm_base = static_cast<xdg_wm_base*>(wl_registry_bind(registry, name, &xdg_wm_base_interface, 1));
                else if (iface == "wl_seat")
                    self->seat = static_cast<wl_seat*>(wl_registry_bind(registry, name, &wl_seat_interface, 5));
            },
            [](void*, wl_registry*, uint32_t) {},
        };
        wl_registry* registry = wl_display_get_registry(display);
        wl_registry_add_listener(registry, &registry_listener, this);
        REQUIRE(wl_display_roundtrip(display) >= 0);
        wl_registry_destroy(registry);
        REQUIRE((compositor && shm && wm_base && seat));
        static const wl_seat_listener seat_listener = {
            [](void* data, wl_seat*, uint32_t caps) { static_cast<TestClient*>(data)->capabilities = caps; },
            [](void*, wl_seat*, const char*) {},
        };
        wl_seat_add_listener(seat, &seat_listener, this);
        REQUIRE(wl_display_roundtrip(display) >= 0);
    }

    ~TestClient()
    {
        buffer.reset();  // its wl_buffer goes before the connection
        wl_display_disconnect(display);
    }

    void listen_to_input()
    {
        static const wl_pointer_listener pointer_listener = {
            [](void* data, wl_pointer*, uint32_t, wl_surface* s, wl_fixed_t x, wl_fixed_t y) {
                auto* self = static_cast<TestClient*>(data);
                self->pointer_surface = s;
                self->pointer_x = wl_fixed_to_double(x);
                self->pointer_y = wl_fixed_to_double(y);
            },
            [](void* data, wl_pointer*, uint32_t, wl_surface*) {
                static_cast<TestClient*>(data)->pointer_surface = nullptr;
            },
            [](void* data, wl_pointer*, uint32_t, wl_fixed_t x, wl_fixed_t y) {
                auto* self = static_cast<TestClient*>(data);
                self->pointer_x = wl_fixed_to_double(x);
                self->pointer_y = wl_fixed_to_double(y);
            },
            [](void* data, wl_pointer*, uint32_t, uint32_t, uint32_t button, uint32_t state) {
                if (state == WL_POINTER_BUTTON_STATE_PRESSED)
                    static_cast<TestClient*>(data)->buttons_pressed.push_back(button);
            },
            [](void*, wl_pointer*, uint32_t, uint32_t, wl_fixed_t) {},
            [](void*, wl_pointer*) {},
            [](void*, wl_pointer*, uint32_t) {},
            [](void*, wl_pointer*, uint32_t, uint32_t) {},
            [](void*, wl_pointer*, uint32_t, int32_t) {},
        };
        static const wl_touch_listener touch_listener = {
            [](void* data, wl_touch*, uint32_t, uint32_t, wl_surface* s, int32_t id, wl_fixed_t x, wl_fixed_t y) {
                auto* self = static_cast<TestClient*>(data);
                self->touch_surface = s;
                self->touch_id = id;
                self->touch_x = wl_fixed_to_double(x);
                self->touch_y = wl_fixed_to_double(y);
            },
            [](void* data, wl_touch*, uint32_t, uint32_t, int32_t id) {
                static_cast<TestClient*>(data)->touches_up.push_back(id);
            },
            [](void* data, wl_touch*, uint32_t, int32_t, wl_fixed_t x, wl_fixed_t y) {
                auto* self = static_cast<TestClient*>(data);
                self->touch_x = wl_fixed_to_double(x);
                self->touch_y = wl_fixed_to_double(y);
            },
            [](void*, wl_touch*) {},
            [](void*, wl_touch*) {},
            [](void*, wl_touch*, int32_t, wl_fixed_t, wl_fixed_t) {},
            [](void*, wl_touch*, int32_t, wl_fixed_t) {},
        };
        static const wl_keyboard_listener keyboard_listener = {
            [](void*, wl_keyboard*, uint32_t, int32_t fd, uint32_t) { close(fd); },
            [](void* data, wl_keyboard*, uint32_t, wl_surface* s, wl_array*) {
                static_cast<TestClient*>(data)->keyboard_surface = s;
            },
            [](void* data, wl_keyboard*, uint32_t, wl_surface*) {
                static_cast<TestClient*>(data)->keyboard_surface = nullptr;
            },
            [](void* data, wl_keyboard*, uint32_t, uint32_t, uint32_t key, uint32_t state) {
                if (state == WL_KEYBOARD_KEY_STATE_PRESSED)
                    static_cast<TestClient*>(data)->keys_pressed.push_back(key);
            },
            [](void*, wl_keyboard*, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t) {},
            [](void*, wl_keyboard*, int32_t, int32_t) {},
        };
        keyboard = wl_seat_get_keyboard(seat);
        wl_keyboard_add_listener(keyboard, &keyboard_listener, this);
        pointer = wl_seat_get_pointer(seat);
        wl_pointer_add_listener(pointer, &pointer_listener, this);
        touch = wl_seat_get_touch(seat);
        wl_touch_add_listener(touch, &touch_listener, this);
    }

    // An xdg toplevel, configured and acked before its first buffer, shown (its first frame callback came).
    void map_window(int32_t width, int32_t height)
    {
        static const xdg_surface_listener xdg_listener = {
            [](void* data, xdg_surface* s, uint32_t serial) {
                xdg_surface_ack_configure(s, serial);
                static_cast<TestClient*>(data)->configured = true;
            },
        };
        static const wl_callback_listener frame_listener = {
            [](void* data, wl_callback* callback, uint32_t) {
                static_cast<TestClient*>(data)->frame_done = true;
                wl_callback_destroy(callback);
            },
        };
        surface = wl_compositor_create_surface(compositor);
        xdg = xdg_wm_base_get_xdg_surface(wm_base, surface);
        xdg_surface_add_listener(xdg, &xdg_listener, this);
        toplevel = xdg_surface_get_toplevel(xdg);
        wl_surface_commit(surface);
        while (!configured)
            REQUIRE(wl_display_dispatch(display) >= 0);
        std::string error;
        buffer = kiln::clients::ShmBuffer::create(shm, width, height, error);
        REQUIRE(buffer);
        buffer->fill(0, 0, width, height, 0x336699);
        wl_surface_attach(surface, buffer->buffer(), 0, 0);
        wl_surface_damage(surface, 0, 0, width, height);
        wl_callback_add_listener(wl_surface_frame(surface), &frame_listener, this);
        wl_surface_commit(surface);
        while (!frame_done)
            REQUIRE(wl_display_dispatch(display) >= 0);
    }
};

}  // namespace

TEST_CASE("embedded kiln opens no socket and changes no environment, signal or signal mask")
{
    const std::filesystem::path runtime =
        std::filesystem::temp_directory_path() / ("kiln-embedded-test-" + std::to_string(getpid()));
    std::filesystem::create_directories(runtime);
    setenv("XDG_RUNTIME_DIR", runtime.c_str(), 1);
    setenv("WAYLAND_DISPLAY", "the-hosts-display", 1);
    const std::vector<std::string> env_before = environment();
    sigset_t mask_before;
    pthread_sigmask(SIG_SETMASK, nullptr, &mask_before);
    // The test runner has handlers of its own (Catch2 catches SIGTERM and SIGINT): they must stay.
    const std::vector<int> signals = {SIGTERM, SIGINT, SIGCHLD};
    auto handlers = [&signals] {
        std::vector<void (*)(int)> all;
        for (int signal : signals) {
            struct sigaction action {};
            sigaction(signal, nullptr, &action);
            all.push_back(action.sa_handler);
        }
        return all;
    };
    const std::vector<void (*)(int)> handlers_before = handlers();

    {
        EmbeddedServer kiln(small_output());
        std::string error;
        REQUIRE(kiln.start(error));
        CHECK(kiln.running());
        CHECK(std::filesystem::is_empty(runtime));  // no wayland-N socket, no lock file
        CHECK(environment() == env_before);
        CHECK(handlers() == handlers_before);
        sigset_t mask_now;
        pthread_sigmask(SIG_SETMASK, nullptr, &mask_now);
        for (int signal : signals)
            CHECK(sigismember(&mask_now, signal) == sigismember(&mask_before, signal));
        kiln.stop();
        CHECK_FALSE(kiln.running());
    }
    CHECK(environment() == env_before);
    CHECK(std::filesystem::is_empty(runtime));
    std::filesystem::remove_all(runtime);
}

TEST_CASE("a client added by fd sees the host's devices, and pointer and touch reach the window the host placed")
{
    EmbeddedServer kiln(small_output());
    std::string error;
    REQUIRE(kiln.start(error));
    const int fd = kiln.add_client();
    REQUIRE(fd >= 0);
    TestClient client(fd);
    // The devices exist before the client: its first capabilities event names all three.
    CHECK(client.capabilities ==
          (WL_SEAT_CAPABILITY_POINTER | WL_SEAT_CAPABILITY_KEYBOARD | WL_SEAT_CAPABILITY_TOUCH));
    client.listen_to_input();
    client.map_window(100, 80);

    const uint32_t surface_id = wl_proxy_get_id(reinterpret_cast<wl_proxy*>(client.surface));
    REQUIRE(kiln.place_window(fd, surface_id, 300, 200));
    CHECK_FALSE(kiln.place_window(fd, surface_id + 1000, 300, 200));   // no such object
    CHECK_FALSE(kiln.place_window(fd + 1000, surface_id, 300, 200));   // no such client
    CHECK_FALSE(kiln.place_window(fd, wl_proxy_get_id(reinterpret_cast<wl_proxy*>(client.seat)), 0, 0));  // not a surface

    kiln.pointer_move_to(310, 225);
    REQUIRE(wl_display_roundtrip(client.display) >= 0);
    CHECK(client.pointer_surface == client.surface);
    CHECK(client.pointer_x == 10);
    CHECK(client.pointer_y == 25);
    kiln.pointer_move_by(5, -5);
    kiln.pointer_button(BTN_LEFT, true);
    kiln.pointer_button(BTN_LEFT, false);
    REQUIRE(wl_display_roundtrip(client.display) >= 0);
    CHECK(client.pointer_x == 15);
    CHECK(client.pointer_y == 20);
    CHECK(client.buttons_pressed == std::vector<uint32_t>{BTN_LEFT});
    kiln.pointer_move_to(700, 500);  // off the window
    REQUIRE(wl_display_roundtrip(client.display) >= 0);
    CHECK(client.pointer_surface == nullptr);

    // The newly mapped window has keyboard focus; a key the host presses reaches it (no binding of kiln's takes it).
    CHECK(client.keyboard_surface == client.surface);
    kiln.key(KEY_A, true);
    kiln.key(KEY_A, false);
    REQUIRE(wl_display_roundtrip(client.display) >= 0);
    CHECK(client.keys_pressed == std::vector<uint32_t>{KEY_A});
    // Alt+Tab is kiln's focus-next on a desktop; embedded, it is the client's.
    kiln.key(KEY_LEFTALT, true);
    kiln.key(KEY_TAB, true);
    kiln.key(KEY_TAB, false);
    kiln.key(KEY_LEFTALT, false);
    REQUIRE(wl_display_roundtrip(client.display) >= 0);
    CHECK(client.keys_pressed == std::vector<uint32_t>{KEY_A, KEY_LEFTALT, KEY_TAB});

    kiln.touch_down(7, 350, 260);
    REQUIRE(wl_display_roundtrip(client.display) >= 0);
    CHECK(client.touch_surface == client.surface);
    CHECK(client.touch_id == 7);
    CHECK(client.touch_x == 50);
    CHECK(client.touch_y == 60);
    kiln.touch_down(7, 320, 210);  // the id is still down: ignored
    kiln.touch_move(7, 500, 400);  // off the window, still its point
    REQUIRE(wl_display_roundtrip(client.display) >= 0);
    CHECK(client.touch_x == 200);
    CHECK(client.touch_y == 200);
    kiln.touch_up(7);
    kiln.touch_up(7);  // no longer down: ignored
    REQUIRE(wl_display_roundtrip(client.display) >= 0);
    CHECK(client.touches_up == std::vector<int32_t>{7});

    kiln.stop();
    // Stopping disconnected the client.
    CHECK(wl_display_roundtrip(client.display) < 0);
    // A stopped server takes no clients and no input, and does not block.
    CHECK(kiln.add_client() < 0);
    kiln.pointer_move_to(1, 1);
}

// libwayland guards each shm access with a SIGBUS handler it installs once per process; kiln's upload must run under
// that guard in every embedded server, not only the first (a truncated pool would otherwise kill the host).
TEST_CASE("a buffer from a truncated wl_shm pool is the buffer's invalid_fd, in a second embedded server too")
{
    for (int instance = 0; instance < 2; ++instance) {
        EmbeddedServer kiln(small_output());
        std::string error;
        REQUIRE(kiln.start(error));
        const int fd = kiln.add_client();
        REQUIRE(fd >= 0);
        TestClient client(fd);
        client.map_window(100, 80);

        const int32_t size = 100 * 80 * 4;
        const int file = memfd_create("kiln-embedded-truncated", MFD_CLOEXEC);
        REQUIRE(file >= 0);
        REQUIRE(ftruncate(file, size) == 0);
        wl_shm_pool* pool = wl_shm_create_pool(client.shm, file, size);
        wl_buffer* buffer = wl_shm_pool_create_buffer(pool, 0, 100, 80, 400, WL_SHM_FORMAT_XRGB8888);
        wl_shm_pool_destroy(pool);
        REQUIRE(wl_display_roundtrip(client.display) >= 0);
        REQUIRE(ftruncate(file, 12) == 0);
        close(file);
        wl_surface_attach(client.surface, buffer, 0, 0);
        wl_surface_damage(client.surface, 0, 0, 100, 80);
        wl_surface_commit(client.surface);
        for (int i = 0; i < 50 && wl_display_roundtrip(client.display) >= 0; ++i) {
        }
        const wl_interface* interface = nullptr;
        CHECK(wl_display_get_error(client.display) == EPROTO);
        CHECK(wl_display_get_protocol_error(client.display, &interface, nullptr) == WL_SHM_ERROR_INVALID_FD);
        CHECK(interface == &wl_buffer_interface);
        kiln.stop();
    }
}
