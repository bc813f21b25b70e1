// ColorManagerV1: the wp_color_manager_v1 global (what kiln advertises: parametric and ICC creators, named primaries
// and transfer functions the renderer has, perceptual and relative intents), wp_color_management_output_v1 (each
// output's description, sRGB at 80 cd/m² unless the output side supplies another through a hook), and
// wp_color_management_surface_feedback_v1 (the preferred description: that of the output the surface is on).
// Surfaces' own descriptions are SurfaceColours'; image descriptions and creators are in their own files.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/protocol_kit/per_surface_object.hpp"
#include "compositor/protocols/surface/color_management_surface_v1.hpp"
#include "compositor/protocols/surface/image_description_v1.hpp"
#include "compositor/stats.hpp"
#include "compositor/wlr.hpp"
#include "renderer/colour/image_description.hpp"

#include <functional>
#include <list>
#include <memory>
#include <unordered_map>
#include <unordered_set>

namespace kiln::compositor {

class ColorManagerV1 {
public:
    // What an output's pixels mean; null (or no hook) for kiln's default, sRGB with an 80 cd/m² reference white.
    using OutputDescriptions = std::function<std::shared_ptr<const renderer::ImageDescription>(wlr_output*)>;

    // `changed` is called when a commit changes a surface's SurfaceColour (its pixels change with no damage).
    ColorManagerV1(wl_display* display, wlr_output_layout* layout, std::function<void(wlr_surface*)> changed);
    ~ColorManagerV1();
    ColorManagerV1(const ColorManagerV1&) = delete;
    ColorManagerV1& operator=(const ColorManagerV1&) = delete;

    // The committed SurfaceColour of `surface` (no description: sRGB, perceptual).
    renderer::SurfaceColour surface_colour(wlr_surface* surface) const { return surfaces_.colour(surface); }
    // The output side's hook for outputs' descriptions; then call outputs_changed() whenever one changes.
    void set_output_descriptions(OutputDescriptions descriptions);
    // An output's description may have changed: output objects are told (image_description_changed, then the
    // output's done), and surface feedback whose preferred description changed (preferred_changed).
    void outputs_changed();
    // --stats keys: surfaces with a description committed, those of them with the relative intent, and with an ICC
    // description.
    void report(Stats& stats) const;

    struct Feedback;
    struct OutputObject;

private:
    static void bound(wl_resource* manager, void* data) noexcept;
    static void get_output(wl_client*, wl_resource* manager, uint32_t id, wl_resource* output) noexcept;
    static void get_surface(wl_client*, wl_resource* manager, uint32_t id, wl_resource* surface) noexcept;
    static void get_surface_feedback(wl_client*, wl_resource* manager, uint32_t id, wl_resource* surface) noexcept;
    static void icc_creator(wl_client*, wl_resource* manager, uint32_t id) noexcept;
    static void parametric_creator(wl_client*, wl_resource* manager, uint32_t id) noexcept;
    static void windows_scrgb(wl_client*, wl_resource* manager, uint32_t id) noexcept;
    static const void* requests();

    friend struct Feedback;
    friend struct OutputObject;
    // The record of `output`'s description (one per description while any object holds it, so its identity holds).
    std::shared_ptr<const DescriptionRecord> output_record(wlr_output* output);
    // The record the surface is preferred to use: its first output's, else the default.
    std::shared_ptr<const DescriptionRecord> preferred_record(wlr_surface* surface);
    void update(Feedback& feedback);

    std::shared_ptr<DescriptionIdentities> identities_ = std::make_shared<DescriptionIdentities>();
    std::shared_ptr<const DescriptionRecord> default_record_;
    OutputDescriptions output_descriptions_;
    std::unordered_map<const renderer::ImageDescription*, std::weak_ptr<const DescriptionRecord>> records_;
    wlr_output_layout* layout_;
    SurfaceColours surfaces_;
    std::unordered_set<Feedback*> feedbacks_;
    std::unordered_set<OutputObject*> outputs_;
    ManagerGlobal global_;
    wl::Listener layout_change_;
    std::list<wl::Listener> output_frames_;  // one per output in the layout: a window moved re-evaluates feedback
};

}  // namespace kiln::compositor
