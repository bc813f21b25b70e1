// xdg_wm_base: kiln's xdg-shell global (version 7): each client's binding, its xdg_surfaces, pings, and the
// announcement of new toplevels and popups.
#pragma once

#include "compositor/indexed_list.hpp"
#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <memory>

namespace kiln::compositor::xdg {

class PopupGrabs;
class Surface;
class WmBase;

// One client's xdg_wm_base object.
class WmClient {
public:
    WmClient(WmBase& shell, wl_client* client, uint32_t version, uint32_t id);
    ~WmClient();
    WmClient(const WmClient&) = delete;
    WmClient& operator=(const WmClient&) = delete;

    WmBase& shell() const { return shell_; }
    wl_client* client() const { return client_; }
    wl_resource* resource() const { return resource_; }
    void ping();
    void add(Surface* surface) { surfaces_.push_back(surface); }
    void remove(Surface* surface) { surfaces_.remove(surface); }
    bool has_surfaces() const { return !surfaces_.empty(); }
    void pong(uint32_t serial);

private:
    WmBase& shell_;
    wl_client* client_;
    wl_resource* resource_;
    IndexedList<Surface*> surfaces_;
    uint32_t ping_serial_ = 0;  // 0: none outstanding
    wl_event_source* ping_timer_;
};

class WmBase {
public:
    static constexpr uint32_t version = 7;

    explicit WmBase(wl_display* display);
    ~WmBase();
    WmBase(const WmBase&) = delete;
    WmBase& operator=(const WmBase&) = delete;

    wl_display* display() const { return display_; }
    wl_global* global() const { return global_; }
    // The popup grabs of `seat` (kiln has one seat; made on the first grab).
    PopupGrabs& grabs(wlr_seat* seat);
    // How long a client has to answer a ping before its surfaces hear ping_timeout.
    int ping_timeout_ms = 10000;

    struct {
        wl_signal new_surface;  // Surface*: a toplevel or popup at its first commit
    } events;

    // Called by WmClient.
    void remove(WmClient* client);

private:
    wl_display* display_;
    wl_global* global_;
    std::unique_ptr<PopupGrabs> grabs_;
    IndexedList<std::unique_ptr<WmClient>> clients_;
};

}  // namespace kiln::compositor::xdg
