// Raising kiln's soft limit on open files, and restoring it in forked children (what sway does).
#include "compositor/session/fd_limit.hpp"

#include "compositor/log.hpp"

#include <cerrno>
#include <cstring>

namespace kiln::compositor {
namespace {

// The limit is the process's, not an object's: what kiln started with is kept beside it, for the children that
// spawn_shell forks, which may only make async-signal-safe calls.
struct rlimit started_with {};
bool raised = false;

}  // namespace

void raise_fd_limit()
{
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) {
        log::error("cannot read the limit on open files: %s", std::strerror(errno));
        return;
    }
    if (limit.rlim_cur >= limit.rlim_max)
        return;
    started_with = limit;
    rlimit wanted = limit;
    wanted.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &wanted) != 0) {
        log::error("cannot raise the limit on open files from %llu to %llu: %s",
                   static_cast<unsigned long long>(limit.rlim_cur), static_cast<unsigned long long>(limit.rlim_max),
                   std::strerror(errno));
        return;
    }
    raised = true;
}

void restore_fd_limit_in_child()
{
    if (raised)
        setrlimit(RLIMIT_NOFILE, &started_with);
}

}  // namespace kiln::compositor
