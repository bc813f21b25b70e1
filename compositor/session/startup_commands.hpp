// StartupCommands: the -s/--startup commands, run once clients can connect, reaped as they exit.
#pragma once

#include <wayland-server-core.h>

#include <functional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace kiln::compositor {

class StartupCommands {
public:
    // `all_exited` is called once, with the first non-zero exit status (or 0), when the last command has exited.
    StartupCommands(wl_event_loop* loop, std::function<void(int status)> all_exited);
    ~StartupCommands();
    StartupCommands(const StartupCommands&) = delete;
    StartupCommands& operator=(const StartupCommands&) = delete;

    // Runs `command` in kiln's environment (set_session_environment has put WAYLAND_DISPLAY there).
    bool spawn(const std::string& command, std::string& error);
    // Runs each of `commands`; one that cannot be run is logged and the others still run.
    void spawn_all(const std::vector<std::string>& commands);
    size_t running() const { return pids_.size(); }
    // Whether `pid` is a command this object started and has not yet reaped.
    bool started(pid_t pid) const;

private:
    void reap();

    std::function<void(int)> all_exited_;
    std::vector<pid_t> pids_;
    int first_failure_ = 0;
    bool spawned_any_ = false;
    wl_event_source* sigchld_ = nullptr;
};

}  // namespace kiln::compositor
