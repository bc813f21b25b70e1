// SwayIpcConnection: one client of kiln's sway IPC socket: i3-ipc messages ("i3-ipc", u32 payload length, u32 type,
// native byte order) read as they arrive and replies and events queued and written as the socket takes them, on
// kiln's event loop; bad framing closes this connection only.
#pragma once

#include "compositor/ipc/socket_stream.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

namespace kiln::compositor::ipc {

// The magic every i3-ipc message starts with, and the header's size (magic, length, type).
inline constexpr std::string_view sway_ipc_magic = "i3-ipc";
inline constexpr size_t sway_ipc_header = 6 + 4 + 4;
// The longest payload kiln reads; a longer one is answered with an error and its client disconnected.
inline constexpr uint32_t max_sway_payload = 1024 * 1024;
// What kiln keeps for a client that does not read its replies and events before disconnecting it.
inline constexpr size_t max_sway_queued = 4 * 1024 * 1024;

class SwayIpcConnection {
public:
    using MessageHandler = std::function<void(SwayIpcConnection&, uint32_t type, std::string_view payload)>;
    // Takes `fd` (non-blocking, connected). `closed` runs once when the connection closes; the owner frees it later.
    SwayIpcConnection(wl_event_loop* loop, int fd, MessageHandler message,
                      std::function<void(SwayIpcConnection&)> closed);
    ~SwayIpcConnection() = default;
    SwayIpcConnection(const SwayIpcConnection&) = delete;
    SwayIpcConnection& operator=(const SwayIpcConnection&) = delete;

    // Queues one message of `type` (a reply's type is the request's; an event's has the high bit set).
    void send(uint32_t type, std::string_view payload);
    // Writes what is queued if the socket takes it now, then closes.
    void close(const char* why) { stream_.close(why); }
    bool closed() const { return stream_.closed(); }

    // The event types (bit n: event 0x80000000 | n) this client subscribed to.
    uint32_t events = 0;

private:
    // Answers each whole message of `pending`; returns what it took.
    size_t take_messages(std::string_view pending);

    MessageHandler message_;
    SocketStream stream_;
};

}  // namespace kiln::compositor::ipc
