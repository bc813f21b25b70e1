// CoreObjects: wl_compositor, the data device manager, the output layout, the scene and its layers, in that order.
#include "compositor/core_objects.hpp"

namespace kiln::compositor {

bool CoreObjects::make(wl_display* display, wlr_renderer* renderer, std::string& error)
{
    // wlroots' *_create return null when memory or a global cannot be had: kiln says which and does not start.
    auto made = [&error](const void* object, const char* what) {
        if (!object)
            error = std::string("cannot create ") + what;
        return object != nullptr;
    };
    compositor = wlr_compositor_create(display, renderer);
    if (!made(compositor, "wl_compositor") ||
        !made(wlr_data_device_manager_create(display), "the data device manager"))
        return false;
    layout = wlr_output_layout_create();
    if (!made(layout, "the output layout"))
        return false;
    wlr_xdg_output_manager_v1* xdg_output = wlr_xdg_output_manager_v1_create(display, layout);
    if (!made(xdg_output, "the xdg-output manager"))
        return false;
    xdg_output_global = xdg_output->global;
    scene = wlr_scene_create();
    if (!made(scene, "the scene"))
        return false;
    if (!wlr_scene_attach_output_layout(scene, layout)) {
        error = "cannot attach the scene to the output layout";
        return false;
    }
    layers = SceneLayers::create(scene);
    if (!layers.complete()) {
        error = "cannot create the scene's layers";
        return false;
    }
    return true;
}

}  // namespace kiln::compositor
