// MsgServer: the room `kiln msg` talks to: the control socket, the commands and the desktop they act on, and the
// events sent to subscribed clients. Server makes it with the windows, workspaces, layout, seat and a reload.
#pragma once

#include "compositor/ipc/commands.hpp"
#include "compositor/ipc/control_socket.hpp"
#include "compositor/ipc/desktop_control.hpp"

#include <functional>
#include <memory>
#include <string>

namespace kiln::compositor::ipc {

class MsgServer {
public:
    struct Parts {
        Toplevels& toplevels;
        Workspaces& workspaces;
        wlr_output_layout* layout;
        wlr_seat* seat;
        std::function<std::string()> reload;  // empty when kiln.ini was read again, else why not
    };
    // Listens at control_socket_path(wayland_display); null (with `error`) when it cannot.
    static std::unique_ptr<MsgServer> start(wl_event_loop* loop, const std::string& wayland_display, Parts parts,
                                            std::string& error);
    MsgServer(const MsgServer&) = delete;
    MsgServer& operator=(const MsgServer&) = delete;

    const std::string& path() const { return socket_->path(); }
    // The desktop `kiln msg` drives; the sway IPC drives the same one, so that both name windows by the same ids.
    DesktopControl& desktop() { return desktop_; }

private:
    explicit MsgServer(Parts parts);

    DesktopControl desktop_;
    Commands commands_;
    std::unique_ptr<ControlSocket> socket_;  // last: its clients go before what they ask
};

}  // namespace kiln::compositor::ipc
