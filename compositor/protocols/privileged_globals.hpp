// PrivilegedGlobals: hides chosen globals (screencopy and the others that read the screen or the input, or change
// the whole session) from clients that should not have them, through libwayland's global filter.
//
// Two kinds of client are asked about. One that connected through a security context (a sandbox such as Flatpak)
// sees none of the guarded globals, whatever --restrict says, unless kiln.ini's [security] allow-sandboxed grants
// its app id one by name; its context, not its pid, answers (a pid may be reused, a context may not). Any other
// client is refused the globals --restrict names unless its process, as its socket credentials name it, is a running
// -s command or descends from one: cheap to check and good against an unrelated program reading the screen, but no
// boundary against processes that can already ptrace or signal the user's other programs.
//
// A hidden global is neither announced nor bindable (binding its name is libwayland's invalid_object error).
#pragma once

#include "compositor/session/options.hpp"
#include "compositor/wlr.hpp"

#include <functional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace kiln::compositor {

class PrivilegedGlobals {
public:
    // `started` says whether kiln started `pid` itself (and it still runs); `grants` are kiln.ini's.
    PrivilegedGlobals(wl_display* display, std::function<bool(pid_t)> started, std::vector<SandboxGrant> grants);
    ~PrivilegedGlobals();
    PrivilegedGlobals(const PrivilegedGlobals&) = delete;
    PrivilegedGlobals& operator=(const PrivilegedGlobals&) = delete;

    // Hides `global` (null: nothing) from sandboxed clients unless granted as `name` (one of
    // sandbox_hidden_protocols); `restricted`: also from the clients kiln did not start.
    void guard(const wl_global* global, std::string_view name, bool restricted);
    // How a client's sandbox is told: its app id (empty if the engine set none), or null for an unsandboxed client.
    void set_sandbox_lookup(std::function<const std::string*(const wl_client*)> app_id_of);

    bool trusted(pid_t pid) const;
    bool visible(const wl_client* client, const wl_global* global) const;

private:
    struct Guarded {
        const wl_global* global;
        std::string name;
        bool restricted;
    };
    static bool filter(const wl_client* client, const wl_global* global, void* data) noexcept;

    wl_display* display_;
    std::function<bool(pid_t)> started_;
    std::vector<SandboxGrant> grants_;
    std::function<const std::string*(const wl_client*)> app_id_of_;
    std::vector<Guarded> guarded_;
};

// The parent of `pid` from /proc/PID/stat; 0 when it cannot be read.
pid_t parent_pid(pid_t pid);

}  // namespace kiln::compositor
