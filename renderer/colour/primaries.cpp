// Colour primaries, white points and the matrices between them.
#include "renderer/colour/primaries.hpp"

#include <cmath>

namespace kiln::renderer {

Primaries named_primaries(NamedPrimaries name)
{
    switch (name) {
    case NamedPrimaries::srgb:  // ITU-R BT.709
        return {{0.640, 0.330}, {0.300, 0.600}, {0.150, 0.060}, white::d65};
    case NamedPrimaries::bt2020:  // ITU-R BT.2020 / BT.2100
        return {{0.708, 0.292}, {0.170, 0.797}, {0.131, 0.046}, white::d65};
    case NamedPrimaries::display_p3:  // SMPTE EG 432-1 primaries, D65 white
        return {{0.680, 0.320}, {0.265, 0.690}, {0.150, 0.060}, white::d65};
    case NamedPrimaries::adobe_rgb:  // Adobe RGB (1998)
        return {{0.640, 0.330}, {0.210, 0.710}, {0.150, 0.060}, white::d65};
    case NamedPrimaries::dci_p3:  // SMPTE RP 431-2, DCI white
        return {{0.680, 0.320}, {0.265, 0.690}, {0.150, 0.060}, white::dci};
    }
    return named_primaries(NamedPrimaries::srgb);
}

std::string_view primaries_name(NamedPrimaries name)
{
    switch (name) {
    case NamedPrimaries::srgb:
        return "srgb";
    case NamedPrimaries::bt2020:
        return "bt2020";
    case NamedPrimaries::display_p3:
        return "display_p3";
    case NamedPrimaries::adobe_rgb:
        return "adobe_rgb";
    case NamedPrimaries::dci_p3:
        return "dci_p3";
    }
    return "?";
}

std::array<double, 3> white_xyz(Chromaticity white)
{
    return {white.x / white.y, 1.0, (1.0 - white.x - white.y) / white.y};
}

ColourMatrix multiply(const ColourMatrix& a, const ColourMatrix& b)
{
    ColourMatrix out{};
    for (int row = 0; row < 3; ++row)
        for (int col = 0; col < 3; ++col)
            for (int k = 0; k < 3; ++k)
                out[row * 3 + col] += a[row * 3 + k] * b[k * 3 + col];
    return out;
}

std::optional<ColourMatrix> invert(const ColourMatrix& m)
{
    const double det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
                       m[2] * (m[3] * m[7] - m[4] * m[6]);
    // Primaries a client can name are far from singular; this only refuses degenerate ones.
    if (!std::isfinite(det) || std::abs(det) < 1e-12)
        return std::nullopt;
    const double inv = 1.0 / det;
    return ColourMatrix{
        (m[4] * m[8] - m[5] * m[7]) * inv, (m[2] * m[7] - m[1] * m[8]) * inv, (m[1] * m[5] - m[2] * m[4]) * inv,
        (m[5] * m[6] - m[3] * m[8]) * inv, (m[0] * m[8] - m[2] * m[6]) * inv, (m[2] * m[3] - m[0] * m[5]) * inv,
        (m[3] * m[7] - m[4] * m[6]) * inv, (m[1] * m[6] - m[0] * m[7]) * inv, (m[0] * m[4] - m[1] * m[3]) * inv,
    };
}

std::array<double, 3> apply_matrix(const ColourMatrix& m, const std::array<double, 3>& v)
{
    return {m[0] * v[0] + m[1] * v[1] + m[2] * v[2], m[3] * v[0] + m[4] * v[1] + m[5] * v[2],
            m[6] * v[0] + m[7] * v[1] + m[8] * v[2]};
}

std::optional<ColourMatrix> rgb_to_xyz(const Primaries& p)
{
    for (const Chromaticity& c : {p.red, p.green, p.blue, p.white})
        if (!(c.y > 0) || !std::isfinite(c.x) || !std::isfinite(c.y))
            return std::nullopt;
    // Columns: each primary's XYZ at Y = 1, then scaled so that r = g = b = 1 lands on the white.
    auto xyz = [](Chromaticity c) { return std::array<double, 3>{c.x / c.y, 1.0, (1.0 - c.x - c.y) / c.y}; };
    const auto r = xyz(p.red), g = xyz(p.green), b = xyz(p.blue);
    const ColourMatrix columns{r[0], g[0], b[0], r[1], g[1], b[1], r[2], g[2], b[2]};
    const auto inverse = invert(columns);
    if (!inverse)
        return std::nullopt;
    const auto scale = apply_matrix(*inverse, white_xyz(p.white));
    ColourMatrix out = columns;
    for (int row = 0; row < 3; ++row)
        for (int col = 0; col < 3; ++col)
            out[row * 3 + col] *= scale[col];
    return out;
}

ColourMatrix bradford_adaptation(Chromaticity from, Chromaticity to)
{
    // Bradford's cone response matrix (Lam 1985, as ICC.1 Annex E gives it).
    static constexpr ColourMatrix cone{0.8951, 0.2664, -0.1614, -0.7502, 1.7135, 0.0367, 0.0389, -0.0685, 1.0296};
    static const ColourMatrix cone_inverse = *invert(cone);
    if (from == to)
        return {1, 0, 0, 0, 1, 0, 0, 0, 1};
    const auto src = apply_matrix(cone, white_xyz(from));
    const auto dst = apply_matrix(cone, white_xyz(to));
    const ColourMatrix gain{dst[0] / src[0], 0, 0, 0, dst[1] / src[1], 0, 0, 0, dst[2] / src[2]};
    return multiply(cone_inverse, multiply(gain, cone));
}

std::optional<ColourMatrix> rgb_to_rgb(const Primaries& from, const Primaries& to)
{
    const auto from_xyz = rgb_to_xyz(from);
    const auto to_xyz = rgb_to_xyz(to);
    if (!from_xyz || !to_xyz)
        return std::nullopt;
    const auto xyz_to = invert(*to_xyz);
    if (!xyz_to)
        return std::nullopt;
    return multiply(*xyz_to, multiply(bradford_adaptation(from.white, to.white), *from_xyz));
}

}  // namespace kiln::renderer
