// Transfer functions as exact formulas.
#include "renderer/colour/transfer.hpp"

#include <algorithm>
#include <cmath>

namespace kiln::renderer {

namespace {

// SMPTE ST 2084 constants.
constexpr double pq_m1 = 2610.0 / 16384.0;
constexpr double pq_m2 = 2523.0 / 4096.0 * 128.0;
constexpr double pq_c1 = 3424.0 / 4096.0;
constexpr double pq_c2 = 2413.0 / 4096.0 * 32.0;
constexpr double pq_c3 = 2392.0 / 4096.0 * 32.0;

// ARIB STD-B67 constants.
constexpr double hlg_a = 0.17883277;
constexpr double hlg_b = 1.0 - 4.0 * hlg_a;
const double hlg_c = 0.5 - hlg_a * std::log(4.0 * hlg_a);

// Applies an SDR curve to |v| and gives back the sign, so extended-range values survive a round trip.
template <typename F>
double mirrored(double v, F curve)
{
    return v < 0 ? -curve(-v) : curve(v);
}

}  // namespace

std::string_view transfer_name(TransferFunction tf)
{
    switch (tf) {
    case TransferFunction::srgb:
        return "srgb";
    case TransferFunction::gamma22:
        return "gamma22";
    case TransferFunction::bt1886:
        return "bt1886";
    case TransferFunction::st2084_pq:
        return "st2084_pq";
    case TransferFunction::hlg:
        return "hlg";
    case TransferFunction::ext_linear:
        return "ext_linear";
    }
    return "?";
}

double decode(TransferFunction tf, double e)
{
    switch (tf) {
    case TransferFunction::srgb:
        return mirrored(e, [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); });
    case TransferFunction::gamma22:
        return mirrored(e, [](double v) { return std::pow(v, 2.2); });
    case TransferFunction::bt1886:
        return mirrored(e, [](double v) { return std::pow(v, 2.4); });
    case TransferFunction::st2084_pq: {
        const double p = std::pow(std::clamp(e, 0.0, 1.0), 1.0 / pq_m2);
        return std::pow(std::max(p - pq_c1, 0.0) / (pq_c2 - pq_c3 * p), 1.0 / pq_m1);
    }
    case TransferFunction::hlg: {
        const double v = std::clamp(e, 0.0, 1.0);
        return v <= 0.5 ? v * v / 3.0 : (std::exp((v - hlg_c) / hlg_a) + hlg_b) / 12.0;
    }
    case TransferFunction::ext_linear:
        return e;
    }
    return e;
}

double encode(TransferFunction tf, double l)
{
    switch (tf) {
    case TransferFunction::srgb:
        return mirrored(l, [](double v) { return v <= 0.0031308 ? v * 12.92 : 1.055 * std::pow(v, 1 / 2.4) - 0.055; });
    case TransferFunction::gamma22:
        return mirrored(l, [](double v) { return std::pow(v, 1 / 2.2); });
    case TransferFunction::bt1886:
        return mirrored(l, [](double v) { return std::pow(v, 1 / 2.4); });
    case TransferFunction::st2084_pq: {
        const double y = std::pow(std::clamp(l, 0.0, 1.0), pq_m1);
        return std::pow((pq_c1 + pq_c2 * y) / (1.0 + pq_c3 * y), pq_m2);
    }
    case TransferFunction::hlg: {
        const double v = std::clamp(l, 0.0, 1.0);
        return v <= 1.0 / 12.0 ? std::sqrt(3.0 * v) : hlg_a * std::log(12.0 * v - hlg_b) + hlg_c;
    }
    case TransferFunction::ext_linear:
        return l;
    }
    return l;
}

bool is_hdr(TransferFunction tf)
{
    return tf == TransferFunction::st2084_pq || tf == TransferFunction::hlg || tf == TransferFunction::ext_linear;
}

}  // namespace kiln::renderer
