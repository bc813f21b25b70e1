// Turns an [output NAME] section into wlr_output state, falling back to the output's own mode when refused.
#include "compositor/output/output_settings.hpp"

#include "compositor/log.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace kiln::compositor {
namespace {

static_assert(static_cast<int>(OutputTransform::flipped_270) == WL_OUTPUT_TRANSFORM_FLIPPED_270);
static_assert(static_cast<int>(OutputTransform::rotate_90) == WL_OUTPUT_TRANSFORM_90);

// The output's own mode at this size (the nearest rate, or the fastest when none is asked), or null.
wlr_output_mode* find_mode(wlr_output* output, const OutputMode& wanted)
{
    wlr_output_mode* best = nullptr;
    wlr_output_mode* mode = nullptr;
    wl_list_for_each(mode, &output->modes, link)
    {
        if (mode->width != wanted.width || mode->height != wanted.height)
            continue;
        if (!best) {
            best = mode;
        } else if (wanted.refresh_mhz == 0) {
            if (mode->refresh > best->refresh)
                best = mode;
        } else if (std::abs(mode->refresh - wanted.refresh_mhz) < std::abs(best->refresh - wanted.refresh_mhz)) {
            best = mode;
        }
    }
    // 59.94 asked, 60.00 offered is a match; 30 asked, 60 offered is not.
    if (best && wanted.refresh_mhz != 0 && std::abs(best->refresh - wanted.refresh_mhz) > 500)
        return nullptr;
    return best;
}

void set_preferred_mode(wlr_output* output)
{
    if (wlr_output_mode* mode = wlr_output_preferred_mode(output))
        wlr_output_set_mode(output, mode);
}

// Stages the section's mode; false when the output has a mode list without it (the preferred one is staged).
bool set_mode(wlr_output* output, const OutputMode& wanted)
{
    if (wl_list_empty(&output->modes)) {
        // Headless, nested and X11 outputs have no list: any size is theirs to take.
        wlr_output_set_custom_mode(output, wanted.width, wanted.height, wanted.refresh_mhz);
        return true;
    }
    if (wlr_output_mode* mode = find_mode(output, wanted)) {
        wlr_output_set_mode(output, mode);
        return true;
    }
    set_preferred_mode(output);
    return false;
}

}  // namespace

bool commit_output_settings(wlr_output* output, const OutputSettings* settings)
{
    if (settings && settings->enabled == false) {
        wlr_output_enable(output, false);
        return wlr_output_commit(output);
    }
    const OutputMode* wanted = settings && settings->mode ? &*settings->mode : nullptr;
    auto describe_mode = [&]() {
        char text[64];
        std::snprintf(text, sizeof(text), "%dx%d@%.3f", wanted->width, wanted->height, wanted->refresh_mhz / 1000.0);
        return std::string(text);
    };
    if (wanted) {
        if (!set_mode(output, *wanted))
            log::error("output %s has no mode %s; using its preferred mode", output->name,
                       describe_mode().c_str());
    } else {
        set_preferred_mode(output);
    }
    auto stage_rest = [&]() {
        if (settings && settings->scale)
            wlr_output_set_scale(output, static_cast<float>(*settings->scale));
        if (settings && settings->transform)
            wlr_output_set_transform(output, static_cast<wl_output_transform>(*settings->transform));
        wlr_output_enable(output, true);
    };
    stage_rest();
    if (wlr_output_commit(output))
        return true;
    if (!wanted)
        return false;
    log::error("output %s refused mode %s; using its preferred mode", output->name,
               describe_mode().c_str());
    wlr_output_rollback(output);
    set_preferred_mode(output);
    stage_rest();
    return wlr_output_commit(output);
}

}  // namespace kiln::compositor
