// SwayIpcServer: listening, the peer's uid checked on each accept, each message answered and events broadcast.
#include "compositor/ipc/sway_ipc_server.hpp"

#include "compositor/ipc/control_socket.hpp"
#include "compositor/ipc/json_writer.hpp"
#include "compositor/log.hpp"

#include <wayland-server-core.h>

#include <cerrno>
#include <cstring>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace kiln::compositor::ipc {

namespace {

// At most this many clients at once (each bar holds two); more are closed at once.
constexpr size_t max_sway_clients = 64;

std::string failure(const std::string& error)
{
    JsonWriter json;
    json.begin_object().key("success").value(false).key("error").value(error).end_object();
    return json.text();
}

}  // namespace

std::string sway_socket_path(const std::string& wayland_display, std::string& error)
{
    std::string path = control_socket_path(wayland_display, error);
    if (path.empty())
        return {};
    path.insert(path.size() - 5, "-sway");  // before ".sock"
    if (path.size() >= sizeof(sockaddr_un::sun_path)) {
        error = path + " is too long for a Unix socket";
        return {};
    }
    return path;
}

SwayIpcServer::SwayIpcServer(wl_event_loop* loop, Parts parts)
    : loop_(loop), desktop_(parts.desktop), messages_(std::move(parts))
{
}

std::unique_ptr<SwayIpcServer> SwayIpcServer::start(wl_event_loop* loop, const std::string& wayland_display,
                                                    Parts parts, std::string& error)
{
    const std::string path = sway_socket_path(wayland_display, error);
    if (path.empty())
        return nullptr;
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    std::unique_ptr<SwayIpcServer> server(new SwayIpcServer(loop, std::move(parts)));
    server->fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (server->fd_ < 0) {
        error = std::string("cannot make a socket: ") + std::strerror(errno);
        return nullptr;
    }
    ::unlink(path.c_str());  // a stale one: the Wayland socket's lock says the name is kiln's
    // 0600 from the start: umask while binding, so that no other user can connect before a chmod.
    const mode_t old_mask = ::umask(0177);
    const int bound = ::bind(server->fd_, reinterpret_cast<const sockaddr*>(&address), sizeof(address));
    const int bind_errno = errno;
    ::umask(old_mask);
    if (bound == 0)
        server->path_ = path;  // the file is there now: the destructor removes it, on failure too
    if (bound < 0 || ::listen(server->fd_, 16) < 0) {
        error = "cannot listen on " + path + ": " + std::strerror(bound < 0 ? bind_errno : errno);
        return nullptr;
    }
    server->source_ = wl_event_loop_add_fd(loop, server->fd_, WL_EVENT_READABLE, &SwayIpcServer::accept_ready,
                                           server.get());
    if (!server->source_) {
        error = "cannot watch " + path + " on the event loop";
        return nullptr;
    }
    SwayIpcServer* self = server.get();
    server->desktop_.on_change([self](const DesktopControl::Change& change) {
        self->broadcast(change.window ? SwayEvent::window : SwayEvent::workspace, self->messages_.event(change));
    });
    return server;
}

SwayIpcServer::~SwayIpcServer()
{
    desktop_.on_change(nullptr);  // the desktop is `kiln msg`'s and outlives this server
    connections_.clear();
    if (sweep_)
        wl_event_source_remove(sweep_);
    if (source_)
        wl_event_source_remove(source_);
    if (fd_ >= 0)
        ::close(fd_);
    if (!path_.empty())
        ::unlink(path_.c_str());
}

int SwayIpcServer::accept_ready(int, uint32_t, void* data)
{
    static_cast<SwayIpcServer*>(data)->accept_one();
    return 0;
}

