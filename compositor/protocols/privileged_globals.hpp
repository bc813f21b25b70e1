// PrivilegedGlobals: hides chosen globals (wlr-screencopy) from every client except those kiln started itself.
//
// A hidden global is neither announced nor bindable (libwayland's global filter answers both). "Started by kiln"
// means the client's process, as its socket credentials name it, is a running -s command or descends from one:
// cheap to check and good against an unrelated program reading the screen. It is no boundary against processes that
// can already ptrace or signal the user's other programs.
#pragma once

#include "compositor/wlr.hpp"

#include <functional>
#include <sys/types.h>
#include <vector>

namespace kiln::compositor {

class PrivilegedGlobals {
public:
    // `started` says whether kiln started `pid` itself (and it still runs).
    PrivilegedGlobals(wl_display* display, std::function<bool(pid_t)> started);
    ~PrivilegedGlobals();
    PrivilegedGlobals(const PrivilegedGlobals&) = delete;
    PrivilegedGlobals& operator=(const PrivilegedGlobals&) = delete;

    void hide(const wl_global* global);
    bool trusted(pid_t pid) const;

private:
    static bool filter(const wl_client* client, const wl_global* global, void* data) noexcept;

    wl_display* display_;
    std::function<bool(pid_t)> started_;
    std::vector<const wl_global*> hidden_;
};

// The parent of `pid` from /proc/PID/stat; 0 when it cannot be read.
pid_t parent_pid(pid_t pid);

}  // namespace kiln::compositor
