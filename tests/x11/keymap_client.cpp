// kiln-test-keymap: prints the keymap and key repeat a compositor's wl_keyboard sends, for tests to read.
// Output: "repeat RATE DELAY" then the XKB keymap text. Exits 0 when both arrived, 1 when the seat has no keyboard
// or nothing came within a few seconds.
#include <wayland-client.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace {

struct State {
    wl_seat* seat = nullptr;
    wl_keyboard* keyboard = nullptr;
    bool has_keyboard = false;
    std::string keymap;
    bool got_keymap = false;
    int32_t rate = -1;
    int32_t delay = -1;
};

const wl_keyboard_listener keyboard_listener = {
    [](void* data, wl_keyboard*, uint32_t format, int32_t fd, uint32_t size) {
        auto* state = static_cast<State*>(data);
        if (format == WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1 && size > 0) {
            void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
            if (map != MAP_FAILED) {
                state->keymap.assign(static_cast<const char*>(map), strnlen(static_cast<const char*>(map), size));
                munmap(map, size);
                state->got_keymap = true;
            }
        }
        close(fd);
    },
    [](void*, wl_keyboard*, uint32_t, wl_surface*, wl_array*) {},
    [](void*, wl_keyboard*, uint32_t, wl_surface*) {},
    [](void*, wl_keyboard*, uint32_t, uint32_t, uint32_t, uint32_t) {},
    [](void*, wl_keyboard*, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t) {},
    [](void* data, wl_keyboard*, int32_t rate, int32_t delay) {
        auto* state = static_cast<State*>(data);
        state->rate = rate;
        state->delay = delay;
    },
};

const wl_seat_listener seat_listener = {
    [](void* data, wl_seat* seat, uint32_t capabilities) {
        auto* state = static_cast<State*>(data);
        state->has_keyboard = capabilities & WL_SEAT_CAPABILITY_KEYBOARD;
        if (state->has_keyboard && !state->keyboard) {
            state->keyboard = wl_seat_get_keyboard(seat);
            wl_keyboard_add_listener(state->keyboard, &keyboard_listener, state);
        }
    },
    [](void*, wl_seat*, const char*) {},
};

const wl_registry_listener registry_listener = {
    [](void* data, wl_registry* registry, uint32_t name, const char* interface, uint32_t) {
        auto* state = static_cast<State*>(data);
        if (std::strcmp(interface, wl_seat_interface.name) == 0 && !state->seat) {
            state->seat = static_cast<wl_seat*>(wl_registry_bind(registry, name, &wl_seat_interface, 5));
            wl_seat_add_listener(state->seat, &seat_listener, state);
        }
    },
    [](void*, wl_registry*, uint32_t) {},
};

}  // namespace

int main()
{
    wl_display* display = wl_display_connect(nullptr);
    if (!display) {
        std::fprintf(stderr, "kiln-test-keymap: cannot connect to the compositor\n");
        return 1;
    }
    State state;
    wl_registry* registry = wl_display_get_registry(display);
    wl_registry_add_listener(registry, &registry_listener, &state);
    // The keyboard may join the seat a moment after the socket opens (X11 backend start-up): wait for it.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!(state.got_keymap && state.rate >= 0) && std::chrono::steady_clock::now() < deadline) {
        if (wl_display_roundtrip(display) < 0)
            break;
        usleep(20000);
    }
    int status = 1;
    if (!state.seat)
        std::fprintf(stderr, "kiln-test-keymap: no wl_seat\n");
    else if (!state.has_keyboard)
        std::fprintf(stderr, "kiln-test-keymap: the seat has no keyboard\n");
    else if (!state.got_keymap || state.rate < 0)
        std::fprintf(stderr, "kiln-test-keymap: no keymap or repeat info within 5 s\n");
    else {
        std::printf("repeat %d %d\n%s", state.rate, state.delay, state.keymap.c_str());
        status = 0;
    }
    if (state.keyboard)
        wl_keyboard_release(state.keyboard);
    if (state.seat)
        wl_seat_release(state.seat);
    wl_registry_destroy(registry);
    wl_display_disconnect(display);
    return status;
}
