// PipeWireLink: pw_loop + pw_context + pw_core, with the loop's fd watched by the portal's EventLoop.
#include "pipewire_link.hpp"

#include <cerrno>
#include <cstring>

#include <pipewire/pipewire.h>

#include "event_loop.hpp"

namespace portal {

PipeWireLink::PipeWireLink(EventLoop& loop) : events_(loop) {
    pw_init(nullptr, nullptr);
    loop_ = pw_loop_new(nullptr);
    if (!loop_) {
        error_ = "pw_loop_new failed";
        return;
    }
    context_ = pw_context_new(loop_, nullptr, 0);
    if (!context_) {
        error_ = "pw_context_new failed";
        return;
    }
    // The loop is only ever run from this thread: entered once, for the life of the link.
    pw_loop_enter(loop_);
    fd_ = pw_loop_get_fd(loop_);
    events_.add(fd_, [this](short) { pw_loop_iterate(loop_, 0); });
}

PipeWireLink::~PipeWireLink() {
    if (core_)
        pw_core_disconnect(core_);
    if (fd_ >= 0)
        events_.remove(fd_);
    if (context_)
        pw_context_destroy(context_);
    if (loop_) {
        pw_loop_leave(loop_);
        pw_loop_destroy(loop_);
    }
    pw_deinit();
}

bool PipeWireLink::connect() {
    if (core_)
        return true;
    if (!context_)
        return false;
    core_ = pw_context_connect(context_, nullptr, 0);
    if (!core_) {
        error_ = std::string("cannot connect to PipeWire: ") + std::strerror(errno);
        return false;
    }
    return true;
}

void PipeWireLink::iterate(int timeout_ms) {
    if (loop_)
        pw_loop_iterate(loop_, timeout_ms);
}

}  // namespace portal
