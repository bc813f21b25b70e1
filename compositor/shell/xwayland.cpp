// Xwayland's life in kiln: the display, the seat it bridges selections through, and one XwaylandView per X window.
#include "compositor/shell/xwayland.hpp"

#include "compositor/input/seat_focus.hpp"
#include "compositor/core.hpp"
#include "compositor/log.hpp"
#include "compositor/shell/toplevels.hpp"
#include "compositor/shell/xwayland_view.hpp"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/socket.h>

namespace kiln::compositor {

std::unique_ptr<Xwayland> Xwayland::create(const Core& core, Desktop& desktop, SeatFocus& seat, Toplevels& toplevels,
                                           wlr_compositor* compositor, bool lazy, std::string& error)
{
    wlr_xwayland* xwayland = wlr_xwayland_create(core.display, compositor, lazy);
    if (!xwayland) {
        error = "cannot open an X11 display for Xwayland (see wlroots' log above)";
        return nullptr;
    }
    return std::unique_ptr<Xwayland>(new Xwayland(core, desktop, seat, toplevels, compositor, xwayland));
}

Xwayland::Xwayland(const Core& core, Desktop& desktop, SeatFocus& seat, Toplevels& toplevels, wlr_compositor* compositor,
                   wlr_xwayland* xwayland)
    : core_(core), desktop_(desktop), seat_(seat), toplevels_(toplevels), xwayland_(xwayland),
      unmanaged_(wlr_scene_tree_create(&core.layers.windows->node)), late_map_(core.display, compositor, xwayland)
{
    // The X window manager owns X's CLIPBOARD and PRIMARY for the seat's selections and offers X's to the seat, so
    // copy and paste work both ways (only while an X window has focus: wlroots' rule for X clients).
    wlr_xwayland_set_seat(xwayland_, seat_.wlr());
    ready_.connect(&xwayland_->events.ready, [this](void*) { ready(); });
    new_surface_.connect(&xwayland_->events.new_surface, [this](void* data) {
        auto* surface = static_cast<wlr_xwayland_surface*>(data);
        views_.push_back(std::make_unique<XwaylandView>(*this, surface));
        toplevels_.add(*views_.back());
    });
}

Xwayland::~Xwayland()
{
    ready_.disconnect();
    new_surface_.disconnect();
    // wlroots 0.15 never destroys its X window manager in wlr_xwayland_destroy: the manager goes only when its socket
    // to Xwayland hangs up, and wlroots closes that socket instead, which epoll never reports (a leak LeakSanitizer
    // sees). Shutting the socket down makes it hang up now, and a turn of the event loop runs the manager's own
    // teardown: every X window's destroy (so every view goes), then xcb_disconnect, which closes the socket.
    wlr_xwayland_server* x_server = xwayland_->server;
    if (xwayland_->xwm && x_server && x_server->wm_fd[0] >= 0) {
        shutdown(x_server->wm_fd[0], SHUT_RDWR);
        wl_event_loop* loop = wl_display_get_event_loop(core_.display);
        for (int turn = 0; turn < 10 && xwayland_->xwm; ++turn)
            wl_event_loop_dispatch(loop, 10);
        if (!xwayland_->xwm)
            x_server->wm_fd[0] = -1;  // already closed: wlroots must not close that number again
    }
    // Xwayland still starting (wlroots waits for its readiness): wlroots' helper process (`pid`, a fork of kiln that
    // forwards the readiness signal) holds copies of kiln's ends of Xwayland's sockets, so Xwayland, waiting for
    // answers kiln will not give, never sees them close, and both would wait forever. Ending the helper closes them.
    if (x_server && x_server->pipe_source && x_server->pid > 0)
        kill(x_server->pid, SIGKILL);
    wlr_xwayland_destroy(xwayland_);
    for (const auto& view : views_)
        toplevels_.remove(*view);
    views_.clear();
    if (xcursor_)
        wlr_xcursor_manager_destroy(xcursor_);
    wlr_scene_node_destroy(&unmanaged_->node);
}

std::string Xwayland::display_name() const
{
    return xwayland_->display_name ? xwayland_->display_name : "";
}

void Xwayland::ready()
{
    // X draws its own cursor over the root window's parts no window covers: the theme's arrow, loaded only now
    // (a session without X11 clients never reads the theme for it).
    if (!xcursor_) {
        xcursor_ = wlr_xcursor_manager_create(nullptr, 24);
        if (xcursor_ && wlr_xcursor_manager_load(xcursor_, 1)) {
            wlr_xcursor* cursor = wlr_xcursor_manager_get_xcursor(xcursor_, "left_ptr", 1);
            if (cursor && cursor->image_count > 0) {
                wlr_xcursor_image* image = cursor->images[0];
                wlr_xwayland_set_cursor(xwayland_, image->buffer, image->width * 4, image->width, image->height,
                                        static_cast<int32_t>(image->hotspot_x),
                                        static_cast<int32_t>(image->hotspot_y));
            }
        }
    }
    // Which windows may be asked to close, and which get no decoration: wlroots' window manager keeps its atoms to
    // itself, so a connection of kiln's own learns their numbers on this server (one pipelined round trip, as the
    // window manager's own start-up makes many). Without WM_DELETE_WINDOW no X11 window is closed by kiln, rather
    // than killed.
    static constexpr const char* frameless[] = {
        "_NET_WM_WINDOW_TYPE_DESKTOP",      "_NET_WM_WINDOW_TYPE_DOCK",
        "_NET_WM_WINDOW_TYPE_SPLASH",       "_NET_WM_WINDOW_TYPE_NOTIFICATION",
        "_NET_WM_WINDOW_TYPE_TOOLTIP",      "_NET_WM_WINDOW_TYPE_DROPDOWN_MENU",
        "_NET_WM_WINDOW_TYPE_POPUP_MENU",   "_NET_WM_WINDOW_TYPE_MENU",
        "_NET_WM_WINDOW_TYPE_COMBO",        "_NET_WM_WINDOW_TYPE_DND",
    };
    delete_window_ = XCB_ATOM_NONE;
    frameless_types_.clear();
    xcb_connection_t* connection = xcb_connect(display_name().c_str(), nullptr);
    if (!xcb_connection_has_error(connection)) {
        auto intern = [connection](const char* name) {
            return xcb_intern_atom(connection, 0, static_cast<uint16_t>(std::strlen(name)), name);
        };
        auto reply_atom = [connection](xcb_intern_atom_cookie_t cookie) {
            xcb_intern_atom_reply_t* reply = xcb_intern_atom_reply(connection, cookie, nullptr);
            const xcb_atom_t atom = reply ? reply->atom : static_cast<xcb_atom_t>(XCB_ATOM_NONE);
            std::free(reply);
            return atom;
        };
        const xcb_intern_atom_cookie_t delete_cookie = intern("WM_DELETE_WINDOW");
        std::vector<xcb_intern_atom_cookie_t> type_cookies;
        for (const char* name : frameless)
            type_cookies.push_back(intern(name));
        delete_window_ = reply_atom(delete_cookie);
        for (const auto& cookie : type_cookies)
            if (const xcb_atom_t atom = reply_atom(cookie); atom != XCB_ATOM_NONE)
                frameless_types_.push_back(atom);
    }
    xcb_disconnect(connection);
    if (delete_window_ == XCB_ATOM_NONE)
        log::error("cannot ask X for WM_DELETE_WINDOW: Super+Q and taskbars cannot close X11 windows");
}

bool Xwayland::frameless_type(const wlr_xwayland_surface& xsurface) const
{
    const xcb_atom_t* types = xsurface.window_type;
    return std::any_of(types, types + xsurface.window_type_len, [this](xcb_atom_t type) {
        return std::find(frameless_types_.begin(), frameless_types_.end(), type) != frameless_types_.end();
    });
}

bool Xwayland::accepts_close(const wlr_xwayland_surface& xsurface) const
{
    if (delete_window_ == XCB_ATOM_NONE)
        return false;
    return std::find(xsurface.protocols, xsurface.protocols + xsurface.protocols_len, delete_window_) !=
           xsurface.protocols + xsurface.protocols_len;
}

void Xwayland::raise_unmanaged()
{
    wlr_scene_node_raise_to_top(&unmanaged_->node);
}

void Xwayland::remove_view(XwaylandView* view)
{
    toplevels_.remove(*view);
    views_.erase(view);
}

}  // namespace kiln::compositor
