// MsgServer: requests from the control socket answered by the commands; events to the clients that subscribed.
#include "compositor/ipc/msg_server.hpp"

namespace kiln::compositor::ipc {

MsgServer::MsgServer(Parts parts)
    : desktop_(parts.toplevels, parts.workspaces, parts.layout, parts.seat), commands_(desktop_, std::move(parts.reload))
{
}

std::unique_ptr<MsgServer> MsgServer::start(wl_event_loop* loop, const std::string& wayland_display, Parts parts,
                                            std::string& error)
{
    const std::string path = control_socket_path(wayland_display, error);
    if (path.empty())
        return nullptr;
    std::unique_ptr<MsgServer> server(new MsgServer(std::move(parts)));
    MsgServer* self = server.get();
    server->socket_ = ControlSocket::open(
        loop, path,
        [self](ControlConnection& connection, std::string_view line) {
            Commands::Answer answer = self->commands_.answer(line);
            if (answer.subscribe)
                connection.subscribed = true;
            connection.send(answer.reply);
        },
        error);
    if (!server->socket_)
        return nullptr;
    server->desktop_.on_event([self](const std::string& line) {
        if (self->socket_)
            self->socket_->broadcast([](const ControlConnection& c) { return c.subscribed; }, line);
    });
    return server;
}

}  // namespace kiln::compositor::ipc
