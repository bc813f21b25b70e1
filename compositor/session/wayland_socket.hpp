// kiln's Wayland socket: listening on it, and why kiln cannot, in words (libwayland only says that it cannot).
#pragma once

#include <string>

struct wl_display;

namespace kiln::compositor {

// The reason wl_display_add_socket(name) (or the first free wayland-N, when `name` is empty) failed, read from
// XDG_RUNTIME_DIR and the socket there: unset, missing, not a folder, not writable, no file can be made there (out of
// inodes or space, over quota), the path too long for a socket, or the name in use.
std::string socket_problem(const std::string& name);

// Listens on `wanted` (empty: the first free wayland-N) and sets `name`; false with `error` (socket_problem) if not.
bool add_wayland_socket(wl_display* display, const std::string& wanted, std::string& name, std::string& error);

}  // namespace kiln::compositor
