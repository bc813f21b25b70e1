// Tone curves for HDR content shown on a dimmer display: the ITU-R BT.2390 EETF (PQ content into a smaller
// luminance range) and the BT.2100 HLG OOTF (scene light to display light for a display's peak). Plain formulas on
// doubles, the reference the shaders are checked against; doc/colour.md states the curve.
#pragma once

#include <array>

namespace kiln::renderer {

// The luminance ranges the BT.2390 EETF maps between, in cd/m².
struct LuminanceRange {
    double min = 0.0;
    double max = 10000.0;
};

// BT.2390-4 section 5.4 EETF: maps a PQ-encoded value of content mastered for `source` into a PQ-encoded value for a
// display of range `target`. Values below the knee (1.5 * target max - 0.5, in the normalised PQ domain) pass
// unchanged; above it a Hermite spline rolls off to the target's peak; the black lift follows the target's minimum.
// A target at least as wide as the source leaves values unchanged.
double bt2390_eetf(double pq_encoded, LuminanceRange source, LuminanceRange target);

// BT.2100 HLG OOTF on scene-linear RGB (0..1) for a display of peak `peak_nits` (black 0): display light in cd/m².
// The system gamma is 1.2 at 1,000 cd/m² and follows BT.2100's 1.2 + 0.42 log10(peak / 1000).
std::array<double, 3> hlg_ootf(const std::array<double, 3>& scene_rgb, double peak_nits);

}  // namespace kiln::renderer
