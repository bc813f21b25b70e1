// ControlSocket: listening, the peer's uid checked on each accept, and the clients' connections kept.
#include "compositor/ipc/control_socket.hpp"

#include "compositor/ipc/json_writer.hpp"
#include "compositor/log.hpp"

#include <wayland-server-core.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace kiln::compositor::ipc {

namespace {

void refuse(int fd, const std::string& why)
{
    JsonWriter reply;
    reply.begin_object().key("ok").value(false).key("error").value(why).end_object();
    const std::string line = reply.text() + "\n";
    (void)::send(fd, line.data(), line.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    ::close(fd);
}

}  // namespace

std::string control_socket_path(const std::string& wayland_display, std::string& error)
{
    const char* runtime = std::getenv("XDG_RUNTIME_DIR");
    if (!runtime || !*runtime) {
        error = "XDG_RUNTIME_DIR is not set";
        return {};
    }
    std::string path = std::string(runtime) + "/kiln-" + wayland_display + ".sock";
    if (path.size() >= sizeof(sockaddr_un::sun_path)) {
        error = path + " is too long for a Unix socket";
        return {};
    }
    return path;
}

std::unique_ptr<ControlSocket> ControlSocket::open(wl_event_loop* loop, const std::string& path,
                                                   ControlConnection::LineHandler line, std::string& error)
{
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.empty() || path.size() >= sizeof(address.sun_path)) {
        error = "bad socket path " + path;
        return nullptr;
    }
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        error = std::string("cannot make a socket: ") + std::strerror(errno);
        return nullptr;
    }
    ::unlink(path.c_str());
    // 0600 from the start: umask while binding, so that no other user can connect before a chmod.
    const mode_t old_mask = ::umask(0177);
    const int bound = ::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address));
    const int bind_errno = errno;
    ::umask(old_mask);
    if (bound < 0 || ::listen(fd, 16) < 0) {
        error = "cannot listen on " + path + ": " + std::strerror(bound < 0 ? bind_errno : errno);
        ::close(fd);
        return nullptr;
    }
    std::unique_ptr<ControlSocket> socket(new ControlSocket(loop, fd, path, std::move(line)));
    if (!socket->source_) {
        error = "cannot watch " + path + " on the event loop";
        return nullptr;
    }
    return socket;
}

ControlSocket::ControlSocket(wl_event_loop* loop, int fd, std::string path, ControlConnection::LineHandler line)
    : loop_(loop), fd_(fd), path_(std::move(path)), line_(std::move(line))
{
    source_ = wl_event_loop_add_fd(loop_, fd_, WL_EVENT_READABLE, &ControlSocket::accept_ready, this);
}

ControlSocket::~ControlSocket()
{
    connections_.clear();
    if (sweep_)
        wl_event_source_remove(sweep_);
    if (source_)
        wl_event_source_remove(source_);
    ::close(fd_);
    ::unlink(path_.c_str());
}

int ControlSocket::accept_ready(int fd, uint32_t, void* data)
{
    static_cast<ControlSocket*>(data)->accept_one(fd);
    return 0;
}

void ControlSocket::accept_one(int listen_fd)
{
    for (;;) {
        const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;  // EAGAIN: all taken; anything else: the next wake-up tries again
        ucred peer{};
        socklen_t length = sizeof(peer);
        if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) < 0) {
            log::notice("kiln msg: refused a client whose user cannot be read: %s", std::strerror(errno));
            refuse(fd, "kiln cannot tell which user this client runs as; refused");
            continue;
        }
        if (peer.uid != ::geteuid()) {
            log::notice("kiln msg: refused a client of uid %u (pid %d): kiln runs as uid %u", peer.uid, peer.pid,
                        ::geteuid());
            refuse(fd, "permission denied: kiln runs as uid " + std::to_string(::geteuid()) + ", this client as uid " +
                           std::to_string(peer.uid));
            continue;
        }
        size_t open = 0;
        for (const auto& connection : connections_)
            open += connection->closed() ? 0 : 1;
        if (open >= max_control_clients) {
            log::notice("kiln msg: refused a client: %zu clients are connected already", open);
            refuse(fd, "too many kiln msg clients connected");
            continue;
        }
        connections_.push_back(std::make_unique<ControlConnection>(
            loop_, fd, line_, [this](ControlConnection& connection) { closed(connection); }));
        if (connections_.back()->closed())
            connections_.pop_back();
    }
}

void ControlSocket::closed(ControlConnection&)
{
    // Freed on the next turn: the connection may be inside its own call (a reply, an event) just now.
    if (!sweep_)
        sweep_ = wl_event_loop_add_idle(loop_, &ControlSocket::sweep, this);
}

void ControlSocket::sweep(void* data)
{
    auto* self = static_cast<ControlSocket*>(data);
    self->sweep_ = nullptr;  // an idle source removes itself after it runs
    self->connections_.remove_if([](const auto& connection) { return connection->closed(); });
}

void ControlSocket::broadcast(const std::function<bool(const ControlConnection&)>& pick, const std::string& line)
{
    for (const auto& connection : connections_)
        if (!connection->closed() && pick(*connection))
            connection->send(line);
}

}  // namespace kiln::compositor::ipc
