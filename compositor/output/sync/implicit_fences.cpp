// ImplicitFences: the writers' fences of each plane exported as a sync_file (DMA_BUF_IOCTL_EXPORT_SYNC_FILE) and
// polled by an FdWatch while the gate holds the commit.
#include "compositor/output/sync/implicit_fences.hpp"

#include "compositor/output/sync/fd_watch.hpp"

#include <linux/dma-buf.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

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

ImplicitFences::ImplicitFences(CommitGate& gate, wl_event_loop* loop)
    : gate_(gate), loop_(loop), source_(gate, [this](wlr_surface* surface) { before_commit(surface); })
{
}

void ImplicitFences::before_commit(wlr_surface* surface)
{
    if (!(surface->pending.committed & WLR_SURFACE_STATE_BUFFER) || !surface->pending.buffer)
        return;
    if (is_explicit_ && is_explicit_(surface))
        return;
    wlr_dmabuf_attributes dmabuf{};
    if (!wlr_buffer_get_dmabuf(surface->pending.buffer, &dmabuf))
        return;

    std::vector<int> fences;
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
        fences.push_back(fence);
    }
    if (fences.empty())
        return;  // ready now: the commit goes through as usual

    const uint32_t seq = surface->pending.seq;
    gate_.hold(surface, CommitGate::Condition::implicit_fence,
               std::make_unique<FdWatch>(loop_, std::move(fences), [this, surface, seq] {
                   gate_.ready(surface, seq, CommitGate::Condition::implicit_fence);
               }));
}

}  // namespace kiln::compositor
