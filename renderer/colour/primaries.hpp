// Colour primaries and white points (CIE 1931 xy), the named sets color-management-v1 offers, and the 3x3 matrices
// that take linear RGB in one set to XYZ or to linear RGB in another (relative colorimetric: whites adapted by
// Bradford, as ICC profiles do).
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace kiln::renderer {

struct Chromaticity {
    double x = 0;
    double y = 0;
    bool operator==(const Chromaticity&) const = default;
};

struct Primaries {
    Chromaticity red;
    Chromaticity green;
    Chromaticity blue;
    Chromaticity white;
    bool operator==(const Primaries&) const = default;
};

// Row-major; applied to column vectors (r, g, b). Doubles: matrices are built once per description pair and only
// then handed to shaders as floats.
using ColourMatrix = std::array<double, 9>;

// The named primaries kiln knows (color-management-v1's `primaries` enum names them the same).
enum class NamedPrimaries { srgb, bt2020, display_p3, adobe_rgb, dci_p3 };

Primaries named_primaries(NamedPrimaries name);
std::string_view primaries_name(NamedPrimaries name);

namespace white {
inline constexpr Chromaticity d65{0.3127, 0.3290};
inline constexpr Chromaticity d50{0.3457, 0.3585};
inline constexpr Chromaticity dci{0.3140, 0.3510};
}  // namespace white

// XYZ of a white point scaled to Y = 1.
std::array<double, 3> white_xyz(Chromaticity white);

// Linear RGB → XYZ for these primaries (the white maps to Y = 1). nullopt when the primaries do not span a volume
// (collinear, or a y of 0), which a client's parametric description may well ask for.
std::optional<ColourMatrix> rgb_to_xyz(const Primaries& primaries);

// The Bradford transform that takes XYZ under white `from` to XYZ under white `to`.
ColourMatrix bradford_adaptation(Chromaticity from, Chromaticity to);

// Linear RGB in `from` → linear RGB in `to`, whites adapted (relative colorimetric). nullopt as rgb_to_xyz says.
std::optional<ColourMatrix> rgb_to_rgb(const Primaries& from, const Primaries& to);

ColourMatrix multiply(const ColourMatrix& a, const ColourMatrix& b);
std::optional<ColourMatrix> invert(const ColourMatrix& m);
std::array<double, 3> apply_matrix(const ColourMatrix& m, const std::array<double, 3>& v);

}  // namespace kiln::renderer
