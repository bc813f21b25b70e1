// SocketStream: one non-blocking client socket on kiln's event loop: what arrives is handed to the protocol's framing
// as it comes, what is queued is written as the socket takes it (up to a limit), and it closes once, saying why;
// kiln never blocks on a client. `kiln msg`'s lines and the i3-ipc messages are framed on top of it.
#pragma once

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>

struct wl_event_loop;
struct wl_event_source;

namespace kiln::compositor::ipc {

class SocketStream {
public:
    // Given what has arrived and is not taken yet, takes the whole messages at its start and returns how many bytes
    // that was; it may close the stream (bad framing, a message too long).
    using Take = std::function<size_t(std::string_view pending)>;
    // Takes `fd` (non-blocking, connected). `who` names the socket in log lines ("kiln msg", "sway IPC");
    // `max_queued` is what is kept for a client that does not read before it is disconnected. `closed` runs once
    // when the stream closes, from any of its calls: the owner frees it later, never inside that call.
    SocketStream(wl_event_loop* loop, int fd, const char* who, size_t max_queued, Take take,
                 std::function<void()> closed);
    ~SocketStream();
    SocketStream(const SocketStream&) = delete;
    SocketStream& operator=(const SocketStream&) = delete;

    // Queues the parts as one message (all or none); a client whose queue would pass the limit is disconnected.
    void send(std::initializer_list<std::string_view> parts);
    // Stops reading and writing and closes the socket (what is queued is written first if the socket takes it now).
    // `why` (may be null: the client went away) is logged.
    void close(const char* why);
    bool closed() const { return fd_ < 0; }

private:
    static int dispatch(int fd, uint32_t mask, void* data);
    void readable();
    void flush();
    void update_mask();

    wl_event_source* source_ = nullptr;
    int fd_ = -1;
    const char* who_;
    size_t max_queued_;
    std::string in_;
    std::string out_;
    size_t out_start_ = 0;  // what of out_ is written already
    Take take_;
    std::function<void()> closed_;
};

}  // namespace kiln::compositor::ipc
