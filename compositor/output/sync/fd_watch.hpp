// FdWatch: waits, through the event loop, until each of some fds (sync_files, syncobj eventfds) is readable, then
// says so once; the compositor thread never blocks. Owns the fds.
#pragma once

#include "compositor/output/sync/commit_gate.hpp"

#include <functional>
#include <vector>

namespace kiln::compositor {

class FdWatch final : public CommitGate::Watch {
public:
    // `ready` runs once, when the last fd became readable (it may destroy this watch).
    FdWatch(wl_event_loop* loop, std::vector<int> fds, std::function<void()> ready);
    ~FdWatch() override;
    FdWatch(const FdWatch&) = delete;
    FdWatch& operator=(const FdWatch&) = delete;

private:
    void readable(int fd);

    std::vector<int> fds_;
    std::vector<wl_event_source*> sources_;
    std::function<void()> ready_;
};

}  // namespace kiln::compositor
