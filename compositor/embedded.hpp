// EmbeddedServer: kiln inside another program (a test harness, wlcs), on an event-loop thread of its own.
//
// This header is the whole interface an embedding host needs: it names no wlroots or libwayland type, and every
// call is safe from any one host thread. Calls hand their work to the compositor's thread through an eventfd and
// return once it is done there, so what a client sees after a call (and a roundtrip) already includes its effect.
#pragma once

#include "compositor/session/options.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace kiln::compositor {

class EmbeddedServer {
public:
    // `options` as kiln's own, except that the backend is always headless (one output of headless_width ×
    // headless_height) and nothing touches the process: no socket, no environment, no signals, no startup commands.
    explicit EmbeddedServer(Options options = {});
    ~EmbeddedServer();
    EmbeddedServer(const EmbeddedServer&) = delete;
    EmbeddedServer& operator=(const EmbeddedServer&) = delete;

    // Starts the server and its thread; returns once it runs (true) or could not start (false, `error` says why).
    // A keyboard, a pointer and a touchscreen exist from then on, so clients see them when they bind wl_seat.
    bool start(std::string& error);
    // Destroys the server (its clients are disconnected) on its thread and joins that thread. Does nothing when
    // not running.
    void stop();
    // Whether the server takes work: from start() until stop(), or until its loop ended on its own.
    bool running() const;

    // A new client on one end of a socketpair; returns the other end (the caller owns it), or -1.
    int add_client();
    // Moves the toplevel whose wl_surface has the protocol id `surface_id`, of the client added as `client_fd`, so
    // that its window geometry's top-left corner is at (x, y) in the layout. False when there is no such toplevel.
    bool place_window(int client_fd, uint32_t surface_id, int x, int y);

    // Input from the host's devices, in layout coordinates; each call returns once kiln has handled it.
    void pointer_move_to(double x, double y);
    void pointer_move_by(double dx, double dy);
    void pointer_button(uint32_t button, bool pressed);  // BTN_* codes of linux/input-event-codes.h
    void key(uint32_t keycode, bool pressed);             // KEY_* (evdev) codes
    // Touch points are the host's ids; a point goes down on the surface under it and stays with it until up.
    void touch_down(int32_t id, double x, double y);
    void touch_move(int32_t id, double x, double y);
    void touch_up(int32_t id);

private:
    class Loop;
    std::unique_ptr<Loop> loop_;
};

}  // namespace kiln::compositor
