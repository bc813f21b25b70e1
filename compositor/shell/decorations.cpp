// Decoration globals, the mode kiln answers each toplevel's decoration object with, and telling its View.
#include "compositor/shell/decorations.hpp"

#include "compositor/shell/view.hpp"

#include "xdg-decoration-unstable-v1-protocol.h"

namespace kiln::compositor {

namespace {

// org_kde_kwin_server_decoration.mode, the event wlroots 0.15 sends only when a client's request changes the mode.
constexpr uint32_t kde_mode_event = 0;

wlr_xdg_toplevel_decoration_v1_mode xdg_mode(DecorationMode config, wlr_xdg_toplevel_decoration_v1_mode requested)
{
    switch (config) {
    case DecorationMode::client:
        return WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE;
    case DecorationMode::server:
        return requested == WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE
                   ? WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE
                   : WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE;
    case DecorationMode::client_preferred:
        return requested == WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE
                   ? WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE
                   : WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE;
    }
    return WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE;
}

uint32_t kde_default(DecorationMode mode)
{
    return mode == DecorationMode::server ? WLR_SERVER_DECORATION_MANAGER_MODE_SERVER
                                          : WLR_SERVER_DECORATION_MANAGER_MODE_CLIENT;
}

// The View of a surface that is an xdg toplevel, if kiln made one.
View* view_of(wlr_surface* surface)
{
    if (!surface || !wlr_surface_is_xdg_surface(surface))
        return nullptr;
    return View::from(wlr_xdg_surface_from_wlr_surface(surface));
}

}  // namespace

// One toplevel's xdg-decoration object: lives until the client destroys it or its surface.
class Decorations::XdgToplevel {
public:
    XdgToplevel(Decorations& owner, wlr_xdg_toplevel_decoration_v1* decoration)
        : decoration_(decoration)
    {
        // Each set_mode and unset_mode from the client must be answered by a configure, even when kiln's mode stays
        // the same: wlroots 0.15 sends the decoration's configure only when the mode changes, so kiln sends it with
        // the xdg_surface configure wlroots schedules (before that configure's xdg_surface.configure event).
        request_mode_.connect(&decoration->events.request_mode, [this, &owner](void*) {
            answer_owed_ = true;
            answer(xdg_mode(owner.mode_, decoration_->requested_mode));
        });
        surface_configure_.connect(&decoration->surface->events.configure,
                                   [this](void* data) { send_owed_answer(static_cast<wlr_xdg_surface_configure*>(data)); });
        destroy_.connect(&decoration->events.destroy, [this, &owner](void*) {
            // No decoration object: the client draws its own from its next commit on.
            if (View* view = View::from(decoration_->surface))
                view->set_server_decorated(false);
            owner.toplevels_.remove_if([this](auto& t) { return t.get() == this; });
        });
        answer(xdg_mode(owner.mode_, decoration->requested_mode));
    }

    wlr_surface* surface() const { return decoration_->surface->surface; }
    bool server_side() const { return server_side_; }
    void follow(DecorationMode mode) { answer(xdg_mode(mode, decoration_->requested_mode)); }

private:
    void answer(wlr_xdg_toplevel_decoration_v1_mode mode)
    {
        server_side_ = mode == WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE;
        wlr_xdg_toplevel_decoration_v1_set_mode(decoration_, mode);
        if (View* view = View::from(decoration_->surface))
            view->set_server_decorated(server_side_);
    }

    // Runs after wlroots' own listener: if that queued no decoration configure for this surface configure, kiln
    // sends the mode it scheduled.
    void send_owed_answer(wlr_xdg_surface_configure* configure)
    {
        if (!answer_owed_)
            return;
        answer_owed_ = false;
        wlr_xdg_toplevel_decoration_v1_configure* queued;
        wl_list_for_each(queued, &decoration_->configure_list, link)
            if (queued->surface_configure == configure)
                return;
        zxdg_toplevel_decoration_v1_send_configure(decoration_->resource, decoration_->scheduled_mode);
    }

    wlr_xdg_toplevel_decoration_v1* decoration_;
    bool server_side_ = false;
    bool answer_owed_ = false;  // a client request not yet answered by a configure

    wl::Listener request_mode_;
    wl::Listener surface_configure_;
    wl::Listener destroy_;
};

// One surface's KDE server-decoration object: the client picks the mode, kiln follows (or, under `client`, refuses
// Server by sending Client again).
class Decorations::KdeDecoration {
public:
    KdeDecoration(Decorations& owner, wlr_server_decoration* decoration) : decoration_(decoration)
    {
        mode_.connect(&decoration->events.mode, [this, &owner](void*) { follow(owner.mode_); });
        destroy_.connect(&decoration->events.destroy, [this, &owner](void*) {
            decoration_->mode = WLR_SERVER_DECORATION_MANAGER_MODE_CLIENT;
            apply();
            owner.kde_decorations_.remove_if([this](auto& d) { return d.get() == this; });
        });
        apply();
    }

    wlr_surface* surface() const { return decoration_->surface; }
    bool server_side() const { return decoration_->mode == WLR_SERVER_DECORATION_MANAGER_MODE_SERVER; }

    void follow(DecorationMode mode)
    {
        if (mode == DecorationMode::client && decoration_->mode == WLR_SERVER_DECORATION_MANAGER_MODE_SERVER) {
            decoration_->mode = WLR_SERVER_DECORATION_MANAGER_MODE_CLIENT;
            wl_resource_post_event(decoration_->resource, kde_mode_event, decoration_->mode);
        }
        apply();
    }

private:
    void apply()
    {
        if (View* view = view_of(decoration_->surface))
            view->set_server_decorated(server_side());
    }

    wlr_server_decoration* decoration_;

    wl::Listener mode_;
    wl::Listener destroy_;
};

Decorations::Decorations(wl_display* display, DecorationMode mode) : mode_(mode)
{
    // Both managers are freed by wlroots with the display.
    kde_ = wlr_server_decoration_manager_create(display);
    wlr_server_decoration_manager_set_default_mode(kde_, kde_default(mode));
    new_kde_decoration_.connect(&kde_->events.new_decoration, [this](void* data) {
        kde_decorations_.push_back(std::make_unique<KdeDecoration>(*this, static_cast<wlr_server_decoration*>(data)));
    });
    wlr_xdg_decoration_manager_v1* xdg = wlr_xdg_decoration_manager_v1_create(display);
    xdg_rules_ = std::make_unique<XdgDecorationRules>(display, xdg);
    new_toplevel_decoration_.connect(&xdg->events.new_toplevel_decoration, [this](void* data) {
        toplevels_.push_back(
            std::make_unique<XdgToplevel>(*this, static_cast<wlr_xdg_toplevel_decoration_v1*>(data)));
    });
}

Decorations::~Decorations() = default;

void Decorations::set_mode(DecorationMode mode)
{
    if (mode == mode_)
        return;
    mode_ = mode;
    if (kde_)
        wlr_server_decoration_manager_set_default_mode(kde_, kde_default(mode));
    for (const auto& toplevel : toplevels_)
        toplevel->follow(mode);
    for (const auto& decoration : kde_decorations_)
        decoration->follow(mode);
}

bool Decorations::server_side(wlr_surface* surface) const
{
    for (const auto& toplevel : toplevels_)
        if (toplevel->surface() == surface)
            return toplevel->server_side();
    for (const auto& decoration : kde_decorations_)
        if (decoration->surface() == surface)
            return decoration->server_side();
    return false;
}

}  // namespace kiln::compositor
