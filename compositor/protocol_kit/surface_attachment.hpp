// SurfaceAttachment: ties one protocol object to its wl_surface through the surface's wlroots addon set, for the
// "one object per surface" protocols: find() answers their "already exists" errors, and when the surface goes first
// the object is told (it stays, inert, as those protocols say) and the attachment lets go by itself.
#pragma once

#include "compositor/wlr.hpp"

#include <type_traits>

namespace kiln::compositor {

class SurfaceAttachment {
public:
    using Gone = void (*)(void* object) noexcept;

    SurfaceAttachment() = default;
    ~SurfaceAttachment() { detach(); }
    SurfaceAttachment(const SurfaceAttachment&) = delete;
    SurfaceAttachment& operator=(const SurfaceAttachment&) = delete;

    // The object `owner` attached to `surface`, or null.
    static void* find(wlr_surface* surface, const void* owner)
    {
        wlr_addon* addon = wlr_addon_find(&surface->addons, owner, &impl);
        return addon ? from(addon)->object_ : nullptr;
    }

    // `gone(object)` runs if the surface is destroyed while attached (after the attachment has let go).
    void attach(wlr_surface* surface, const void* owner, void* object, Gone gone)
    {
        detach();
        object_ = object;
        gone_ = gone;
        wlr_addon_init(&addon_, &surface->addons, owner, &impl);
        attached_ = true;
    }

    void detach()
    {
        if (!attached_)
            return;
        attached_ = false;
        wlr_addon_finish(&addon_);
    }

private:
    // First member of a standard-layout class: the addon's address is the attachment's.
    static SurfaceAttachment* from(wlr_addon* addon) { return reinterpret_cast<SurfaceAttachment*>(addon); }

    static void surface_destroyed(wlr_addon* addon) noexcept;
    static const wlr_addon_interface impl;

    wlr_addon addon_{};
    bool attached_ = false;
    void* object_ = nullptr;
    Gone gone_ = nullptr;
};

static_assert(std::is_standard_layout_v<SurfaceAttachment>, "from() relies on the addon being at its start");

inline void SurfaceAttachment::surface_destroyed(wlr_addon* addon) noexcept
{
    SurfaceAttachment* self = from(addon);
    self->detach();
    self->gone_(self->object_);
}

inline const wlr_addon_interface SurfaceAttachment::impl = {
    .name = "kiln_surface_attachment",
    .destroy = &SurfaceAttachment::surface_destroyed,
};

}  // namespace kiln::compositor
