"""ICC profiles written byte by byte from ICC.1:2022 (and ICC.1:2001-04 for version 2), independently of lcms2: an RGB
matrix/shaper Display profile for given primaries (colorants adapted to the D50 PCS with Bradford, as ICC asks), and
the header fields and tags a test breaks on purpose."""
import struct

D50 = (0.9642, 1.0, 0.8249)
BRADFORD = ((0.8951, 0.2664, -0.1614), (-0.7502, 1.7135, 0.0367), (0.0389, -0.0685, 1.0296))
SRGB = ((0.64, 0.33), (0.30, 0.60), (0.15, 0.06), (0.3127, 0.3290))
DISPLAY_P3 = ((0.680, 0.320), (0.265, 0.690), (0.150, 0.060), (0.3127, 0.3290))


def _mul(a, b):
    return tuple(tuple(sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)) for i in range(3))


def _apply(m, v):
    return tuple(sum(m[i][k] * v[k] for k in range(3)) for i in range(3))


def _inv(m):
    (a, b, c), (d, e, f), (g, h, i) = m
    det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    return ((( e * i - f * h) / det, (c * h - b * i) / det, (b * f - c * e) / det),
            ((f * g - d * i) / det, (a * i - c * g) / det, (c * d - a * f) / det),
            ((d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det))


def _xyz(xy):
    x, y = xy
    return (x / y, 1.0, (1 - x - y) / y)


def colorants(primaries):
    """The D50-adapted XYZ of the red, green and blue colorants (the rXYZ, gXYZ, bXYZ tags)."""
    r, g, b, w = primaries
    cols = [_xyz(r), _xyz(g), _xyz(b)]
    m = tuple(tuple(cols[j][i] for j in range(3)) for i in range(3))
    s = _apply(_inv(m), _xyz(w))
    rgb_to_xyz = tuple(tuple(m[i][j] * s[j] for j in range(3)) for i in range(3))
    src, dst = _apply(BRADFORD, _xyz(w)), _apply(BRADFORD, D50)
    scale = ((dst[0] / src[0], 0, 0), (0, dst[1] / src[1], 0), (0, 0, dst[2] / src[2]))
    adapt = _mul(_inv(BRADFORD), _mul(scale, BRADFORD))
    to_d50 = _mul(adapt, rgb_to_xyz)
    return [tuple(to_d50[i][j] for i in range(3)) for j in range(3)]


def s15(v):
    return struct.pack(">i", round(v * 65536))


def xyz_tag(v):
    return b"XYZ " + b"\0" * 4 + b"".join(s15(c) for c in v)


def mluc(text):
    data = text.encode("utf-16-be")
    return b"mluc" + b"\0" * 4 + struct.pack(">II", 1, 12) + b"enUS" + struct.pack(">II", len(data), 28) + data


def desc_v2(text):
    ascii_ = text.encode() + b"\0"
    return (b"desc" + b"\0" * 4 + struct.pack(">I", len(ascii_)) + ascii_ + struct.pack(">II", 0, 0) +
            struct.pack(">HB", 0, 0) + b"\0" * 67)


def text_v2(text):
    return b"text" + b"\0" * 4 + text.encode() + b"\0"


def srgb_curve():
    """parametricCurveType 3 with sRGB's constants (v4)."""
    g, a, b, c, d = 2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045
    return b"para" + b"\0" * 4 + struct.pack(">HH", 3, 0) + b"".join(s15(v) for v in (g, a, b, c, d))


def gamma_curve(gamma):
    """curveType with one entry: a pure power, u8Fixed8 (v2)."""
    return b"curv" + b"\0" * 4 + struct.pack(">IH", 1, round(gamma * 256)) + b"\0\0"


def profile(primaries=DISPLAY_P3, version=4, device_class=b"mntr", colour_space=b"RGB ", tags=None):
    """An RGB matrix/shaper profile; `tags` (signature -> bytes) replaces or adds tags after the defaults."""
    r, g, b = colorants(primaries)
    if version >= 4:
        curve = srgb_curve()
        text = {b"desc": mluc("kiln test profile"), b"cprt": mluc("No copyright, use freely")}
    else:
        curve = gamma_curve(2.2)
        text = {b"desc": desc_v2("kiln test profile"), b"cprt": text_v2("No copyright, use freely")}
    all_tags = dict(text)
    all_tags.update({b"wtpt": xyz_tag(D50), b"rXYZ": xyz_tag(r), b"gXYZ": xyz_tag(g), b"bXYZ": xyz_tag(b),
                     b"rTRC": curve, b"gTRC": curve, b"bTRC": curve})
    all_tags.update(tags or {})
    table_size = 4 + 12 * len(all_tags)
    offset = 128 + table_size
    entries, data = b"", b""
    for sig, body in all_tags.items():
        entries += sig + struct.pack(">II", offset + len(data), len(body))
        data += body + b"\0" * (-len(body) % 4)
    size = 128 + table_size + len(data)
    version_field = {4: 0x04300000, 2: 0x02100000}.get(version, version << 24)
    header = (struct.pack(">I", size) + b"\0" * 4 + struct.pack(">I", version_field) + device_class + colour_space +
              b"XYZ " + struct.pack(">6H", 2026, 11, 28, 12, 0, 0) + b"acsp" + b"\0" * 4 + b"\0" * 4 +
              b"\0" * 8 + b"\0" * 8 + struct.pack(">I", 0) + b"".join(s15(c) for c in D50) + b"\0" * 4 +
              b"\0" * 16 + b"\0" * 28)
    assert len(header) == 128
    return header + struct.pack(">I", len(all_tags)) + entries + data
