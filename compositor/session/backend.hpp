// Choosing and creating kiln's wlroots backend: DRM/KMS, nested Wayland, nested X11 or headless.
#pragma once

#include "compositor/session/options.hpp"
#include "compositor/wlr.hpp"

#include <string>

namespace kiln::compositor {

// What `--backend auto` resolves to in this environment.
BackendChoice resolve_backend(BackendChoice requested);

// Creates the backend (with one headless output of the given size for headless). nullptr with `error` on failure.
wlr_backend* create_backend(wl_display* display, BackendChoice choice, const Options& options, std::string& error);

// Switches to VT `vt` where `backend` (null once gone) has a session (DRM through libseat); elsewhere it says why not,
// naming the backend `requested` resolves to.
void change_vt(wlr_backend* backend, BackendChoice requested, int vt);

}  // namespace kiln::compositor
