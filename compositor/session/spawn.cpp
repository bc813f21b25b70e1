// Forks shell commands for startup and key bindings, and sets the environment children of a kiln session see.
#include "compositor/session/spawn.hpp"

#include "compositor/session/fd_limit.hpp"
#include "renderer/cache/driver_shader_cache.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace kiln::compositor {

pid_t spawn_shell(const std::string& command, std::string& error)
{
    // Made before fork (the child only execs): kiln's placement of the drivers' shader caches stays kiln's own.
    const std::vector<std::string> environment = cache::environment_for_children(environ);
    std::vector<char*> envp;
    for (const auto& entry : environment)
        envp.push_back(const_cast<char*>(entry.c_str()));
    envp.push_back(nullptr);
    const char* const argv[] = {"sh", "-c", command.c_str(), nullptr};
    const pid_t pid = fork();
    if (pid < 0) {
        error = std::string("fork failed: ") + std::strerror(errno);
        return -1;
    }
    if (pid == 0) {
        // The event loop blocks SIGCHLD, SIGTERM, SIGINT and SIGHUP to read them through signalfd; a child must
        // not inherit that mask. Its own session: a terminal's job control is not kiln's.
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, nullptr);
        restore_fd_limit_in_child();
        setsid();
        execve("/bin/sh", const_cast<char* const*>(argv), envp.data());
        _exit(127);
    }
    return pid;
}

pid_t set_session_environment(const std::string& socket, const std::string& x_display)
{
    setenv("WAYLAND_DISPLAY", socket.c_str(), 1);
    // kiln's own DISPLAY (an outer X server under the x11 backend, already connected) is not its children's: only
    // Xwayland's is.
    if (x_display.empty())
        unsetenv("DISPLAY");
    else
        setenv("DISPLAY", x_display.c_str(), 1);
    // kiln first: xdg-desktop-portal takes ScreenCast from kiln-portal (kiln.portal, UseIn=kiln); wlroots next, for
    // what kiln-portal lacks, from xdg-desktop-portal-wlr where installed.
    setenv("XDG_CURRENT_DESKTOP", "kiln:wlroots", 1);
    setenv("XDG_SESSION_TYPE", "wayland", 1);
    const char* bus = std::getenv("DBUS_SESSION_BUS_ADDRESS");
    if (!bus || !*bus || !on_path("dbus-update-activation-environment"))
        return 0;
    std::string error;
    const pid_t pid = spawn_shell(
        x_display.empty()
            ? "exec dbus-update-activation-environment WAYLAND_DISPLAY XDG_CURRENT_DESKTOP XDG_SESSION_TYPE"
            : "exec dbus-update-activation-environment WAYLAND_DISPLAY DISPLAY XDG_CURRENT_DESKTOP XDG_SESSION_TYPE",
        error);
    return pid > 0 ? pid : 0;
}

bool on_path(const std::string& program)
{
    const char* path = std::getenv("PATH");
    const std::string_view dirs = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
    size_t start = 0;
    while (start <= dirs.size()) {
        const size_t end = std::min(dirs.find(':', start), dirs.size());
        const std::filesystem::path candidate = std::filesystem::path(dirs.substr(start, end - start)) / program;
        if (!candidate.parent_path().empty() && access(candidate.c_str(), X_OK) == 0 &&
            !std::filesystem::is_directory(candidate))
            return true;
        start = end + 1;
    }
    return false;
}

std::string find_terminal()
{
    for (const char* terminal : {"foot", "weston-terminal", "xterm"})
        if (on_path(terminal))
            return terminal;
    return {};
}

}  // namespace kiln::compositor
