// PrivilegedGlobals: hides chosen globals (screencopy and the others that read the screen or the input, or change
// the whole session) from clients that should not have them, through libwayland's global filter.
//
// Two kinds of client are asked about. One that connected through a security context (a sandbox such as Flatpak)
// sees none of the guarded globals, whatever --restrict says, unless kiln.ini's [security] allow-sandboxed grants
// its app id one by name; its context, not its pid, answers (a pid may be reused, a context may not). A context never
// gives more than the client that made it has: the app id is whatever that client said, so a grant of a global
// --restrict names counts only in a context made by a client kiln trusts (below). Any other client is refused the
// globals --restrict names unless its process, as its socket credentials name it, is a running -s command or
// descends from one: cheap to check and good against an unrelated program reading the screen, but no boundary
// against processes that can already ptrace or signal the user's other programs.
//
// A hidden global is neither announced nor bindable, and binding its name looks like binding a name that does not
// exist (libwayland's "invalid global" error with the interface the client asked for): libwayland compares the
// interface and version before it asks the filter, and its errors for those would name the hidden global's.
#pragma once

#include "compositor/protocol_kit/request_hooks.hpp"
#include "compositor/session/options.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace kiln::compositor {

// What PrivilegedGlobals asks about a client that connected through a security context.
struct SandboxedIdentity {
    std::string_view app_id;     // as the context's maker set it; empty if it set none
    bool creator_trusted;        // kiln trusted the client that made the context, when it made it
};

class PrivilegedGlobals {
public:
    // `started` says whether kiln started `pid` itself (and it still runs); `grants` are kiln.ini's. Bindings of
    // hidden globals are answered through `hooks`, which must outlive this.
    PrivilegedGlobals(wl_display* display, RequestHooks& hooks, std::function<bool(pid_t)> started,
                      std::vector<SandboxGrant> grants);
    ~PrivilegedGlobals();
    PrivilegedGlobals(const PrivilegedGlobals&) = delete;
    PrivilegedGlobals& operator=(const PrivilegedGlobals&) = delete;

    // Hides `global` (null: nothing) from sandboxed clients unless granted as `name` (one of
    // sandbox_hidden_protocols); `restricted`: also from the clients kiln did not start.
    void guard(const wl_global* global, std::string_view name, bool restricted);
    // How a client's sandbox is told: its context, or nullopt for an unsandboxed client.
    void set_sandbox_lookup(std::function<std::optional<SandboxedIdentity>(const wl_client*)> sandbox_of);

    bool trusted(pid_t pid) const;
    // Whether kiln trusts `client` with the globals --restrict names: unsandboxed, and its process is trusted.
    bool trusted(const wl_client* client) const;
    bool visible(const wl_client* client, const wl_global* global) const;

private:
    struct Guarded {
        const wl_global* global;
        std::string name;
        bool restricted;
    };
    static bool filter(const wl_client* client, const wl_global* global, void* data) noexcept;
    // wl_registry.bind of a name that is hidden from the client: the error a name that does not exist gets.
    void refuse_hidden_bind(const wl_protocol_logger_message& message) const;
    // The name libwayland gave `global`, whether or not `client` may see it.
    uint32_t name_of(const wl_global* global, const wl_client* client) const;

    wl_display* display_;
    std::function<bool(pid_t)> started_;
    std::vector<SandboxGrant> grants_;
    std::function<std::optional<SandboxedIdentity>(const wl_client*)> sandbox_of_;
    std::vector<Guarded> guarded_;
    mutable bool revealing_ = false;  // name_of is asking libwayland: the filter hides nothing
    RequestTable::Hook bind_hook_;
};

// The parent of `pid` from /proc/PID/stat; 0 when it cannot be read.
pid_t parent_pid(pid_t pid);

}  // namespace kiln::compositor
