// ExtForeignToplevelListV1: ext_foreign_toplevel_list_v1, the list of windows (xdg and X11, from Toplevels) that
// capture pickers and window switchers read: one handle per mapped window and list, with a unique identifier, title
// and app_id, closed when the window unmaps. Read-only: acting on a window is wlr-foreign-toplevel's job.
//
// It names every client's windows to any client that binds it, so --restrict foreign-toplevel-list hides it.
#pragma once

#include "compositor/indexed_list.hpp"
#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <vector>

namespace kiln::compositor {

class Toplevels;
class Toplevel;

class ExtForeignToplevelListV1 {
public:
    ExtForeignToplevelListV1(wl_display* display, Toplevels& toplevels);
    ~ExtForeignToplevelListV1();
    ExtForeignToplevelListV1(const ExtForeignToplevelListV1&) = delete;
    ExtForeignToplevelListV1& operator=(const ExtForeignToplevelListV1&) = delete;

    const wl_global* global() const { return global_; }
    // The window an ext_foreign_toplevel_handle_v1 of ours names, or null once it closed (image capture sources).
    static Toplevel* toplevel_of(wl_resource* handle);
    // The identifier this list gives `toplevel` while it is mapped (`kiln msg windows` shows it, so kiln-portal can
    // match its handles); empty while unmapped.
    std::string identifier_of(const Toplevel& toplevel) const;

    class Window;
    // A window is found by its Toplevel.
    struct WindowKey {
        const void* operator()(const std::unique_ptr<Window>& window) const;
    };

private:
    static void bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept;

    wl_global* global_;
    IndexedList<wl_resource*> lists_;  // bound and not stopped
    IndexedList<std::unique_ptr<Window>, WindowKey> windows_;
    std::string id_prefix_;  // differs between runs, so an identifier is never reused
    uint64_t next_id_ = 1;
    wl::Listener add_;
    wl::Listener remove_;
};

}  // namespace kiln::compositor
