// Each output's colour description from kiln.ini, kept as one shared object per output name.
#include "compositor/output/output_colours.hpp"

#include "compositor/wlr.hpp"
#include "renderer/colour/colour_pipeline.hpp"

namespace kiln::compositor {
namespace {

// BT.2100's reference white for SDR content on a PQ display (ITU-R BT.2408), and a common HDR10 display's peak.
constexpr double default_sdr_white = 203;
constexpr double default_peak = 1000;

}  // namespace

renderer::ImageDescription configured_description(const OutputSettings* settings)
{
    if (!settings || !settings->colour_profile)
        return renderer::srgb_output();
    switch (*settings->colour_profile) {
    case OutputColourProfile::srgb:
        break;
    case OutputColourProfile::display_p3:
        return renderer::sdr_output(renderer::NamedPrimaries::display_p3, renderer::TransferFunction::srgb);
    case OutputColourProfile::bt2020_pq:
        return renderer::pq_output(settings->sdr_white.value_or(default_sdr_white),
                                   settings->peak.value_or(default_peak));
    case OutputColourProfile::bt2020_hlg:
        return renderer::hlg_output(settings->sdr_white.value_or(default_sdr_white),
                                    settings->peak.value_or(default_peak));
    case OutputColourProfile::icc:
        if (settings->icc_description)
            return *settings->icc_description;
        break;
    }
    return renderer::srgb_output();
}

std::shared_ptr<const renderer::ImageDescription> OutputColours::description(const wlr_output* output)
{
    const OutputSettings* settings = options_.output(output->name);
    const OutputColourProfile profile =
        settings && settings->colour_profile ? *settings->colour_profile : OutputColourProfile::srgb;
    const double sdr_white = settings ? settings->sdr_white.value_or(default_sdr_white) : default_sdr_white;
    const double peak = settings ? settings->peak.value_or(default_peak) : default_peak;
    if (profile == OutputColourProfile::srgb)
        return nullptr;  // kiln's default: color-management-v1's default record, the renderer's plain path
    if (profile == OutputColourProfile::icc)
        return settings->icc_description;  // one object per reading of kiln.ini; null (sRGB) if it was refused
    const bool luminances = profile == OutputColourProfile::bt2020_pq || profile == OutputColourProfile::bt2020_hlg;
    auto found = entries_.find(output->name);
    if (found != entries_.end() && found->second.profile == profile &&
        (!luminances ||
         (found->second.sdr_white == sdr_white && found->second.peak == peak)))
        return found->second.description;
    Entry entry{profile, sdr_white, peak,
                std::make_shared<const renderer::ImageDescription>(configured_description(settings))};
    auto description = entry.description;
    entries_.insert_or_assign(output->name, std::move(entry));
    return description;
}

}  // namespace kiln::compositor
