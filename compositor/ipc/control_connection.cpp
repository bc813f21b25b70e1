// ControlConnection: reading request lines and writing replies for one client of the control socket, non-blocking.
#include "compositor/ipc/control_connection.hpp"

#include "compositor/ipc/json_writer.hpp"
#include "compositor/log.hpp"

#include <wayland-server-core.h>

#include <cerrno>
#include <sys/socket.h>
#include <unistd.h>

namespace kiln::compositor::ipc {

ControlConnection::ControlConnection(wl_event_loop* loop, int fd, LineHandler line,
                                     std::function<void(ControlConnection&)> closed)
    : fd_(fd), line_(std::move(line)), closed_(std::move(closed))
{
    source_ = wl_event_loop_add_fd(loop, fd_, WL_EVENT_READABLE, &ControlConnection::dispatch, this);
    if (!source_) {
        ::close(fd_);
        fd_ = -1;
    }
}

ControlConnection::~ControlConnection()
{
    if (source_)
        wl_event_source_remove(source_);
    if (fd_ >= 0)
        ::close(fd_);
}

int ControlConnection::dispatch(int, uint32_t mask, void* data)
{
    auto* self = static_cast<ControlConnection*>(data);
    if (mask & WL_EVENT_WRITABLE)
        self->flush();
    if (!self->closed() && (mask & WL_EVENT_READABLE))
        self->readable();
    if (!self->closed() && (mask & (WL_EVENT_HANGUP | WL_EVENT_ERROR)))
        self->close(nullptr);
    return 0;
}

void ControlConnection::readable()
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
        // Each whole line is a request; the client may be closed by one (its replies overflowing).
        size_t start = 0;
        for (size_t end; !closed() && (end = in_.find('\n', start)) != std::string::npos; start = end + 1) {
            if (end - start > max_request_line)
                break;
            std::string_view line(in_.data() + start, end - start);
            if (line.find_first_not_of(" \t\r") == std::string_view::npos)
                continue;  // an empty line asks nothing
            line_(*this, line);
        }
        if (closed())
            return;
        in_.erase(0, start);
        // What is left has no newline yet; past the limit it never will be a request kiln reads.
        const size_t newline = in_.find('\n');
        if ((newline == std::string::npos ? in_.size() : newline) > max_request_line) {
            JsonWriter reply;
            reply.begin_object().key("ok").value(false).key("error")
                .value("request line longer than " + std::to_string(max_request_line) + " bytes; disconnected")
                .end_object();
            send(reply.text());
            close("its request line was too long");
            return;
        }
    }
}

void ControlConnection::send(std::string_view line)
{
    if (closed())
        return;
    if (out_.size() - out_start_ + line.size() + 1 > max_queued_output) {
        close("it does not read its replies");
        return;
    }
    out_.append(line);
    out_ += '\n';
    flush();
}

void ControlConnection::flush()
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
    if (out_start_ == out_.size()) {
        out_.clear();
        out_start_ = 0;
    } else if (out_start_ > 64 * 1024) {
        out_.erase(0, out_start_);
        out_start_ = 0;
    }
    update_mask();
}

void ControlConnection::update_mask()
{
    if (source_)
        wl_event_source_fd_update(source_,
                                  static_cast<uint32_t>(WL_EVENT_READABLE) |
                                      (out_start_ < out_.size() ? static_cast<uint32_t>(WL_EVENT_WRITABLE) : 0u));
}

void ControlConnection::close(const char* why)
{
    if (closed())
        return;
    if (why)
        log::notice("kiln msg: a client disconnected: %s", why);
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
        closed_(*this);
}

}  // namespace kiln::compositor::ipc
