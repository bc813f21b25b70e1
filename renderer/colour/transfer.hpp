// Transfer functions (electrical ↔ optical) color-management-v1 names, as exact formulas on doubles: the reference
// kiln's shaders are checked against and the tables it builds from.
#pragma once

#include <string_view>

namespace kiln::renderer {

enum class TransferFunction {
    srgb,        // IEC 61966-2-1, the piecewise curve
    gamma22,     // pure power 2.2
    bt1886,      // ITU-R BT.1886 with a black of 0 (a pure power 2.4)
    st2084_pq,   // SMPTE ST 2084 / BT.2100 PQ, absolute: 1.0 is 10,000 cd/m²
    hlg,         // ARIB STD-B67 / BT.2100 HLG, scene light
    ext_linear,  // linear, values beyond 0..1 kept (scRGB-like)
};

std::string_view transfer_name(TransferFunction tf);

// Encoded signal → linear light. For PQ the result is relative to 10,000 cd/m²; for HLG it is scene light 0..1
// (the inverse OETF; the OOTF belongs to the display side, see tone_curve.hpp). Values outside 0..1 are mirrored
// about 0 for the SDR curves, as extended-range sRGB does, and clamped for PQ and HLG.
double decode(TransferFunction tf, double encoded);

// Linear light → encoded signal, the inverse of decode.
double encode(TransferFunction tf, double linear);

// Whether a description with this transfer function can say something brighter than its reference white.
bool is_hdr(TransferFunction tf);

}  // namespace kiln::renderer
