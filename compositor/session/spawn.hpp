// Starting programs for the session: a shell command in kiln's environment, and finding the terminal to start.
#pragma once

#include <string>
#include <sys/types.h>

namespace kiln::compositor {

// Runs `command` with /bin/sh -c in a new session, with kiln's environment (WAYLAND_DISPLAY and the session
// variables set_session_environment put there, DISPLAY only when Xwayland's) less the drivers' shader cache variables
// kiln set for itself (cache::environment_for_children); its signal mask cleared and its limit on open files the one
// kiln started with (fd_limit.hpp). The caller's SIGCHLD
// handling reaps it. -1 with `error` when fork fails.
pid_t spawn_shell(const std::string& command, std::string& error);

// Puts WAYLAND_DISPLAY=socket, DISPLAY=x_display (none when empty: no Xwayland), XDG_CURRENT_DESKTOP=kiln:wlroots and
// XDG_SESSION_TYPE=wayland in kiln's environment, for every child; and, where dbus-update-activation-environment is on PATH and a session bus is named, starts it (not
// waited for) so D-Bus-activated programs see them too. Returns its pid, or 0 when it was not started.
pid_t set_session_environment(const std::string& socket, const std::string& x_display);

// The first of foot, weston-terminal and xterm on PATH; empty when none is.
std::string find_terminal();

// Whether `program` is an executable file in one of PATH's directories.
bool on_path(const std::string& program);

}  // namespace kiln::compositor
