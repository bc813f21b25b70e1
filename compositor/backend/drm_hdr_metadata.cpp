// Building struct hdr_output_metadata (linux/drm_mode.h) from an output's description, value by value as CTA-861-G
// codes them.
#include "compositor/backend/drm_hdr_metadata.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <drm_mode.h>

namespace kiln::compositor {
namespace {

static_assert(sizeof(struct ::hdr_output_metadata) == hdr_output_metadata_size);

uint16_t clamped(double v)
{
    return static_cast<uint16_t>(std::clamp(std::lround(v), 0L, 65535L));
}

// Chromaticity coordinates in units of 0.00002 (0xC350 is 1.0).
uint16_t chromaticity(double v)
{
    return clamped(v / 0.00002);
}

}  // namespace

std::optional<HdrOutputMetadata> hdr_output_metadata(const renderer::ImageDescription& d)
{
    if (d.icc || (d.transfer != renderer::TransferFunction::st2084_pq && d.transfer != renderer::TransferFunction::hlg))
        return std::nullopt;
    struct ::hdr_output_metadata m{};
    m.metadata_type = 0;  // HDMI_STATIC_METADATA_TYPE1
    struct ::hdr_metadata_infoframe& f = m.hdmi_metadata_type1;
    f.eotf = static_cast<uint8_t>(d.transfer == renderer::TransferFunction::st2084_pq ? HdrEotf::st2084_pq
                                                                                        : HdrEotf::hlg);
    f.metadata_type = 0;  // Static Metadata Descriptor ID: type 1
    const renderer::Primaries& p = d.mastering_primaries.value_or(d.primaries);
    const renderer::Chromaticity order[3] = {p.red, p.green, p.blue};
    for (int i = 0; i < 3; ++i) {
        f.display_primaries[i].x = chromaticity(order[i].x);
        f.display_primaries[i].y = chromaticity(order[i].y);
    }
    f.white_point.x = chromaticity(p.white.x);
    f.white_point.y = chromaticity(p.white.y);
    const renderer::LuminanceRange mastering =
        d.mastering_luminance.value_or(renderer::LuminanceRange{d.min_luminance, d.max_luminance});
    f.max_display_mastering_luminance = clamped(mastering.max);
    f.min_display_mastering_luminance = clamped(mastering.min * 10000.0);
    f.max_cll = clamped(d.max_cll);
    f.max_fall = clamped(d.max_fall);
    HdrOutputMetadata bytes{};
    std::memcpy(bytes.data(), &m, sizeof m);
    return bytes;
}

std::string_view connector_colorspace(const renderer::ImageDescription& d)
{
    const bool hdr = d.transfer == renderer::TransferFunction::st2084_pq || d.transfer == renderer::TransferFunction::hlg;
    if (!d.icc && hdr && d.primaries == renderer::named_primaries(renderer::NamedPrimaries::bt2020))
        return "BT2020_RGB";
    return "Default";
}

}  // namespace kiln::compositor
