// Viewporter: wp_viewporter, kiln's own, with the errors wlroots 0.15's raises wrongly or not at all.
//
// wlroots 0.15 lets a client make a second wp_viewport for one surface (the protocol's viewport_exists) and checks
// the source rectangle after the commit, against state already moved on, so a source outside the buffer goes by
// (out_of_buffer) while a fractional one is caught only by chance. kiln's viewports set the same wlr_surface state
// wlroots' would (scene and renderer read it unchanged) and check each wl_surface.commit before libwayland runs it.
#pragma once

#include "compositor/protocols/request_hooks.hpp"
#include "compositor/wlr.hpp"

#include <memory>
#include <unordered_map>

namespace kiln::compositor {

class Viewporter {
public:
    // Checks each wl_surface.commit through `hooks`; must be destroyed before them and the display.
    Viewporter(wl_display* display, RequestHooks& hooks);
    ~Viewporter();
    Viewporter(const Viewporter&) = delete;
    Viewporter& operator=(const Viewporter&) = delete;

    class Viewport;

    // wp_viewporter.get_viewport from `manager`'s client.
    void get_viewport(wl_client* client, wl_resource* manager, uint32_t id, wl_resource* surface);

private:
    void check_commit(wlr_surface* surface) const;

    wl_global* global_ = nullptr;
    RequestTable::Hook hook_;
    // Each surface's viewport, while both live.
    std::unordered_map<wlr_surface*, std::unique_ptr<Viewport>> viewports_;
};

}  // namespace kiln::compositor
