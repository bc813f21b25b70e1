// Decoration globals, the mode kiln answers each toplevel's decoration object with, and telling its View.
#include "compositor/shell/decorations.hpp"

#include "compositor/shell/view.hpp"

#include "xdg-decoration-unstable-v1-protocol.h"

namespace kiln::compositor {

namespace {

// org_kde_kwin_server_decoration.mode, the event wlroots 0.15 sends only when a client's request changes the mode.
constexpr uint32_t kde_mode_event = 0;

using XdgMode = xdg::ToplevelDecoration::Mode;

XdgMode xdg_mode(DecorationMode config, XdgMode requested)
{
    switch (config) {
    case DecorationMode::client:
        return XdgMode::client_side;
    case DecorationMode::server:
        return requested == XdgMode::client_side ? XdgMode::client_side : XdgMode::server_side;
    case DecorationMode::client_preferred:
        return requested == XdgMode::server_side ? XdgMode::server_side : XdgMode::client_side;
    }
    return XdgMode::client_side;
}

uint32_t kde_default(DecorationMode mode)
{
    return mode == DecorationMode::server ? WLR_SERVER_DECORATION_MANAGER_MODE_SERVER
                                          : WLR_SERVER_DECORATION_MANAGER_MODE_CLIENT;
}

// The View of a surface that is an xdg toplevel, if kiln made one.
View* view_of(wlr_surface* surface)
{
    return surface ? View::from(surface) : nullptr;
}

}  // namespace

// One toplevel's xdg-decoration object: lives until the client destroys it or its surface.
class Decorations::XdgToplevel {
public:
    XdgToplevel(Decorations& owner, xdg::ToplevelDecoration* decoration) : decoration_(decoration)
    {
        // Each set_mode and unset_mode is answered by a configure, even when kiln's mode stays the same (the
        // decoration object owes one after every request).
        request_mode_.connect(&decoration->events.request_mode,
                              [this, &owner](void*) { answer(xdg_mode(owner.mode_, decoration_->requested())); });
        destroy_.connect(&decoration->events.destroy, [this, &owner](void*) {
            // No decoration object: the client draws its own from its next commit on.
            if (View* view = View::from(decoration_->surface()))
                view->set_server_decorated(false);
            owner.toplevels_.erase(this);
        });
        answer(xdg_mode(owner.mode_, decoration->requested()));
    }

    wlr_surface* surface() const
    {
        xdg::Surface* xdg = decoration_->surface();
        return xdg ? xdg->surface() : nullptr;
    }
    bool server_side() const { return server_side_; }
    void follow(DecorationMode mode) { answer(xdg_mode(mode, decoration_->requested())); }

private:
    void answer(XdgMode mode)
    {
        server_side_ = mode == XdgMode::server_side;
        decoration_->set_mode(mode);
        if (View* view = View::from(decoration_->surface()))
            view->set_server_decorated(server_side_);
    }

    xdg::ToplevelDecoration* decoration_;
    bool server_side_ = false;

    wl::Listener request_mode_;
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
            owner.kde_decorations_.erase(this);
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

Decorations::Decorations(wl_display* display, RequestHooks& requests, DecorationMode mode) : mode_(mode)
{
    // Both managers are freed by wlroots with the display.
    kde_ = wlr_server_decoration_manager_create(display);
    wlr_server_decoration_manager_set_default_mode(kde_, kde_default(mode));
    new_kde_decoration_.connect(&kde_->events.new_decoration, [this](void* data) {
        kde_decorations_.push_back(std::make_unique<KdeDecoration>(*this, static_cast<wlr_server_decoration*>(data)));
    });
    xdg_manager_ = std::make_unique<xdg::XdgDecorationManagerV1>(display);
    xdg_rules_ = std::make_unique<XdgDecorationRules>(requests, *xdg_manager_);
    new_toplevel_decoration_.connect(&xdg_manager_->events.new_decoration, [this](void* data) {
        toplevels_.push_back(std::make_unique<XdgToplevel>(*this, static_cast<xdg::ToplevelDecoration*>(data)));
    });
}

Decorations::~Decorations()
{
    new_toplevel_decoration_.disconnect();
    toplevels_.clear();
}

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
