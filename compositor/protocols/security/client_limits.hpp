// ClientLimits: how much one client may make kiln hold (objects, wl_shm mappings); a client past a limit gets
// wl_display.error no_memory and kiln logs one line naming it. When a client that held many objects goes, the
// memory they took is handed back to the system (malloc_trim) once the loop is idle.
//
// Without limits one client could fill kiln's memory-map table with tiny shm pools (then every later client's
// pool failed to map) or grow kiln by hundreds of MB that stayed after it left. Every resource of every client is
// counted through libwayland's resource-created signal and its destroy listener; which pool a wl_buffer maps is
// learnt from the wl_shm_pool.create_buffer request (request table) that made it.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/protocol_kit/request_hooks.hpp"
#include "compositor/wlr.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>

namespace kiln::compositor {

class ClientLimits {
public:
    struct Caps {
        size_t objects = 50000;       // resources of every kind, per client
        size_t shm_mappings = 4096;   // wl_shm pools still mapped (a pool stays mapped while its buffers live)
        size_t trim_after = 10000;    // a client that held this many objects: malloc_trim once it is gone
    };

    // Watches every client `display` accepts from now on; `hooks` must outlive this.
    ClientLimits(wl_display* display, RequestHooks& hooks, Caps caps);
    explicit ClientLimits(wl_display* display, RequestHooks& hooks) : ClientLimits(display, hooks, Caps{}) {}
    ~ClientLimits();
    ClientLimits(const ClientLimits&) = delete;
    ClientLimits& operator=(const ClientLimits&) = delete;

    const Caps& caps() const { return caps_; }
    // How many times memory was handed back (for tests and --stats).
    size_t trims() const { return trims_; }

    class Tracked;
    struct Pool;
    struct ResourceWatch;

private:
    friend class Tracked;
    void client_created(wl_client* client);
    void finished(Tracked* tracked);  // its client and all its resources are gone
    void create_buffer(const wl_protocol_logger_message& message);

    wl_display* display_;
    Caps caps_;
    std::unordered_map<wl_client*, std::unique_ptr<Tracked>> clients_;  // also those gone with resources left
    wl_event_source* trim_ = nullptr;
    size_t trims_ = 0;
    RequestTable::Hook create_buffer_;
    wl::Listener client_created_;
};

// "pid 1234 (foot)": the client as a log line names it.
std::string describe_client(wl_client* client);

}  // namespace kiln::compositor
