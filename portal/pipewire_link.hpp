// PipeWireLink: the portal's connection to the PipeWire daemon, its loop driven from the EventLoop.
#pragma once

#include <string>

struct pw_loop;
struct pw_context;
struct pw_core;

namespace portal {

class EventLoop;

class PipeWireLink {
public:
    explicit PipeWireLink(EventLoop& loop);
    ~PipeWireLink();
    PipeWireLink(const PipeWireLink&) = delete;
    PipeWireLink& operator=(const PipeWireLink&) = delete;

    // Connects to the daemon where not connected yet (PipeWire may start after the portal); false and
    // error() where it cannot.
    bool connect();
    const std::string& error() const { return error_; }
    pw_core* core() const { return core_; }
    // Runs PipeWire's loop for up to timeout_ms: used while a D-Bus call waits for a stream's node id.
    void iterate(int timeout_ms);

private:
    EventLoop& events_;
    pw_loop* loop_ = nullptr;
    pw_context* context_ = nullptr;
    pw_core* core_ = nullptr;
    int fd_ = -1;
    std::string error_;
};

}  // namespace portal
