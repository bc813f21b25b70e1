// The output list: set-up from kiln.ini, showing in the layout with a frame pipeline, and reloading settings.
#include "compositor/output/outputs.hpp"

#include "compositor/log.hpp"
#include "compositor/output/output.hpp"
#include "compositor/output/output_settings.hpp"

#include <algorithm>
#include <cstdio>

namespace kiln::compositor {

Outputs::Outputs(const Core& core, Pipeline pipeline) : core_(core), pipeline_(std::move(pipeline)) {}

Outputs::~Outputs() = default;

void Outputs::clear()
{
    outputs_.clear();
}

void Outputs::add(wlr_output* output)
{
    const Options& options = core_.options;
    // A headset (the kernel's non-desktop property) or a connector kiln.ini keeps for lease: offered, never drawn.
    const OutputSettings* configured = options.output(output->name);
    if (output->non_desktop || (configured && configured->lease.value_or(false))) {
        if (pipeline_.offer_lease && pipeline_.offer_lease(output)) {
            output->non_desktop = true;  // what wlroots says of a headset: output management leaves it out too
            log::error("output %s is offered for lease (drm-lease-v1), not used for the desktop",
                       output->name);
            return;
        }
        if (output->non_desktop)
            return;  // no lease device to offer it on: left dark, as it is no desktop screen
        log::error("output %s: lease=true needs the DRM backend; used for the desktop", output->name);
    }
    // First of kiln's listeners to its destroy signal, ahead of the scene's damage tracking.
    if (pipeline_.before_setup)
        pipeline_.before_setup(output);
    if (!wlr_output_init_render(output, pipeline_.allocator, pipeline_.renderer)) {
        log::error("cannot render to output %s", output->name);
        return;
    }
    const OutputSettings* settings = options.output(output->name);
    OutputSettings without_mode;
    if (settings && settings->mode && wlr_output_is_headless(output) && options.headless_size_given) {
        // Flags win over kiln.ini: --headless-size made this output's size.
        without_mode = *settings;
        without_mode.mode.reset();
        settings = &without_mode;
    }
    if (!commit_output_settings(output, settings)) {
        log::error("cannot enable output %s", output->name);
        return;
    }
    if (settings && settings->enabled == false)
        return;  // [output NAME] enabled=false: off, outside the layout, never drawn
    show(output, settings ? settings->position : std::nullopt);
}

void Outputs::show(wlr_output* output, std::optional<OutputPosition> position)
{
    if (position)
        wlr_output_layout_add(core_.layout, output, position->x, position->y);
    else
        wlr_output_layout_add_auto(core_.layout, output);
    for (const auto& o : outputs_)
        if (o->wlr() == output)
            return;
    wlr_scene_output* scene_output = wlr_scene_get_scene_output(core_.scene, output);
    if (!scene_output)
        scene_output = wlr_scene_output_create(core_.scene, output);
    OutputHooks hooks = pipeline_.hooks;
    hooks.destroyed = [this](Output* o) { remove(o); };
    outputs_.push_back(std::make_unique<Output>(std::move(hooks), pipeline_.bridge, pipeline_.fences,
                                                pipeline_.releases, pipeline_.allocator, output, scene_output, pipeline_.presentation));
}

void Outputs::remove(Output* output)
{
    outputs_.remove_if([output](const auto& o) { return o.get() == output; });
}

void Outputs::reload()
{
    const Options& options = core_.options;
    for (const auto& output : outputs_) {
        wlr_output* wlr = output->wlr();
        OutputSettings settings;
        if (const OutputSettings* configured = options.output(wlr->name))
            settings = *configured;
        if (settings.enabled == false) {
            log::error("output %s: enabled=false takes effect when kiln starts again", wlr->name);
            settings.enabled.reset();
        }
        if (wlr_output_is_headless(wlr) && options.headless_size_given)
            settings.mode.reset();  // flags win: --headless-size made this output's size
        if (!settings.mode && wl_list_empty(&wlr->modes))
            settings.mode = OutputMode{wlr->width, wlr->height, wlr->refresh};  // a nested window keeps its size
        // Keys left out go back to what kiln starts with.
        settings.scale = settings.scale.value_or(1);
        settings.transform = settings.transform.value_or(OutputTransform::normal);
        if (!commit_output_settings(wlr, &settings))
            log::error("output %s refused the reloaded settings", wlr->name);
        if (settings.position)
            wlr_output_layout_move(core_.layout, wlr, settings.position->x, settings.position->y);
        wlr_output_schedule_frame(wlr);
    }
}

const wlr_drm_format_set* Outputs::primary_formats() const
{
    return outputs_.empty() ? nullptr : wlr_output_get_primary_formats(outputs_.front()->wlr(), WLR_BUFFER_CAP_DMABUF);
}

uint64_t Outputs::ring_slots() const
{
    uint64_t slots = 0;
    for (const auto& output : outputs_)
        slots = std::max<uint64_t>(slots, output->ring_slots());
    return slots;
}

void Outputs::add_unshown_damage(const wlr_output* output, Region& out) const
{
    for (const auto& o : outputs_)
        if (o->wlr() == output)
            o->add_unshown_damage(out);
}

uint64_t Outputs::ticks_skipped() const
{
    uint64_t skipped = 0;
    for (const auto& output : outputs_)
        skipped += output->ticks_skipped();
    return skipped;
}

}  // namespace kiln::compositor
