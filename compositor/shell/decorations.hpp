// Decorations: who draws window borders, answered through xdg-decoration and KDE server-decoration, and the rule
// kiln follows ([decorations] mode in kiln.ini):
//   client (the default)  client-side always: xdg-decoration answers client_side to every request; KDE's default
//                         mode is Client, and a request for Server is answered with Client again.
//   server                server-side unless the client asks to draw its own: xdg-decoration answers server_side to a
//                         client that asks for it or asks nothing (unset_mode), client_side to one that asks for that;
//                         KDE's default mode is Server, and a client's request is honoured.
//   client-preferred      client-side unless the client asks kiln to draw them: xdg-decoration answers server_side
//                         only to a request for it; KDE's default mode is Client, and a request is honoured.
// A client that speaks neither protocol draws its own. Where the answer is server-side, the window's View draws a
// border and title bar (ServerDecoration).
#pragma once

#include "compositor/indexed_list.hpp"
#include "compositor/listener.hpp"
#include "compositor/session/settings.hpp"
#include "compositor/shell/xdg/xdg_decoration_v1.hpp"
#include "compositor/shell/xdg_decoration_rules.hpp"
#include "compositor/wlr.hpp"

#include <list>
#include <memory>

namespace kiln::compositor {

class Decorations {
public:
    Decorations(wl_display* display, RequestHooks& requests, DecorationMode mode);
    ~Decorations();
    Decorations(const Decorations&) = delete;
    Decorations& operator=(const Decorations&) = delete;

    // Whether kiln draws `surface`'s decorations: the answer it gave the surface's client, through either protocol.
    bool server_side(wlr_surface* surface) const;
    // A new rule (kiln.ini reloaded): every xdg-decoration object is answered again under it (a configure each, so
    // windows gain or lose kiln's title bar at once); KDE objects keep the client's choice, except that under
    // `client` a Server one is told Client. KDE's manager announces the new default mode.
    void set_mode(DecorationMode mode);

private:
    class XdgToplevel;
    class KdeDecoration;

    DecorationMode mode_;
    wlr_server_decoration_manager* kde_ = nullptr;  // freed by wlroots with the display
    IndexedList<std::unique_ptr<XdgToplevel>> toplevels_;
    IndexedList<std::unique_ptr<KdeDecoration>> kde_decorations_;
    std::unique_ptr<xdg::XdgDecorationManagerV1> xdg_manager_;
    std::unique_ptr<XdgDecorationRules> xdg_rules_;
    wl::Listener new_toplevel_decoration_;
    wl::Listener new_kde_decoration_;
};

}  // namespace kiln::compositor
