// ImageDescription: what a surface's or an output's pixel values mean (primaries, transfer function, luminances,
// or an ICC profile sampled into a table), as color-management-v1 describes them. The protocol side builds these;
// the renderer turns a (surface description, output description, intent) triple into a conversion. Plain values
// only, shared as immutable objects because many surfaces commonly share one description.
#pragma once

#include "renderer/colour/primaries.hpp"
#include "renderer/colour/tone_curve.hpp"
#include "renderer/colour/transfer.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace kiln::renderer {

// color-management-v1's render intents.
enum class RenderIntent { perceptual, relative, saturation, absolute, relative_bpc };

// An ICC profile reduced to what a shader samples: a cube of `size`³ entries, indexed by the encoded device RGB
// (red fastest), each the linear-light CIE XYZ (D65 white at Y = 1, relative colorimetric) that value means.
// Built once per profile (lcms2 on the protocol side); the renderer never parses ICC.
// An output's table (ImageDescription::output_table) is the other way round: indexed by linear light in the
// description's primaries (1 = its white) raised to 1/2.4 (so dark values get their share of entries), each entry
// the device RGB the profile gives it.
struct IccTable {
    int size = 0;
    std::vector<float> xyz;  // size * size * size * 3
};

struct ImageDescription {
    Primaries primaries = named_primaries(NamedPrimaries::srgb);  // the container's primaries and white
    TransferFunction transfer = TransferFunction::srgb;
    // Luminances in cd/m² (color-management-v1 `set_luminances`): the defaults are the protocol's for each transfer
    // function (sRGB-like: 0.2 / 80 / 80; PQ: 0.005 / 10000 / 203; HLG: 0.005 / 1000 / 203).
    double min_luminance = 0.2;
    double max_luminance = 80.0;
    double reference_white = 80.0;
    // The mastering display (HDR metadata), when the client gave it; tone mapping targets from these.
    std::optional<Primaries> mastering_primaries;
    std::optional<LuminanceRange> mastering_luminance;
    double max_cll = 0;   // 0: not given
    double max_fall = 0;  // 0: not given
    // Set for descriptions made from an ICC profile; the fields above then hold what the profile says of its
    // primaries where it has a matrix, and the table is what the renderer samples.
    std::shared_ptr<const IccTable> icc;
    // Set for an output described by an ICC profile (kiln.ini color-profile=icc:PATH): what the renderer encodes
    // with, instead of `transfer`; and the profile's bytes, for color-management-v1's icc_file.
    std::shared_ptr<const IccTable> output_table;
    std::shared_ptr<const std::vector<uint8_t>> icc_profile;

    // The description of plain sRGB content on a plain sRGB display: the path that needs no conversion.
    bool is_plain_srgb() const
    {
        return !icc && !output_table && transfer == TransferFunction::srgb &&
               primaries == named_primaries(NamedPrimaries::srgb);
    }
};

// How a surface's pixels are to be read: its description (nullptr: sRGB, as every client without
// color-management-v1) and the intent it asked for.
struct SurfaceColour {
    std::shared_ptr<const ImageDescription> description;
    RenderIntent intent = RenderIntent::perceptual;
    bool operator==(const SurfaceColour&) const = default;
};

}  // namespace kiln::renderer
