// XdgSystemBellV1: xdg_system_bell_v1, the bell a client rings (a terminal's BEL, a refused key press); kiln counts
// the rings and runs kiln.ini's [bell] command for them.
//
// The command is what makes the bell heard or seen (paplay, a notification); a client ringing in a loop starts it at
// most once per kMinInterval, so a stuck client cannot make kiln fork without end.
#pragma once

#include "compositor/wlr.hpp"

#include <chrono>
#include <cstdint>
#include <string>

namespace kiln::compositor {

class XdgSystemBellV1 {
public:
    static constexpr std::chrono::milliseconds kMinInterval{100};

    // `command` is read at each ring (SIGHUP may change it; empty: none runs); it outlives this object. The command's
    // process is reaped by kiln's SIGCHLD handler (StartupCommands).
    XdgSystemBellV1(wl_display* display, const std::string& command);
    ~XdgSystemBellV1();
    XdgSystemBellV1(const XdgSystemBellV1&) = delete;
    XdgSystemBellV1& operator=(const XdgSystemBellV1&) = delete;

    // Every ring, and those a client tied to one of its windows.
    uint64_t rings() const { return rings_; }
    uint64_t window_rings() const { return window_rings_; }
    // How often the command was started.
    uint64_t commands_run() const { return commands_run_; }

    void ring(wlr_surface* surface);

private:
    static void bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept;

    const std::string& command_;
    wl_global* global_;
    uint64_t rings_ = 0;
    uint64_t window_rings_ = 0;
    uint64_t commands_run_ = 0;
    std::chrono::steady_clock::time_point last_run_{};
};

}  // namespace kiln::compositor
