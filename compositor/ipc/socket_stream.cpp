// SocketStream: reading and writing one client's socket without blocking, for the IPC sockets' framings.
#include "compositor/ipc/socket_stream.hpp"

#include "compositor/log.hpp"

#include <wayland-server-core.h>

#include <cerrno>
#include <sys/socket.h>
#include <unistd.h>

namespace kiln::compositor::ipc {

SocketStream::SocketStream(wl_event_loop* loop, int fd, const char* who, size_t max_queued, Take take,
                           std::function<void()> closed)
    : fd_(fd), who_(who), max_queued_(max_queued), take_(std::move(take)), closed_(std::move(closed))
{
    source_ = wl_event_loop_add_fd(loop, fd_, WL_EVENT_READABLE, &SocketStream::dispatch, this);
    if (!source_) {
        ::close(fd_);
        fd_ = -1;
    }
}

SocketStream::~SocketStream()
{
    if (source_)
        wl_event_source_remove(source_);
    if (fd_ >= 0)
        ::close(fd_);
}

int SocketStream::dispatch(int, uint32_t mask, void* data)
{
    auto* self = static_cast<SocketStream*>(data);
    if (mask & WL_EVENT_WRITABLE)
        self->flush();
    if (!self->closed() && (mask & WL_EVENT_READABLE))
        self->readable();
    if (!self->closed() && (mask & (WL_EVENT_HANGUP | WL_EVENT_ERROR)))
        self->close(nullptr);
    return 0;
}

void SocketStream::readable()
{
    char chunk[16 * 1024];
    for (;;) {
        const ssize_t got = ::recv(fd_, chunk, sizeof(chunk), MSG_DONTWAIT);
        if (got == 0) {
            close(nullptr);  // the client is done; what it asked before is answered already
            return;
        }
        if (got < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                close(nullptr);
            return;
        }
        in_.append(chunk, static_cast<size_t>(got));
        const size_t taken = take_(in_);
        if (closed())
            return;
        in_.erase(0, taken);
    }
}

void SocketStream::send(std::initializer_list<std::string_view> parts)
{
    if (closed())
        return;
    size_t size = 0;
    for (std::string_view part : parts)
        size += part.size();
    if (out_.size() - out_start_ + size > max_queued_) {
        close("it does not read its replies");
        return;
    }
    for (std::string_view part : parts)
        out_.append(part);
    flush();
}

void SocketStream::flush()
{
    while (out_start_ < out_.size()) {
        const ssize_t sent = ::send(fd_, out_.data() + out_start_, out_.size() - out_start_,
                                    MSG_DONTWAIT | MSG_NOSIGNAL);
        if (sent < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            close(nullptr);  // the client went away
            return;
        }
        out_start_ += static_cast<size_t>(sent);
    }
    // Written bytes are dropped at the end, or once they are many: never a copy per write.
    if (out_start_ == out_.size()) {
        out_.clear();
        out_start_ = 0;
    } else if (out_start_ > 64 * 1024) {
        out_.erase(0, out_start_);
        out_start_ = 0;
    }
    update_mask();
}

void SocketStream::update_mask()
{
    if (source_)
        wl_event_source_fd_update(source_,
                                  static_cast<uint32_t>(WL_EVENT_READABLE) |
                                      (out_start_ < out_.size() ? static_cast<uint32_t>(WL_EVENT_WRITABLE) : 0u));
}

void SocketStream::close(const char* why)
{
    if (closed())
        return;
    if (why)
        log::notice("%s: a client disconnected: %s", who_, why);
    // One last try at what is queued (an error saying why), without waiting.
    if (out_start_ < out_.size())
        (void)::send(fd_, out_.data() + out_start_, out_.size() - out_start_, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (source_) {
        wl_event_source_remove(source_);
        source_ = nullptr;
    }
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    fd_ = -1;
    in_.clear();
    out_.clear();
    out_start_ = 0;
    if (closed_)
        closed_();
}

}  // namespace kiln::compositor::ipc
