// OpaqueRegionRepair: each surface's opaque region as its last commit left it, finished when wlroots dropped it.
#include "compositor/opaque_region_repair.hpp"

namespace kiln::compositor {

class OpaqueRegionRepair::Watch {
public:
    Watch(OpaqueRegionRepair& owner, wlr_surface* surface)
        : owner_(owner), surface_(surface), last_(surface->opaque_region)
    {
        commit_.connect(&surface->events.commit, [this](void*) { committed(); });
        // wlroots finishes the region itself when the surface goes, but a synchronized subsurface's cached state is
        // still applied then (its role's destroy listener, after this one), with the same overwrite and no watch
        // left to see it: emptied here, the region has no boxes to lose. Nothing reads it any more but that last
        // commit, which sets it anew.
        destroy_.connect(&surface->events.destroy, [this](void*) {
            pixman_region32_clear(&surface_->opaque_region);
            owner_.watches_.erase(this);
        });
    }

private:
    // Every applied state (direct, cached or released by a fence) ends with this signal, and nothing but that
    // commit's own recomputation writes the region in between: a region different from the one kept, after the
    // opaque-buffer branch (the only one that overwrites without freeing), was dropped there. The copy kept is
    // shallow (extents and the boxes' pointer), a whole region as wlroots left it, so finishing it frees the boxes
    // exactly as finishing the original would have; a region of one box or none has nothing to free.
    void committed()
    {
        const pixman_region32_t& now = surface_->opaque_region;
        wlr_texture* texture = wlr_surface_get_texture(surface_);
        if (texture && wlr_texture_is_opaque(texture) && last_.data != now.data)
            pixman_region32_fini(&last_);
        last_ = now;
    }

    OpaqueRegionRepair& owner_;
    wlr_surface* surface_;
    pixman_region32_t last_;  // not owned: wlroots' region, copied shallowly after each commit
    wl::Listener commit_;
    wl::Listener destroy_;
};

OpaqueRegionRepair::OpaqueRegionRepair(wlr_compositor* compositor)
{
    new_surface_.connect(&compositor->events.new_surface, [this](void* data) {
        watches_.push_back(std::make_unique<Watch>(*this, static_cast<wlr_surface*>(data)));
    });
}

OpaqueRegionRepair::~OpaqueRegionRepair() = default;

}  // namespace kiln::compositor
