// Decoration globals and the mode kiln sends each toplevel's decoration object.
#include "compositor/shell/decorations.hpp"

namespace kiln::compositor {

namespace {

// Client-side until kiln draws borders of its own.
constexpr auto xdg_mode = WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE;
constexpr auto kde_mode = WLR_SERVER_DECORATION_MANAGER_MODE_CLIENT;

}  // namespace

// One toplevel's xdg-decoration object: lives until the client destroys it or its surface.
class Decorations::Toplevel {
public:
    Toplevel(Decorations& owner, wlr_xdg_toplevel_decoration_v1* decoration)
    {
        // Each set_mode from the client must be answered by a configure, even when kiln's mode stays the same.
        request_mode_.connect(&decoration->events.request_mode, [decoration](void*) {
            wlr_xdg_toplevel_decoration_v1_set_mode(decoration, xdg_mode);
        });
        destroy_.connect(&decoration->events.destroy, [this, &owner](void*) {
            owner.toplevels_.remove_if([this](auto& t) { return t.get() == this; });
        });
        wlr_xdg_toplevel_decoration_v1_set_mode(decoration, xdg_mode);
    }

private:
    wl::Listener request_mode_;
    wl::Listener destroy_;
};

Decorations::Decorations(wl_display* display)
{
    // Both managers are freed by wlroots with the display.
    wlr_server_decoration_manager* kde = wlr_server_decoration_manager_create(display);
    wlr_server_decoration_manager_set_default_mode(kde, kde_mode);
    wlr_xdg_decoration_manager_v1* xdg = wlr_xdg_decoration_manager_v1_create(display);
    new_toplevel_decoration_.connect(&xdg->events.new_toplevel_decoration, [this](void* data) {
        toplevels_.push_back(std::make_unique<Toplevel>(*this, static_cast<wlr_xdg_toplevel_decoration_v1*>(data)));
    });
}

Decorations::~Decorations() = default;

}  // namespace kiln::compositor