void SwayIpcServer::accept_one()
{
    for (;;) {
        const int fd = ::accept4(fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        // A stranger gets no i3-ipc reply: it has asked nothing yet, and a refusal it could take for the reply to
        // its first request would mislead more than the closed socket does.
        ucred peer{};
        socklen_t length = sizeof(peer);
        if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) < 0) {
            log::notice("sway IPC: refused a client whose user cannot be read: %s", std::strerror(errno));
            ::close(fd);
            continue;
        }
        if (peer.uid != ::geteuid()) {
            log::notice("sway IPC: refused a client of uid %u (pid %d): kiln runs as uid %u", peer.uid, peer.pid,
                        ::geteuid());
            ::close(fd);
            continue;
        }
        size_t open = 0;
        for (const auto& connection : connections_)
            open += connection->closed() ? 0 : 1;
        if (open >= max_sway_clients) {
            log::notice("sway IPC: refused a client: %zu clients are connected already", open);
            ::close(fd);
            continue;
        }
        connections_.push_back(std::make_unique<SwayIpcConnection>(
            loop_, fd,
            [this](SwayIpcConnection& connection, uint32_t type, std::string_view payload) {
                answer(connection, type, payload);
            },
            [this](SwayIpcConnection&) {
                if (!sweep_)
                    sweep_ = wl_event_loop_add_idle(loop_, &SwayIpcServer::sweep, this);
            }));
        if (connections_.back()->closed())
            connections_.pop_back();
    }
}

void SwayIpcServer::sweep(void* data)
{
    auto* self = static_cast<SwayIpcServer*>(data);
    self->sweep_ = nullptr;
    self->connections_.remove_if([](const auto& connection) { return connection->closed(); });
}

void SwayIpcServer::answer(SwayIpcConnection& connection, uint32_t type, std::string_view payload)
{
    switch (static_cast<SwayMessage>(type)) {
    case SwayMessage::run_command:
        connection.send(type, messages_.run_command(payload));
        return;
    case SwayMessage::get_workspaces:
        connection.send(type, messages_.workspaces());
        return;
    case SwayMessage::subscribe: {
        std::string error;
        const std::optional<uint32_t> mask = SwayIpcMessages::subscription(payload, error);
        if (!mask) {
            connection.send(type, failure(error));
            return;
        }
        connection.events |= *mask;
        // Exactly sway's text: waybar 0.9.17 compares the reply as a string.
        connection.send(type, "{\"success\": true}");
        if (*mask & (1u << static_cast<uint32_t>(SwayEvent::tick)))
            connection.send(sway_event_bit | static_cast<uint32_t>(SwayEvent::tick),
                            "{\"first\":true,\"payload\":\"\"}");
        return;
    }
    case SwayMessage::get_outputs:
        connection.send(type, messages_.outputs());
        return;
    case SwayMessage::get_tree:
        connection.send(type, messages_.tree());
        return;
    case SwayMessage::get_marks:
        connection.send(type, "[]");
        return;
    case SwayMessage::get_bar_config:
        connection.send(type, messages_.bar_config(payload));
        return;
    case SwayMessage::get_version:
        connection.send(type, messages_.version());
        return;
    case SwayMessage::get_binding_modes:
        connection.send(type, messages_.binding_modes());
        return;
    case SwayMessage::send_tick: {
        JsonWriter tick;
        tick.begin_object().key("first").value(false).key("payload").value(payload).end_object();
        broadcast(SwayEvent::tick, tick.text());
        connection.send(type, "{\"success\": true}");
        return;
    }
    case SwayMessage::sync:
        connection.send(type, "{\"success\": false}");  // as sway: kiln is no i3bar to sync with
        return;
    case SwayMessage::get_binding_state:
        connection.send(type, messages_.binding_state());
        return;
    case SwayMessage::get_seats:
        connection.send(type, messages_.seats());
        return;
    }
    connection.send(type, failure("unknown message type " + std::to_string(type) +
                                  " (kiln speaks a subset of sway's IPC)"));
}

void SwayIpcServer::broadcast(SwayEvent event, const std::string& payload)
{
    const uint32_t bit = 1u << static_cast<uint32_t>(event);
    for (const auto& connection : connections_)
        if (!connection->closed() && (connection->events & bit))
            connection->send(sway_event_bit | static_cast<uint32_t>(event), payload);
}

}  // namespace kiln::compositor::ipc
