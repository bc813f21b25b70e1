// Runs startup commands through /bin/sh in the session's environment and reaps them (and other children) on SIGCHLD.
#include "compositor/session/startup_commands.hpp"

#include "compositor/log.hpp"
#include "compositor/session/spawn.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>

namespace kiln::compositor {

StartupCommands::StartupCommands(wl_event_loop* loop, std::function<void(int status)> all_exited)
    : all_exited_(std::move(all_exited))
{
    sigchld_ = wl_event_loop_add_signal(
        loop, SIGCHLD,
        [](int, void* data) noexcept -> int {
            static_cast<StartupCommands*>(data)->reap();
            return 0;
        },
        this);
}

StartupCommands::~StartupCommands()
{
    if (sigchld_)
        wl_event_source_remove(sigchld_);
    // Commands still running are left alone: they lose their compositor and exit on their own.
}

bool StartupCommands::spawn(const std::string& command, std::string& error)
{
    const pid_t pid = spawn_shell(command, error);
    if (pid < 0)
        return false;
    pids_.push_back(pid);
    spawned_any_ = true;
    return true;
}

void StartupCommands::spawn_all(const std::vector<std::string>& commands)
{
    for (const auto& command : commands) {
        std::string spawn_error;
        if (!spawn(command, spawn_error))
            log::error("cannot run '%s': %s", command.c_str(), spawn_error.c_str());
    }
}

bool StartupCommands::started(pid_t pid) const
{
    return std::find(pids_.begin(), pids_.end(), pid) != pids_.end();
}

void StartupCommands::reap()
{
    int status = 0;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        auto it = std::find(pids_.begin(), pids_.end(), pid);
        if (it == pids_.end())
            continue;  // some other child of ours (e.g. Xwayland-like helpers); not a startup command
        pids_.erase(it);
        int code = 0;
        if (WIFEXITED(status))
            code = WEXITSTATUS(status);
        else if (WIFSIGNALED(status))
            code = 128 + WTERMSIG(status);
        if (code != 0 && first_failure_ == 0)
            first_failure_ = code;
    }
    if (spawned_any_ && pids_.empty() && all_exited_) {
        auto done = std::move(all_exited_);
        all_exited_ = nullptr;
        done(first_failure_);
    }
}

}  // namespace kiln::compositor
