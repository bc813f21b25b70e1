// kiln's Wayland socket, and why kiln cannot listen on it, in words, read from XDG_RUNTIME_DIR and the socket there.
#include "compositor/session/wayland_socket.hpp"

#include <wayland-server-core.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
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

// Why no file can be made in `dir` (ENOSPC: out of space or inodes, EDQUOT, EROFS, ...), or empty if one can.
std::string cannot_create_in(const std::string& dir)
{
    std::string probe = dir + "/.kiln-socket-probe-XXXXXX";
    const int fd = mkostemp(probe.data(), O_CLOEXEC);
    if (fd < 0) {
        const int error = errno;
        if (error == ENOSPC) {
            struct statvfs fs {};
            if (statvfs(dir.c_str(), &fs) == 0 && fs.f_files > 0 && fs.f_ffree == 0)
                return "no file can be made there: its file system has no free inodes (" +
                       std::string(std::strerror(error)) + ")";
        }
        return "no file can be made there (" + std::string(std::strerror(error)) + ")";
    }
    close(fd);
    unlink(probe.c_str());
    return {};
}

// Whether another process holds the lock file at `path` (as libwayland does while it listens on the socket).
bool lock_held(const std::string& path)
{
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return false;
    const bool held = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd);  // a lock this probe took goes with the fd
    return held;
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
    // Files cannot be made there (out of inodes or space, over quota, read-only): libwayland's lock file and socket
    // are both new files. A probe made and removed at once says why.
    if (std::string cannot = cannot_create_in(dir); !cannot.empty())
        return "cannot open a Wayland socket in XDG_RUNTIME_DIR=" + dir + ": " + cannot;
    if (name.empty())
        return "cannot open a Wayland socket in XDG_RUNTIME_DIR=" + dir + ": wayland-0 to wayland-32 are all taken";
    const std::string path = dir + "/" + name;
    if (path.size() >= sizeof(sockaddr_un{}.sun_path))
        return "cannot listen on socket '" + name + "' in " + dir + ": the path is " + std::to_string(path.size()) +
               " bytes long, more than a Unix socket's " + std::to_string(sizeof(sockaddr_un{}.sun_path) - 1);
    if (accepts(path))
        return "cannot listen on socket '" + name + "' in " + dir + ": another compositor listens there";
    // libwayland holds NAME.lock while it listens: a compositor that is still starting (or a stale lock in use).
    if (lock_held(path + ".lock"))
        return "cannot listen on socket '" + name + "' in " + dir + ": in use (its lock file " + name +
               ".lock is held)";
    return "cannot listen on socket '" + name + "' in " + dir + ": " + name +
           " is there and cannot be replaced, or the socket cannot be made";
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
