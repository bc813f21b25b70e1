// SwayIpcConnection: reading i3-ipc messages and writing replies and events for one client, non-blocking.
#include "compositor/ipc/sway_ipc_connection.hpp"

#include "compositor/ipc/json_writer.hpp"
#include "compositor/log.hpp"

#include <wayland-server-core.h>

#include <cerrno>
#include <cstring>
#include <sys/socket.h>
#include <unistd.h>

namespace kiln::compositor::ipc {

SwayIpcConnection::SwayIpcConnection(wl_event_loop* loop, int fd, MessageHandler message,
                                     std::function<void(SwayIpcConnection&)> closed)
    : fd_(fd), message_(std::move(message)), closed_(std::move(closed))
{
    source_ = wl_event_loop_add_fd(loop, fd_, WL_EVENT_READABLE, &SwayIpcConnection::dispatch, this);
    if (!source_) {
        ::close(fd_);
        fd_ = -1;
    }
}

SwayIpcConnection::~SwayIpcConnection()
{
    if (source_)
        wl_event_source_remove(source_);
    if (fd_ >= 0)
        ::close(fd_);
}

int SwayIpcConnection::dispatch(int, uint32_t mask, void* data)
{
    auto* self = static_cast<SwayIpcConnection*>(data);
    if (mask & WL_EVENT_WRITABLE)
        self->flush();
    if (!self->closed() && (mask & WL_EVENT_READABLE))
        self->readable();
    if (!self->closed() && (mask & (WL_EVENT_HANGUP | WL_EVENT_ERROR)))
        self->close(nullptr);
    return 0;
}

void SwayIpcConnection::readable()
{
    char chunk[16 * 1024];
    for (;;) {
        const ssize_t got = ::recv(fd_, chunk, sizeof(chunk), MSG_DONTWAIT);
        if (got == 0) {
            close(nullptr);
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
        if (!take_messages())
            return;
    }
}

bool SwayIpcConnection::take_messages()
{
    size_t start = 0;
    while (!closed() && in_.size() - start >= sway_ipc_header) {
        const char* header = in_.data() + start;
        if (std::string_view(header, sway_ipc_magic.size()) != sway_ipc_magic) {
            // Not i3-ipc (or out of step with it): nothing kiln could answer would be read as a reply.
            close("its message does not start with \"i3-ipc\"");
            return false;
        }
        uint32_t length = 0;
        uint32_t type = 0;
        std::memcpy(&length, header + sway_ipc_magic.size(), sizeof(length));
        std::memcpy(&type, header + sway_ipc_magic.size() + 4, sizeof(type));
        if (length > max_sway_payload) {
            JsonWriter reply;
            reply.begin_object().key("success").value(false).key("error")
                .value("payload of " + std::to_string(length) + " bytes is longer than kiln reads (" +
                       std::to_string(max_sway_payload) + "); disconnected")
                .end_object();
            send(type, reply.text());
            close("its message was too long");
            return false;
        }
        if (in_.size() - start - sway_ipc_header < length)
            break;  // the rest of the payload is still on its way
        message_(*this, type, std::string_view(header + sway_ipc_header, length));
        start += sway_ipc_header + length;
    }
    if (closed())
        return false;
    in_.erase(0, start);
    return true;
}

void SwayIpcConnection::send(uint32_t type, std::string_view payload)
{
    if (closed())
        return;
    if (out_.size() - out_start_ + sway_ipc_header + payload.size() > max_sway_queued) {
        close("it does not read its replies");
        return;
    }
    const auto length = static_cast<uint32_t>(payload.size());
    out_.append(sway_ipc_magic);
    out_.append(reinterpret_cast<const char*>(&length), sizeof(length));
    out_.append(reinterpret_cast<const char*>(&type), sizeof(type));
    out_.append(payload);
    flush();
}

void SwayIpcConnection::flush()
{
    while (out_start_ < out_.size()) {
        const ssize_t sent = ::send(fd_, out_.data() + out_start_, out_.size() - out_start_,
                                    MSG_DONTWAIT | MSG_NOSIGNAL);
        if (sent < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            close(nullptr);
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

void SwayIpcConnection::update_mask()
{
    if (source_)
        wl_event_source_fd_update(source_,
                                  static_cast<uint32_t>(WL_EVENT_READABLE) |
                                      (out_start_ < out_.size() ? static_cast<uint32_t>(WL_EVENT_WRITABLE) : 0u));
}

void SwayIpcConnection::close(const char* why)
{
    if (closed())
        return;
    if (why)
        log::notice("sway IPC: a client disconnected: %s", why);
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
