// ControlConnection: one `kiln msg` client on kiln's control socket: requests read a line at a time (a line has a
// size limit), replies and events queued and written as the socket takes them (the queue has a limit too), on
// kiln's event loop; kiln never blocks on a client.
#pragma once

#include "compositor/ipc/socket_stream.hpp"

#include <cstddef>
#include <functional>
#include <string_view>

namespace kiln::compositor::ipc {

// The longest request line kiln reads; a longer one is refused and its client disconnected.
inline constexpr size_t max_request_line = 64 * 1024;
// What kiln keeps for a client that does not read its replies and events before disconnecting it.
inline constexpr size_t max_queued_output = 1024 * 1024;

class ControlConnection {
public:
    using LineHandler = std::function<void(ControlConnection&, std::string_view line)>;
    // Takes `fd` (non-blocking, connected). `closed` runs once when the connection closes, from any of its calls:
    // the owner frees it later, never inside that call.
    ControlConnection(wl_event_loop* loop, int fd, LineHandler line, std::function<void(ControlConnection&)> closed);
    ~ControlConnection() = default;
    ControlConnection(const ControlConnection&) = delete;
    ControlConnection& operator=(const ControlConnection&) = delete;

    // Queues `line` and a newline; a client whose queue passes max_queued_output is disconnected.
    void send(std::string_view line) { stream_.send({line, "\n"}); }
    // Stops reading and writing and closes the socket (what is queued is written first if the socket takes it now).
    void close(const char* why) { stream_.close(why); }
    bool closed() const { return stream_.closed(); }

    // Events go to this client (the subscribe command).
    bool subscribed = false;

private:
    // Answers each whole line of `pending`; returns what it took.
    size_t take_lines(std::string_view pending);

    LineHandler line_;
    SocketStream stream_;
};

}  // namespace kiln::compositor::ipc
