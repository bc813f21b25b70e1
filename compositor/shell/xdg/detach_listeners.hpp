// detach_listeners: unlinks whatever still listens to a signal of an object that is being freed, so a listener
// removed later (wl::Listener's destructor) touches only itself, never the freed signal.
#pragma once

#include <wayland-server-core.h>

namespace kiln::compositor::xdg {

inline void detach_listeners(wl_signal* signal)
{
    while (!wl_list_empty(&signal->listener_list)) {
        wl_list* link = signal->listener_list.next;
        wl_list_remove(link);
        wl_list_init(link);
    }
}

}  // namespace kiln::compositor::xdg
