"""HDR colour references computed outside kiln from the published formulas: SMPTE ST 2084 (PQ), ITU-R BT.2100's HLG
and its OOTF, ITU-R BT.2390's EETF, and what a surface of a given description shows on kiln's sRGB or BT.2020 PQ
outputs (doc/colour.md's pipeline: decode, tone map, matrix to the output's primaries, clip, encode). The primaries'
matrices and the sRGB curve are tests/protocol/color_management_pixels.py's."""
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
import color_management_pixels as cmp  # noqa: E402

BT2020 = ((0.708, 0.292), (0.170, 0.797), (0.131, 0.046))
PRIMARIES = dict(cmp.PRIMARIES, bt2020=BT2020)

# SMPTE ST 2084, equation 4.1 and its constants.
M1, M2 = 2610 / 16384, 2523 / 4096 * 128
C1, C2, C3 = 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32


def pq_encode(nits):
    """cd/m² → PQ signal 0..1 (ST 2084's inverse EOTF)."""
    y = max(0.0, nits) / 10000
    return ((C1 + C2 * y ** M1) / (1 + C3 * y ** M1)) ** M2


def pq_decode(signal):
    """PQ signal 0..1 → cd/m² (ST 2084's EOTF)."""
    p = max(0.0, min(1.0, signal)) ** (1 / M2)
    return 10000 * (max(p - C1, 0.0) / (C2 - C3 * p)) ** (1 / M1)


HLG_A = 0.17883277
HLG_B = 1 - 4 * HLG_A
HLG_C = 0.5 - HLG_A * math.log(4 * HLG_A)


def hlg_inverse_oetf(signal):
    """BT.2100 table 5: HLG signal → scene light 0..1."""
    return signal * signal / 3 if signal <= 0.5 else (math.exp((signal - HLG_C) / HLG_A) + HLG_B) / 12


def hlg_ootf(scene, peak=1000):
    """BT.2100 table 5's OOTF (black 0): scene light (BT.2020 RGB) → display light in cd/m²."""
    gamma = 1.2 + 0.42 * math.log10(peak / 1000)
    ys = 0.2627 * scene[0] + 0.6780 * scene[1] + 0.0593 * scene[2]
    return [peak * ys ** (gamma - 1) * v if ys > 0 else 0.0 for v in scene]


def bt2390_eetf(signal, source, target):
    """ITU-R BT.2390-10 section 5.4: a PQ signal mastered on `source` (min, max cd/m²) onto a display of `target`."""
    black, white = pq_encode(source[0]), pq_encode(source[1])
    span = white - black
    e1 = min(1.0, max(0.0, (signal - black) / span))
    min_lum = min(1.0, max(0.0, (pq_encode(target[0]) - black) / span))
    max_lum = min(1.0, max(0.0, (pq_encode(target[1]) - black) / span))
    knee = 1.5 * max_lum - 0.5
    e2 = e1
    if e1 >= knee:
        t = (e1 - knee) / (1 - knee)
        e2 = ((2 * t ** 3 - 3 * t ** 2 + 1) * knee + (t ** 3 - 2 * t ** 2 + t) * (1 - knee)
              + (-2 * t ** 3 + 3 * t ** 2) * max_lum)
    e3 = e2 + min_lum * (1 - e2) ** 4
    return e3 * span + black


def matrix(source, destination):
    """RGB in `source` primaries → RGB in `destination` ones (both D65)."""
    return cmp.product(cmp.inverse(cmp.to_xyz(PRIMARIES[destination])), cmp.to_xyz(PRIMARIES[source]))


def apply(m, rgb):
    return [sum(m[r][k] * rgb[k] for k in range(3)) for r in range(3)]


def on_srgb(patches, primaries, linear_of):
    """8-bit codes on kiln's sRGB output of `patches` whose relative linear light (1.0 = the output's white) in
    `primaries` is `linear_of(code 0..1)` per channel, or `linear_of(rgb)` where it needs all three."""
    m = matrix(primaries, "srgb")
    out = []
    for patch in patches:
        linear = apply(m, linear_of([c / 255 for c in patch]))
        out.append(tuple(round(cmp.srgb_encode(min(1.0, max(0.0, v))) * 255) for v in linear))
    return out


def pq_on_srgb(patches, content=(0.005, 10000.005), white=203, output_white=80, output_peak=80):
    """BT.2020 PQ content (color-management-v1's defaults: 0.005..min + 10,000 cd/m², reference white 203) on an
    sRGB output: each channel's signal through the BT.2390 EETF onto the output's peak in the content's cd/m²,
    decoded, its reference white put on the output's, BT.2020 → BT.709, clipped, sRGB-encoded."""
    target = (0.0, output_peak * white / output_white)

    def linear(rgb):
        return [pq_decode(bt2390_eetf(v, content, target)) / white for v in rgb]
    return on_srgb(patches, "bt2020", linear)


def hlg_on_srgb(patches, peak=1000, white=203):
    """BT.2020 HLG content (nominal peak 1,000 cd/m², reference white 203) on an sRGB output: scene light through the
    OOTF, its reference white on the output's, BT.2020 → BT.709, clipped, sRGB-encoded."""
    return on_srgb(patches, "bt2020", lambda rgb: [v / white for v in hlg_ootf([hlg_inverse_oetf(c) for c in rgb],
                                                                                peak)])


def linear_on_pq(patches, primaries="srgb", sdr_white=203, peak=1000, bits=8):
    """Relative linear light (1.0 = SDR white) in `primaries` on a BT.2020 PQ output whose SDR white is `sdr_white`
    cd/m²: to BT.2020, times the SDR white, clipped at the output's peak (what kiln does above it), PQ-encoded, as
    `bits`-bit codes. `patches` hold the linear values themselves."""
    m = matrix(primaries, "bt2020")
    top = (1 << bits) - 1
    return [tuple(round(pq_encode(min(peak, max(0.0, v * sdr_white))) * top) for v in apply(m, patch))
            for patch in patches]


def srgb_on_pq(patches, sdr_white=203, peak=1000):
    """8-bit sRGB patches on a BT.2020 PQ output (kiln.ini color-profile=bt2020-pq): decoded, then linear_on_pq."""
    return linear_on_pq([[cmp.srgb_decode(c / 255) for c in patch] for patch in patches], "srgb", sdr_white, peak)
