// xdg-activation requests turned into focus.
#include "compositor/shell/xdg_activation.hpp"

#include "compositor/shell/desktop.hpp"
#include "compositor/shell/view.hpp"

namespace kiln::compositor {

XdgActivation::XdgActivation(wl_display* display, Desktop& desktop, std::function<void(Toplevel&)> attention)
    : desktop_(desktop), attention_(std::move(attention))
{
    wlr_xdg_activation_v1* activation = wlr_xdg_activation_v1_create(display);  // freed with the display
    request_activate_.connect(&activation->events.request_activate, [this](void* data) {
        auto* event = static_cast<wlr_xdg_activation_v1_request_activate_event*>(data);
        // wlroots issued the token only if its serial was one the client got and its surface (if named) had
        // keyboard focus. A token without a seat came from no input event: it may not steal focus, only ask for
        // attention.
        View* view = View::from(event->surface);
        if (!view || !view->mapped())
            return;
        if (!event->token->seat) {
            if (attention_)
                attention_(*view);
            return;
        }
        desktop_.focus(view);
    });
}

}  // namespace kiln::compositor
