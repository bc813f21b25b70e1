// SurfaceColours: wp_color_management_surface_v1, one per wl_surface (surface_exists for a second), and each
// surface's double-buffered SurfaceColour (description and render intent) applied with its commits; destroying the
// object unsets the description at the next commit, as the XML says.
#pragma once

#include "compositor/protocol_kit/committed_values.hpp"
#include "compositor/protocol_kit/per_surface_object.hpp"
#include "compositor/protocols/surface/image_description_v1.hpp"
#include "compositor/wlr.hpp"
#include "renderer/colour/image_description.hpp"

#include <cstdint>
#include <functional>

namespace kiln::compositor {

class SurfaceColours {
public:
    // `changed` is called when a commit changes a surface's committed SurfaceColour.
    explicit SurfaceColours(std::function<void(wlr_surface*)> changed);
    SurfaceColours(const SurfaceColours&) = delete;
    SurfaceColours& operator=(const SurfaceColours&) = delete;

    // wp_color_manager_v1.get_surface.
    void get(wl_client* client, wl_resource* manager, uint32_t id, wl_resource* surface);
    // The committed SurfaceColour of `surface` (no description: sRGB).
    renderer::SurfaceColour colour(wlr_surface* surface) const;
    // How many surfaces have a committed SurfaceColour that `test` holds for.
    size_t count(const std::function<bool(const renderer::SurfaceColour&)>& test) const;

private:
    struct Object : PerSurfaceObject {
        SurfaceColours* owner = nullptr;
        void released() { owner->set_pending(surface, {}); }
    };
    static void set_image_description(wl_client*, wl_resource* object, wl_resource* description,
                                      uint32_t intent) noexcept;
    static void unset_image_description(wl_client*, wl_resource* object) noexcept;
    static const void* requests();

    void set_pending(wlr_surface* surface, renderer::SurfaceColour colour)
    {
        colours_.set_pending(surface, std::move(colour));
    }

    // Destroying the object unsets at the next commit: the entry stays until then, so the description holds.
    CommittedValues<renderer::SurfaceColour> colours_;
    PerSurfaceObjects<Object> objects_;
};

}  // namespace kiln::compositor
