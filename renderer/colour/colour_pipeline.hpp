// ColourPipeline: what it takes to show one surface's pixels on an output (decode, tone map, matrix or ICC table,
// clip, encode), worked out on doubles from the two descriptions and handed to a shader as a program key plus
// uniforms. doc/colour.md ("How kiln converts") states the steps.
#pragma once

#include "renderer/colour/image_description.hpp"

#include <array>
#include <compare>
#include <memory>
#include <optional>

namespace kiln::renderer {

// How HDR content is brought into the output's range.
enum class ToneMap {
    none,
    bt2390,    // PQ: the BT.2390 EETF per channel, in the PQ domain, before decoding
    hlg_ootf,  // HLG: scene light to display light for the description's peak (BT.2100 OOTF)
};

// What a conversion program does: one linked program per distinct key (and sampling variant), cached like the
// renderer's other programs; everything else is a uniform.
struct ColourKey {
    TransferFunction decode = TransferFunction::srgb;  // unused with `lut`
    bool lut = false;                                  // an ICC table: sampled as a 3D texture giving XYZ
    bool matrix = false;                               // a 3x3 matrix (primaries, white, luminance scale)
    ToneMap tone = ToneMap::none;
    TransferFunction encode = TransferFunction::srgb;  // the output's (HLG: inverse OOTF, then the OETF)
    bool encode_lut = false;                           // an ICC output: its table replaces `encode`
    auto operator<=>(const ColourKey&) const = default;
};

struct ColourPipeline {
    ColourKey key;
    // Row-major: decoded (and tone-mapped) linear content, or the table's XYZ, to linear light in the output's
    // primaries where 1.0 is the output's reference white.
    std::array<float, 9> matrix{1, 0, 0, 0, 1, 0, 0, 0, 1};
    // BT.2390 in the PQ domain: source black, source span (white - black), target min and max normalised to it.
    std::array<float, 4> eetf{};
    // HLG OOTF: display peak (cd/m²) and system gamma.
    std::array<float, 2> hlg{};
    // The top of the output's range in the matrix's units: 1 (its white) on SDR outputs, its peak / 10,000 on PQ.
    float clip_max = 1.0f;
    std::shared_ptr<const IccTable> lut;
    // An HLG output: the system gamma its inverse OOTF undoes (BT.2100, for its peak).
    float hlg_out_gamma = 1.2f;
    // An ICC output: its table (ImageDescription::output_table), sampled at clip(rgb)^(1/2.4).
    std::shared_ptr<const IccTable> output_lut;
};

// True when the surface needs no conversion onto a plain sRGB output: no description, or plain sRGB. Such surfaces
// take the renderer's ordinary programs with no extra uniform.
inline bool is_plain(const SurfaceColour& colour)
{
    return !colour.description || colour.description->is_plain_srgb();
}

// The description of an output nobody described: sRGB, reference white (and peak) 80 cd/m².
ImageDescription srgb_output();
// An SDR output with `primaries` and `tf`, white 80 cd/m²; or a PQ one (BT.2020 primaries) whose SDR white is
// `sdr_white` and peak `peak` cd/m².
ImageDescription sdr_output(NamedPrimaries primaries, TransferFunction tf);
ImageDescription pq_output(double sdr_white, double peak);
// An HLG output (BT.2020 primaries, nominal peak `peak` cd/m²) whose SDR white is `sdr_white`.
ImageDescription hlg_output(double sdr_white, double peak);
// The system gamma of BT.2100's HLG OOTF for a display of `peak` cd/m²: 1.2 + 0.42 log10(peak / 1000).
double hlg_system_gamma(double peak);

// Where a conversion writes. `output_encoding`: straight into the output's encoding (blending then happens on
// encoded values). `linear_light`: linear light in the output's primaries, 1.0 = the output's reference white,
// clipped to its range (SDR: 0..1; PQ: 0..peak / white), for an FP16 intermediate that one encode pass
// (linear_encode) later brings to the output's encoding: blending happens in linear light.
enum class CompositionSpace { output_encoding, linear_light };

// The conversion of `surface` onto `output`. nullopt when none is needed (both plain sRGB, into the output's
// encoding) or none can be made (primaries that span no volume, an empty table, an output transfer function the
// pipeline cannot encode yet: extended linear): the renderer then draws the pixels as they are. Into
// `linear_light` plain sRGB surfaces are converted too (decoded), whatever the output.
std::optional<ColourPipeline> colour_pipeline(const SurfaceColour& surface, const ImageDescription& output,
                                              CompositionSpace space = CompositionSpace::output_encoding);

// Whether frames onto `output` can be composed in linear light: the encode pass can write its transfer function
// (SDR curves, PQ, HLG through its inverse OOTF) or sample its ICC table; not extended linear, nor a broken table.
bool can_compose_linear(const ImageDescription& output);

// The encode pass from the linear-light intermediate to the output: rgb * scale, clipped to 0..clip_max, encoded
// with `encode` (HLG: inverse OOTF for `hlg_gamma`, then the OETF) or, for an ICC output, its `table` sampled at
// the clipped value raised to 1/2.4.
struct LinearEncode {
    TransferFunction encode = TransferFunction::srgb;
    float scale = 1.0f;      // PQ: the output's reference white / 10,000 (absolute units); HLG: white / peak; else 1
    float clip_max = 1.0f;   // PQ: the output's peak / 10,000; else 1
    float hlg_gamma = 1.2f;  // HLG: the system gamma of the output's peak (BT.2100)
    std::shared_ptr<const IccTable> table;  // an ICC output: replaces `encode`
    bool operator==(const LinearEncode&) const = default;
};
LinearEncode linear_encode(const ImageDescription& output);

// The linear-light colour the encode pass turns back into `encoded` (0..1 each): how the background and solid
// rectangles, which kiln draws with the values they are given (unconverted), keep their on-screen values in a
// linear-light frame. Exact for the curves (HLG included: its OOTF undoes the encode's inverse OOTF); through an ICC
// output's forward table (ImageDescription::icc) it is the table's round trip, within about a code value.
std::array<double, 3> linear_of_encoded(const ImageDescription& output, const std::array<double, 3>& encoded);

// The luminance range BT.2390 maps PQ content from, in cd/m²: the mastering display's where given, else the
// description's luminances.
LuminanceRange pq_source_range(const ImageDescription& description);
// ... and to: the output's peak expressed in the content's cd/m² (the content's reference white lands on the
// output's), with black at 0 (the output's own black is its encoding's 0, so no lift).
LuminanceRange pq_target_range(const ImageDescription& description, const ImageDescription& output);

}  // namespace kiln::renderer
