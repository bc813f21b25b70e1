// StdinCommands: a test client's loop: Wayland events and command lines from stdin, one at a time, each line
// answered "ok LINE" once the compositor has seen what it did.
#pragma once

#include "clients/event_log.hpp"

#include <wayland-client.h>

#include <poll.h>
#include <unistd.h>

#include <functional>
#include <string>

namespace kiln::clients {

// Runs until stdin ends (0), the compositor goes (1, logged "disconnected") or `run` refuses a line (0 for "quit",
// else 2).
inline int run_stdin_commands(wl_display* display, const std::function<bool(const std::string&)>& run)
{
    std::string pending;
    for (;;) {
        wl_display_flush(display);
        pollfd fds[2] = {{wl_display_get_fd(display), POLLIN, 0}, {STDIN_FILENO, POLLIN, 0}};
        if (poll(fds, 2, -1) < 0)
            return 1;
        if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) && wl_display_dispatch(display) < 0) {
            log_event("disconnected");
            return 1;
        }
        if (!(fds[1].revents & (POLLIN | POLLHUP)))
            continue;
        char chunk[512];
        const ssize_t n = read(STDIN_FILENO, chunk, sizeof chunk);
        if (n <= 0)
            return 0;
        pending.append(chunk, static_cast<size_t>(n));
        for (size_t end; (end = pending.find('\n')) != std::string::npos;) {
            const std::string line = pending.substr(0, end);
            pending.erase(0, end + 1);
            if (!run(line))
                return line == "quit" ? 0 : 2;
            wl_display_roundtrip(display);
            log_event("ok %s", line.c_str());
        }
    }
}

}  // namespace kiln::clients
