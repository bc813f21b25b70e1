// Working out a surface's conversion onto an output: which program and which uniforms.
#include "renderer/colour/colour_pipeline.hpp"

#include <algorithm>
#include <cmath>

namespace kiln::renderer {
namespace {

constexpr double default_hdr_white = 203.0;  // BT.2408's HDR reference white, color-management-v1's default

bool is_sdr_encoding(TransferFunction tf)
{
    return tf == TransferFunction::srgb || tf == TransferFunction::gamma22 || tf == TransferFunction::bt1886;
}

bool can_encode(TransferFunction tf)
{
    return is_sdr_encoding(tf) || tf == TransferFunction::st2084_pq || tf == TransferFunction::hlg;
}

bool is_identity(const ColourMatrix& m)
{
    const ColourMatrix one{1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (size_t i = 0; i < m.size(); ++i)
        if (std::abs(m[i] - one[i]) > 1e-9)
            return false;
    return true;
}

double reference_white(const ImageDescription& d)
{
    if (d.reference_white > 0)
        return d.reference_white;
    return is_hdr(d.transfer) ? default_hdr_white : 80.0;
}

// An HLG output's nominal peak in cd/m² (BT.2100's L_W).
double hlg_peak(const ImageDescription& d)
{
    return d.max_luminance > 0 ? d.max_luminance : 1000.0;
}

bool valid_table(const IccTable& table)
{
    return table.size >= 2 && table.xyz.size() == static_cast<size_t>(table.size) * table.size * table.size * 3;
}

// A table's entry at encoded `rgb` (0..1), interpolated trilinearly as the renderer's 3D texture does.
std::array<double, 3> table_lookup(const IccTable& table, const std::array<double, 3>& rgb)
{
    const int n = table.size;
    int lo[3];
    double f[3];
    for (int i = 0; i < 3; ++i) {
        const double p = std::clamp(rgb[i], 0.0, 1.0) * (n - 1);
        lo[i] = std::min(static_cast<int>(std::floor(p)), n - 2);
        f[i] = p - lo[i];
    }
    std::array<double, 3> out{};
    for (int corner = 0; corner < 8; ++corner) {
        const int dr = corner & 1, dg = (corner >> 1) & 1, db = (corner >> 2) & 1;
        const double w = (dr ? f[0] : 1 - f[0]) * (dg ? f[1] : 1 - f[1]) * (db ? f[2] : 1 - f[2]);
        const size_t at = ((static_cast<size_t>(lo[2] + db) * n + (lo[1] + dg)) * n + (lo[0] + dr)) * 3;
        for (int c = 0; c < 3; ++c)
            out[c] += w * table.xyz[at + c];
    }
    return out;
}

double pq(double nits)
{
    return encode(TransferFunction::st2084_pq, nits / 10000.0);
}

}  // namespace

ImageDescription srgb_output()
{
    return ImageDescription{};
}

ImageDescription sdr_output(NamedPrimaries primaries, TransferFunction tf)
{
    ImageDescription d;
    d.primaries = named_primaries(primaries);
    d.transfer = tf;
    return d;
}

ImageDescription pq_output(double sdr_white, double peak)
{
    ImageDescription d;
    d.primaries = named_primaries(NamedPrimaries::bt2020);
    d.transfer = TransferFunction::st2084_pq;
    d.min_luminance = 0.005;
    d.max_luminance = peak;
    d.reference_white = sdr_white;
    return d;
}

ImageDescription hlg_output(double sdr_white, double peak)
{
    ImageDescription d;
    d.primaries = named_primaries(NamedPrimaries::bt2020);
    d.transfer = TransferFunction::hlg;
    d.min_luminance = 0.005;
    d.max_luminance = peak;
    d.reference_white = sdr_white;
    return d;
}

double hlg_system_gamma(double peak)
{
    return 1.2 + 0.42 * std::log10(peak / 1000.0);
}

LuminanceRange pq_source_range(const ImageDescription& d)
{
    if (d.mastering_luminance)
        return *d.mastering_luminance;
    return {d.min_luminance, d.max_luminance};
}

LuminanceRange pq_target_range(const ImageDescription& d, const ImageDescription& output)
{
    return {0.0, output.max_luminance * reference_white(d) / reference_white(output)};
}

bool can_compose_linear(const ImageDescription& output)
{
    if (output.output_table && !valid_table(*output.output_table))
        return false;
    return can_encode(output.transfer);
}

LinearEncode linear_encode(const ImageDescription& output)
{
    LinearEncode e;
    e.encode = output.transfer;
    if (output.output_table) {
        e.table = output.output_table;  // clipped to the profile's 0..1, as the direct path does
    } else if (output.transfer == TransferFunction::st2084_pq) {
        e.scale = static_cast<float>(reference_white(output) / 10000.0);
        e.clip_max = static_cast<float>(std::min(output.max_luminance, 10000.0) / 10000.0);
    } else if (output.transfer == TransferFunction::hlg) {
        // Relative to the output's white → display light relative to its nominal peak (BT.2100's F_D / L_W),
        // clipped at the peak, then the inverse OOTF and the OETF.
        e.scale = static_cast<float>(reference_white(output) / hlg_peak(output));
        e.hlg_gamma = static_cast<float>(hlg_system_gamma(hlg_peak(output)));
    }
    return e;
}

std::array<double, 3> linear_of_encoded(const ImageDescription& output, const std::array<double, 3>& encoded)
{
    std::array<double, 3> v{};
    for (int c = 0; c < 3; ++c)
        v[c] = std::clamp(encoded[c], 0.0, 1.0);
    if (output.output_table && output.icc && valid_table(*output.icc)) {
        // The profile's forward table gives XYZ (D65 white at Y = 1): into the output's primaries.
        const auto to_xyz = rgb_to_xyz(output.primaries);
        const auto from_xyz = to_xyz ? invert(*to_xyz) : std::nullopt;
        if (from_xyz)
            return apply_matrix(multiply(*from_xyz, bradford_adaptation(white::d65, output.primaries.white)),
                                table_lookup(*output.icc, v));
    }
    if (output.transfer == TransferFunction::hlg) {
        // The OOTF (BT.2100, alpha 1) of the decoded scene light is display light relative to the peak, which the
        // encode pass's inverse OOTF takes back to exactly this scene light.
        const double peak = hlg_peak(output);
        const double gamma = hlg_system_gamma(peak);
        std::array<double, 3> scene{};
        for (int c = 0; c < 3; ++c)
            scene[c] = decode(TransferFunction::hlg, v[c]);
        const double ys = 0.2627 * scene[0] + 0.6780 * scene[1] + 0.0593 * scene[2];
        const double factor = ys > 0 ? std::pow(ys, gamma - 1.0) * peak / reference_white(output) : 0.0;
        for (int c = 0; c < 3; ++c)
            v[c] = scene[c] * factor;
        return v;
    }
    for (double& c : v)
        c = output.transfer == TransferFunction::st2084_pq
                ? decode(TransferFunction::st2084_pq, c) * 10000.0 / reference_white(output)
                : decode(output.transfer, c);
    return v;
}

std::optional<ColourPipeline> colour_pipeline(const SurfaceColour& surface, const ImageDescription& output,
                                              CompositionSpace space)
{
    static const ImageDescription srgb{};
    const ImageDescription& d = surface.description ? *surface.description : srgb;
    const bool linear = space == CompositionSpace::linear_light;
    if (!can_encode(output.transfer))
        return std::nullopt;  // extended-linear outputs are not built yet (doc/colour.md)
    if (!linear && d.is_plain_srgb() && output.is_plain_srgb())
        return std::nullopt;

    const bool output_table = output.output_table != nullptr;
    if (output_table) {
        if (!valid_table(*output.output_table))
            return std::nullopt;
    }

    ColourPipeline p;
    // Into linear light the encode pass encodes later (with the output's curve, HLG's inverse OOTF or its table).
    p.key.encode_lut = !linear && output_table;
    p.key.encode = linear ? TransferFunction::ext_linear : output_table ? TransferFunction::srgb : output.transfer;
    if (p.key.encode_lut)
        p.output_lut = output.output_table;
    // All intents adapt whites (relative colorimetric, Bradford) and clip what falls outside the output's gamut;
    // perceptual and saturation are that plus the clip (doc/colour.md says what is not done).
    const auto output_to_xyz = rgb_to_xyz(output.primaries);
    if (!output_to_xyz)
        return std::nullopt;
    const auto xyz_to_output = invert(*output_to_xyz);
    if (!xyz_to_output)
        return std::nullopt;

    ColourMatrix m{};
    if (d.icc) {
        const IccTable& table = *d.icc;
        if (table.size < 2 || table.xyz.size() != static_cast<size_t>(table.size) * table.size * table.size * 3)
            return std::nullopt;
        p.key.lut = true;
        p.lut = d.icc;
        // The table gives XYZ with a D65 white at Y = 1: adapt to the output's white, then into its primaries.
        m = multiply(*xyz_to_output, bradford_adaptation(white::d65, output.primaries.white));
    } else {
        p.key.decode = d.transfer;
        const auto to_output = rgb_to_rgb(d.primaries, output.primaries);
        if (!to_output)
            return std::nullopt;
        m = *to_output;
        double scale = 1.0;
        if (d.transfer == TransferFunction::st2084_pq) {
            // Decoded PQ is absolute (1.0 = 10,000 cd/m²): the content's reference white becomes the output's.
            scale = 10000.0 / reference_white(d);
            const LuminanceRange source = pq_source_range(d);
            const LuminanceRange target = pq_target_range(d, output);
            const double black = pq(source.min);
            const double span = pq(source.max) - black;
            if (span > 0) {
                const double min_lum = std::clamp((pq(target.min) - black) / span, 0.0, 1.0);
                const double max_lum = std::clamp((pq(target.max) - black) / span, 0.0, 1.0);
                if (!(max_lum >= 1.0 && min_lum <= 0.0)) {
                    p.key.tone = ToneMap::bt2390;
                    p.eetf = {static_cast<float>(black), static_cast<float>(span), static_cast<float>(min_lum),
                              static_cast<float>(max_lum)};
                }
            }
        } else if (d.transfer == TransferFunction::hlg) {
            // Scene light → display light for the description's peak, then its reference white onto the output's.
            const double peak = d.max_luminance > 0 ? d.max_luminance : 1000.0;
            p.key.tone = ToneMap::hlg_ootf;
            p.hlg = {static_cast<float>(peak), static_cast<float>(1.2 + 0.42 * std::log10(peak / 1000.0))};
            scale = 1.0 / reference_white(d);
        }
        for (double& v : m)
            v *= scale;
    }
    if (linear) {
        // The intermediate stays relative to the output's white (FP16 keeps its precision there); the encode pass
        // scales PQ to absolute units. Clipped to the output's range, as the direct path clips.
        if (output.transfer == TransferFunction::st2084_pq)
            p.clip_max = static_cast<float>(std::min(output.max_luminance, 10000.0) / reference_white(output));
        else if (output.transfer == TransferFunction::hlg && !output_table)
            p.clip_max = static_cast<float>(hlg_peak(output) / reference_white(output));
    } else if (output.transfer == TransferFunction::st2084_pq) {
        // Relative to the output's white → absolute PQ units (1.0 = 10,000 cd/m²), clipped at its peak.
        const double white = reference_white(output);
        for (double& v : m)
            v *= white / 10000.0;
        p.clip_max = static_cast<float>(std::min(output.max_luminance, 10000.0) / 10000.0);
    } else if (output.transfer == TransferFunction::hlg && !output_table) {
        // Relative to the output's white → display light relative to its nominal peak (BT.2100's F_D / L_W), where
        // the inverse OOTF and the OETF take it; clipped at the peak.
        const double peak = hlg_peak(output);
        for (double& v : m)
            v *= reference_white(output) / peak;
        p.hlg_out_gamma = static_cast<float>(hlg_system_gamma(peak));
    }
    p.key.matrix = p.key.lut || !is_identity(m);
    for (size_t i = 0; i < m.size(); ++i)
        p.matrix[i] = static_cast<float>(m[i]);
    return p;
}

}  // namespace kiln::renderer
