// SecurityContextV1: wp-security-context-v1 (wlroots 0.15 lacks it). A sandbox engine (Flatpak) hands kiln a
// listening socket with the sandbox's engine, app id and instance id; kiln accepts the sandboxed app's connections
// there and remembers which context each client came through, for as long as that client lives.
//
// The listener lives until the engine's close_fd hangs up (not when the engine's own connection ends, as the spec
// says). A client that came through a context may not make one (the nested error): PrivilegedGlobals hides this
// global from it too, unless kiln.ini grants its app more. Any client may make a context and name any app in it, so
// each context also remembers whether kiln trusted its maker: a context never gives more than its maker has.
// A context holds four fds in kiln until its close_fd hangs up, whether or not its creator is still connected: a
// process may hold 16 (uncommitted or listening); the 17th is wl_display.error no_memory.
#pragma once

#include "compositor/wlr.hpp"

#include <functional>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <sys/types.h>

namespace kiln::compositor {

class SecurityContextV1 {
public:
    // Contexts one process (the creator's pid) may hold at once; Flatpak makes one per running app.
    static constexpr size_t max_per_creator = 16;

    // What the engine said about the connections of one context; empty strings for what it did not set.
    struct Metadata {
        std::string sandbox_engine;
        std::string app_id;
        std::string instance_id;
        bool creator_trusted = false;  // what `trusts` said of the client that made the context, then
    };

    // `trusts` says whether kiln trusts a client with the globals --restrict names (PrivilegedGlobals::trusted).
    SecurityContextV1(wl_display* display, std::function<bool(const wl_client*)> trusts);
    ~SecurityContextV1();
    SecurityContextV1(const SecurityContextV1&) = delete;
    SecurityContextV1& operator=(const SecurityContextV1&) = delete;

    // The context `client` connected through, or null for a client of kiln's own socket (or a host's fd).
    const Metadata* context_of(const wl_client* client) const;
    const wl_global* global() const { return global_; }
    bool trusts(const wl_client* client) const { return trusts_ && trusts_(client); }
    size_t listening() const { return listeners_.size(); }

    // For the request handlers: a committed context starts accepting on `listen_fd` (both fds are kept).
    void listen(int listen_fd, int close_fd, Metadata metadata, pid_t creator);
    // Whether `creator` may make one more context, counting it when so; release gives it back.
    bool reserve(pid_t creator);
    void release(pid_t creator);
    void add_manager(wl_resource* manager);
    void add_context(wl_resource* context);

    class ListenSocket;
    class SandboxedClient;

private:
    friend class ListenSocket;
    void accepted(int fd, const std::shared_ptr<const Metadata>& metadata);
    void stop(ListenSocket* socket);

    wl_display* display_;
    std::function<bool(const wl_client*)> trusts_;
    wl_global* global_;
    wl_list managers_;  // bound wp_security_context_manager_v1 resources, cleared when kiln's side goes
    wl_list contexts_;  // wp_security_context_v1 resources, likewise
    std::list<std::unique_ptr<ListenSocket>> listeners_;
    std::map<const wl_client*, std::unique_ptr<SandboxedClient>> clients_;
    std::map<pid_t, size_t> per_creator_;  // contexts each process holds, uncommitted or listening
};

}  // namespace kiln::compositor
