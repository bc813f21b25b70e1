// SwayIpcServer: kiln's second control socket, speaking the i3/sway IPC wire format so that bars (waybar's
// sway/workspaces) and i3/sway scripts work unchanged: $XDG_RUNTIME_DIR/kiln-<WAYLAND_DISPLAY>-sway.sock, mode 0600,
// clients of kiln's own user only, named to children in SWAYSOCK and I3SOCK. It drives the DesktopControl `kiln msg`
// drives, so that both name windows by the same ids.
#pragma once

#include "compositor/ipc/sway_ipc_connection.hpp"
#include "compositor/ipc/sway_ipc_messages.hpp"

#include <list>
#include <memory>
#include <string>

namespace kiln::compositor::ipc {

class SwayIpcServer {
public:
    using Parts = SwayIpcMessages::Parts;
    // Listens at sway_socket_path(wayland_display); null (with `error`) when it cannot.
    static std::unique_ptr<SwayIpcServer> start(wl_event_loop* loop, const std::string& wayland_display, Parts parts,
                                                std::string& error);
    ~SwayIpcServer();  // closes every client and removes the socket file
    SwayIpcServer(const SwayIpcServer&) = delete;
    SwayIpcServer& operator=(const SwayIpcServer&) = delete;

    const std::string& path() const { return path_; }

private:
    SwayIpcServer(wl_event_loop* loop, Parts parts);
    static int accept_ready(int fd, uint32_t mask, void* data);
    static void sweep(void* data);
    void accept_one();
    void answer(SwayIpcConnection& connection, uint32_t type, std::string_view payload);
    void broadcast(SwayEvent event, const std::string& payload);

    wl_event_loop* loop_;
    DesktopControl& desktop_;
    SwayIpcMessages messages_;
    int fd_ = -1;
    std::string path_;
    wl_event_source* source_ = nullptr;
    wl_event_source* sweep_ = nullptr;  // an idle source while closed connections wait to be freed
    std::list<std::unique_ptr<SwayIpcConnection>> connections_;
};

// Where the sway IPC socket for the Wayland socket `wayland_display` lies: empty (with `error`) without
// XDG_RUNTIME_DIR or when the path is too long for a Unix socket.
std::string sway_socket_path(const std::string& wayland_display, std::string& error);

}  // namespace kiln::compositor::ipc
