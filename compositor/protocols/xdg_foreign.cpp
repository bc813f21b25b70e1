// The xdg-foreign globals over one shared registry of exported toplevels.
#include "compositor/protocols/xdg_foreign.hpp"

namespace kiln::compositor {

bool offer_xdg_foreign(wl_display* display)
{
    wlr_xdg_foreign_registry* registry = wlr_xdg_foreign_registry_create(display);
    return registry && wlr_xdg_foreign_v1_create(display, registry) && wlr_xdg_foreign_v2_create(display, registry);
}

}  // namespace kiln::compositor
