// AcquireFences: wl_surface.commit is seen before wlroots applies it, through a protocol logger.
//
// wlroots 0.15 has no hook between a client's commit request and the state being applied (0.16's client_commit
// signal came later), and a pending state can only be held with wlr_surface_lock_pending *before* the commit
// request runs. libwayland calls protocol loggers for every request before dispatching it, with the target
// resource: that is the one place where kiln sees the commit coming. The logger only inspects and locks; it never
// changes the request.
#include "compositor/output/acquire_fences.hpp"

#include <linux/dma-buf.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstring>

namespace kiln::compositor {
namespace {

// A sync_file of the fences a reader must wait for (the writers'), or -1 when there are none or the fd is no
// dma-buf (memfd "dma-bufs" of tests, drivers without implicit sync).
int export_read_fence(int dmabuf_fd)
{
    dma_buf_export_sync_file request{};
    request.flags = DMA_BUF_SYNC_READ;
    request.fd = -1;
    if (ioctl(dmabuf_fd, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &request) != 0)
        return -1;
    return request.fd;
}

bool signalled(int sync_file)
{
    pollfd p{sync_file, POLLIN, 0};
    return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

}  // namespace

AcquireFences::AcquireFences(wl_display* display) : loop_(wl_display_get_event_loop(display))
{
    logger_ = wl_display_add_protocol_logger(display, &AcquireFences::on_request, this);
}

AcquireFences::~AcquireFences()
{
    if (logger_)
        wl_protocol_logger_destroy(logger_);
    while (!pending_.empty())
        drop(pending_.front().get());
}

void AcquireFences::on_request(void* data, wl_protocol_logger_type type,
                               const wl_protocol_logger_message* message) noexcept
{
    if (type != WL_PROTOCOL_LOGGER_REQUEST || std::strcmp(message->message->name, "commit") != 0)
        return;
    if (std::strcmp(wl_resource_get_class(message->resource), wl_surface_interface.name) != 0)
        return;
    wlr_surface* surface = wlr_surface_from_resource(message->resource);
    if (surface)
        static_cast<AcquireFences*>(data)->before_commit(surface);
}

void AcquireFences::before_commit(wlr_surface* surface)
{
    if (!(surface->pending.committed & WLR_SURFACE_STATE_BUFFER) || !surface->pending.buffer)
        return;
    if (is_explicit_ && is_explicit_(surface))
        return;
    wlr_dmabuf_attributes dmabuf{};
    if (!wlr_buffer_get_dmabuf(surface->pending.buffer, &dmabuf))
        return;

    auto wait = std::make_unique<Wait>();
    for (int i = 0; i < dmabuf.n_planes; ++i) {
        bool seen = false;
        for (int j = 0; j < i; ++j)
            seen = seen || dmabuf.fd[j] == dmabuf.fd[i];
        if (seen)
            continue;
        const int fence = export_read_fence(dmabuf.fd[i]);
        if (fence < 0)
            continue;
        if (signalled(fence)) {
            close(fence);
            continue;
        }
        wait->fds.push_back(fence);
    }
    if (wait->fds.empty())
        return;  // ready now: the commit goes through as usual

    wait->owner = this;
    wait->surface = surface;
    wait->seq = wlr_surface_lock_pending(surface);
    wait->start = std::chrono::steady_clock::now();
    ++waits_;
    Wait* raw = wait.get();
    for (int fd : raw->fds) {
        raw->sources.push_back(wl_event_loop_add_fd(
            loop_, fd, WL_EVENT_READABLE,
            [](int fd, uint32_t, void* data) noexcept -> int {
                auto* w = static_cast<Wait*>(data);
                w->owner->fence_ready(w, fd);
                return 0;
            },
            raw));
    }
    // A client that goes away while waiting takes its surface and its cached state with it: nothing to apply.
    raw->surface_destroy.connect(&surface->events.destroy, [this, raw](void*) { drop(raw); });
    pending_.push_back(std::move(wait));
}

void AcquireFences::fence_ready(Wait* wait, int fd)
{
    for (size_t i = 0; i < wait->fds.size(); ++i) {
        if (wait->fds[i] != fd)
            continue;
        wl_event_source_remove(wait->sources[i]);
        close(fd);
        wait->fds.erase(wait->fds.begin() + static_cast<long>(i));
        wait->sources.erase(wait->sources.begin() + static_cast<long>(i));
        break;
    }
    if (!wait->fds.empty())
        return;
    wait_ms_.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wait->start).count());
    wlr_surface* surface = wait->surface;
    const uint32_t seq = wait->seq;
    drop(wait);
    // Applies the held state (and any commits cached behind it that are not held themselves).
    wlr_surface_unlock_cached(surface, seq);
}

void AcquireFences::drop(Wait* wait)
{
    for (size_t i = 0; i < wait->fds.size(); ++i) {
        wl_event_source_remove(wait->sources[i]);
        close(wait->fds[i]);
    }
    pending_.remove_if([wait](const auto& w) { return w.get() == wait; });
}

}  // namespace kiln::compositor
