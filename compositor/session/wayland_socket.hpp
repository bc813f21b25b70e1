// Why kiln cannot listen on its Wayland socket, in words (libwayland only says that it cannot).
#pragma once

#include <string>

namespace kiln::compositor {

// The reason wl_display_add_socket(name) (or the first free wayland-N, when `name` is empty) failed, read from
// XDG_RUNTIME_DIR and the socket there: unset, missing, not a folder, not writable, or the name in use.
std::string socket_problem(const std::string& name);

}  // namespace kiln::compositor
