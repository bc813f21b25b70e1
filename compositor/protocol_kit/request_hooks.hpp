// RequestHooks: kiln's one protocol logger and the table of (interface, request) → handlers that every guard, rule
// check and commit gate registers into, run in the order HookOrder states, before libwayland dispatches the request.
#pragma once

#include "compositor/wlr.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::compositor {

// The order in which the handlers of one request run: earlier first, then in the order they were added. It is the
// order the separate protocol loggers ran in before this table (libwayland calls the newest logger first, so it was
// the reverse of their creation in Server::start()); where it matters:
// - the xdg rules post their protocol errors before RequestGuard and DefunctRoleGuard look at the same objects;
// - wl_surface.commit: viewporter's checks of the state the commit would apply run before the commit gate may hold
//   that commit back (a commit refused with a protocol error is never held).
enum class HookOrder {
    decoration_rules,   // zxdg_decoration_manager_v1.get_toplevel_decoration, xdg_toplevel.destroy
    xdg_surface_rules,  // wl_surface.attach, xdg_wm_base.get_xdg_surface, ...
    request_guard,      // wlroots 0.15 crashes defused (compositor/protocols/security/request_guard.cpp)
    defunct_role,       // wl_surface.destroy
    viewporter,         // wl_surface.commit ...
    colour_format,      // ... color-representation's values against the buffer's format ...
    commit_gate,        // ... held until its acquire point, FIFO barrier or target time (output/sync/)
    shm_validation,     // wl_shm_pool.create_buffer
    hidden_globals,     // wl_registry.bind of a global hidden from the client (protocols/privileged_globals.cpp)
    client_limits,      // wl_shm_pool.create_buffer: which pool the new buffer keeps mapped (client_limits.hpp)
};

// The table itself, without libwayland: what runs for a request, and in which order (unit-tested on its own).
class RequestTable {
public:
    using Handler = std::function<void(const wl_protocol_logger_message& message)>;
    static constexpr uint32_t any_request = UINT32_MAX;

    // Removes its handler from the table when destroyed; the table must outlive it.
    class Hook {
    public:
        Hook() = default;
        Hook(RequestTable* table, uint64_t id) : table_(table), id_(id) {}
        Hook(Hook&& other) noexcept;
        Hook& operator=(Hook&& other) noexcept;
        ~Hook();

    private:
        RequestTable* table_ = nullptr;
        uint64_t id_ = 0;
    };

    // Runs `handler` for each request `opcode` (or any_request) on a resource of `interface`, at `order`.
    [[nodiscard]] Hook add(std::string_view interface, uint32_t opcode, HookOrder order, Handler handler);
    // The same, naming the request as `interface` declares it; a name the interface lacks is kiln's bug (aborts).
    [[nodiscard]] Hook add(const wl_interface& interface, std::string_view request, HookOrder order, Handler handler);
    // Runs the handlers registered for `interface`'s request `opcode`, in order. Handlers must not add or remove
    // hooks while they run.
    void dispatch(std::string_view interface, uint32_t opcode, const wl_protocol_logger_message& message) const;
    size_t size() const;

private:
    struct Entry {
        uint32_t opcode;
        HookOrder order;
        uint64_t id;  // rising: within one order, first added runs first
        Handler handler;
    };
    void remove(uint64_t id);

    std::map<std::string, std::vector<Entry>, std::less<>> by_interface_;
    uint64_t next_id_ = 1;
};

// The table behind one protocol logger on `display` (none without a display), installed once; destroyed before the
// display.
class RequestHooks : public RequestTable {
public:
    explicit RequestHooks(wl_display* display);
    ~RequestHooks();
    RequestHooks(const RequestHooks&) = delete;
    RequestHooks& operator=(const RequestHooks&) = delete;

private:
    static void on_message(void* data, wl_protocol_logger_type type,
                           const wl_protocol_logger_message* message) noexcept;

    wl_protocol_logger* logger_ = nullptr;
};

}  // namespace kiln::compositor
