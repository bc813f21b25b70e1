// ControlSocket: the Unix socket `kiln msg` connects to ($XDG_RUNTIME_DIR/kiln-<WAYLAND_DISPLAY>.sock, mode 0600):
// accepts clients of kiln's own user only (SO_PEERCRED; anyone else is told so and closed) and keeps their
// connections, freeing a closed one on the next turn of the event loop.
#pragma once

#include "compositor/ipc/control_connection.hpp"

#include <functional>
#include <list>
#include <memory>
#include <string>

namespace kiln::compositor::ipc {

// At most this many clients at once; more are refused (a script that leaks connections must not exhaust kiln's fds).
inline constexpr size_t max_control_clients = 64;

class ControlSocket {
public:
    // Listens at `path` (a stale socket there is replaced: the Wayland socket's lock says the name is kiln's); null
    // with `error` when it cannot.
    static std::unique_ptr<ControlSocket> open(wl_event_loop* loop, const std::string& path,
                                               ControlConnection::LineHandler line, std::string& error);
    ~ControlSocket();  // closes every client and removes the socket file
    ControlSocket(const ControlSocket&) = delete;
    ControlSocket& operator=(const ControlSocket&) = delete;

    const std::string& path() const { return path_; }
    // Sends `line` to each open client `pick` accepts.
    void broadcast(const std::function<bool(const ControlConnection&)>& pick, const std::string& line);

private:
    ControlSocket(wl_event_loop* loop, int fd, std::string path, ControlConnection::LineHandler line);
    static int accept_ready(int fd, uint32_t mask, void* data);
    static void sweep(void* data);
    void accept_one(int fd);
    void closed(ControlConnection& connection);

    wl_event_loop* loop_;
    int fd_;
    std::string path_;
    ControlConnection::LineHandler line_;
    wl_event_source* source_ = nullptr;
    wl_event_source* sweep_ = nullptr;  // an idle source while closed connections wait to be freed
    std::list<std::unique_ptr<ControlConnection>> connections_;
};

// Where kiln's control socket for the Wayland socket `wayland_display` lies: empty (with `error`) without
// XDG_RUNTIME_DIR or when the path is too long for a Unix socket.
std::string control_socket_path(const std::string& wayland_display, std::string& error);

}  // namespace kiln::compositor::ipc
