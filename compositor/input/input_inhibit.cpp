// InputInhibit behaviour: wlroots keeps which client holds the inhibitor; kiln is told when that changes.
#include "compositor/input/input_inhibit.hpp"

namespace kiln::compositor {

InputInhibit::InputInhibit(wl_display* display, std::function<void(wl_client*)> changed)
    : manager_(wlr_input_inhibit_manager_create(display)), changed_(std::move(changed))
{
    if (!manager_)
        return;
    activate_.connect(&manager_->events.activate, [this](void*) { changed_(manager_->active_client); });
    deactivate_.connect(&manager_->events.deactivate, [this](void*) { changed_(nullptr); });
    destroy_.connect(&manager_->events.destroy, [this](void*) {
        activate_.disconnect();
        deactivate_.disconnect();
        destroy_.disconnect();
        manager_ = nullptr;
    });
}

bool InputInhibit::allows(wlr_surface* surface) const
{
    wl_client* exclusive = exclusive_client();
    return !exclusive || !surface || wl_resource_get_client(surface->resource) == exclusive;
}

}  // namespace kiln::compositor
