// The BT.2390 EETF and the BT.2100 HLG OOTF.
#include "renderer/colour/tone_curve.hpp"

#include "renderer/colour/transfer.hpp"

#include <algorithm>
#include <cmath>

namespace kiln::renderer {

namespace {

double pq(double nits)
{
    return encode(TransferFunction::st2084_pq, nits / 10000.0);
}

}  // namespace

double bt2390_eetf(double e, LuminanceRange source, LuminanceRange target)
{
    const double source_black = pq(source.min);
    const double source_white = pq(source.max);
    const double span = source_white - source_black;
    if (!(span > 0))
        return e;
    // Normalised to the source's range.
    const double e1 = std::clamp((e - source_black) / span, 0.0, 1.0);
    const double min_lum = std::clamp((pq(target.min) - source_black) / span, 0.0, 1.0);
    const double max_lum = std::clamp((pq(target.max) - source_black) / span, 0.0, 1.0);
    if (max_lum >= 1.0 && min_lum <= 0.0)
        return e;

    const double knee = 1.5 * max_lum - 0.5;
    double e2 = e1;
    if (e1 >= knee && knee < 1.0) {
        const double t = (e1 - knee) / (1.0 - knee);
        const double t2 = t * t, t3 = t2 * t;
        e2 = (2 * t3 - 3 * t2 + 1) * knee + (t3 - 2 * t2 + t) * (1.0 - knee) + (-2 * t3 + 3 * t2) * max_lum;
    }
    const double e3 = e2 + min_lum * std::pow(1.0 - e2, 4.0);
    return e3 * span + source_black;
}

std::array<double, 3> hlg_ootf(const std::array<double, 3>& rgb, double peak_nits)
{
    const double gamma = 1.2 + 0.42 * std::log10(peak_nits / 1000.0);
    // BT.2100 luminance weights for BT.2020 primaries.
    const double ys = 0.2627 * rgb[0] + 0.6780 * rgb[1] + 0.0593 * rgb[2];
    const double gain = ys > 0 ? peak_nits * std::pow(ys, gamma - 1.0) : 0.0;
    return {gain * rgb[0], gain * rgb[1], gain * rgb[2]};
}

}  // namespace kiln::renderer
