// XdgToplevelIconV1: xdg_toplevel_icon_manager_v1, a window's icon from wl_shm pixels or an icon name, applied with
// the toplevel's next commit and handed to kiln's window (its server-side title bar shows it).
//
// kiln resolves no icon names (it has no icon theme lookup): as the protocol asks, it falls back to the pixel buffers,
// and an icon with a name alone leaves the window with none. Of the buffers, the one nearest the size the title bar
// draws (preferred_size, announced with icon_size) is kept, copied when it is added, so the client's pool may go.
#pragma once

#include "compositor/wlr.hpp"

#include <functional>
#include <memory>
#include <unordered_map>

namespace kiln::compositor {
namespace xdg {
class Surface;
}  // namespace xdg


struct TitleIcon;

class XdgToplevelIconV1 {
public:
    // `apply` gives the xdg toplevel of `xdg` its icon (null: none) as its commit applies it.
    using Apply = std::function<void(xdg::Surface* xdg, std::shared_ptr<const TitleIcon> icon)>;

    XdgToplevelIconV1(wl_display* display, int preferred_size, Apply apply);
    ~XdgToplevelIconV1();
    XdgToplevelIconV1(const XdgToplevelIconV1&) = delete;
    XdgToplevelIconV1& operator=(const XdgToplevelIconV1&) = delete;

    struct Icon;
    struct Pending;

private:
    static void bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept;
    static void create_icon(wl_client* client, wl_resource* manager, uint32_t id) noexcept;
    static void set_icon(wl_client* client, wl_resource* manager, wl_resource* toplevel, wl_resource* icon) noexcept;
    void committed(Pending& pending);
    void forget(wl_resource* toplevel);

    int preferred_size_;
    Apply apply_;
    wl_global* global_;
    // Per xdg_toplevel resource that had set_icon: the icon waiting for its surface's commit.
    std::unordered_map<wl_resource*, std::unique_ptr<Pending>> pending_;
};

}  // namespace kiln::compositor
