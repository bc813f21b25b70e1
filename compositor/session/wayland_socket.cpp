// kiln's Wayland socket, and why kiln cannot listen on it, in words, read from XDG_RUNTIME_DIR and the socket there.
#include "compositor/session/wayland_socket.hpp"

#include <wayland-server-core.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace kiln::compositor {

namespace {

// Whether something accepts connections on the socket at `path` (another compositor listens there).
bool accepts(const std::string& path)
{
    sockaddr_un address{};
    if (path.size() >= sizeof(address.sun_path))
        return false;
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    const bool connected = connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0;
    close(fd);
    return connected;
}

}  // namespace

std::string socket_problem(const std::string& name)
{
    const char* runtime = std::getenv("XDG_RUNTIME_DIR");
    if (!runtime || !*runtime)
        return "cannot open a Wayland socket: XDG_RUNTIME_DIR is not set";
    const std::string dir = runtime;
    struct stat st {};
    if (stat(runtime, &st) != 0)
        return "cannot open a Wayland socket in XDG_RUNTIME_DIR=" + dir + ": " + std::strerror(errno);
    if (!S_ISDIR(st.st_mode))
        return "cannot open a Wayland socket in XDG_RUNTIME_DIR=" + dir + ": not a directory";
    if (access(runtime, W_OK | X_OK) != 0)
        return "cannot open a Wayland socket in XDG_RUNTIME_DIR=" + dir + ": " + std::strerror(errno);
    if (name.empty())
        return "cannot open a Wayland socket in XDG_RUNTIME_DIR=" + dir + ": wayland-0 to wayland-32 are all taken";
    if (accepts(dir + "/" + name))
        return "cannot listen on socket '" + name + "' in " + dir + ": another compositor listens there";
    // libwayland holds NAME.lock while it listens: a compositor that is still starting (or a stale lock in use).
    return "cannot listen on socket '" + name + "' in " + dir + ": in use (its lock file " + name +
           ".lock is held, or the name is too long)";
}

bool add_wayland_socket(wl_display* display, const std::string& wanted, std::string& name, std::string& error)
{
    if (!wanted.empty()) {
        if (wl_display_add_socket(display, wanted.c_str()) != 0) {
            error = socket_problem(wanted);
            return false;
        }
        name = wanted;
        return true;
    }
    const char* automatic = wl_display_add_socket_auto(display);
    if (!automatic) {
        error = socket_problem("");
        return false;
    }
    name = automatic;
    return true;
}

}  // namespace kiln::compositor
