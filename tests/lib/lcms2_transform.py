"""lcms2's own RGB → RGB transform through ctypes (liblcms2.so.2, which kiln links), as an outside reference for what
kiln draws onto an output described by an ICC profile: sRGB (lcms2's built-in profile) to the profile's device
values, relative colorimetric, in doubles so that the rounding to 8 bits is the test's; and the legs of that transform
through the PCS (sRGB → XYZ, XYZ → the profile), unclipped, for references that blend light in between."""
import ctypes
import ctypes.util

TYPE_RGB_DBL = (1 << 22) | (4 << 16) | (3 << 3)  # FLOAT_SH(1) | COLORSPACE_SH(PT_RGB) | CHANNELS_SH(3) | BYTES_SH(0)
TYPE_XYZ_DBL = (1 << 22) | (9 << 16) | (3 << 3)  # FLOAT_SH(1) | COLORSPACE_SH(PT_XYZ) | CHANNELS_SH(3) | BYTES_SH(0)
INTENT_RELATIVE_COLORIMETRIC = 1
FLAGS_NOOPTIMIZE = 0x0100


def _library():
    lib = ctypes.CDLL(ctypes.util.find_library("lcms2") or "liblcms2.so.2")
    lib.cmsOpenProfileFromMem.restype = ctypes.c_void_p
    lib.cmsOpenProfileFromMem.argtypes = [ctypes.c_char_p, ctypes.c_uint32]
    lib.cmsCreate_sRGBProfile.restype = ctypes.c_void_p
    lib.cmsCreateXYZProfile.restype = ctypes.c_void_p
    lib.cmsCreateTransform.restype = ctypes.c_void_p
    lib.cmsCreateTransform.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p, ctypes.c_uint32,
                                       ctypes.c_uint32, ctypes.c_uint32]
    lib.cmsDoTransform.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint32]
    lib.cmsDeleteTransform.argtypes = [ctypes.c_void_p]
    lib.cmsCloseProfile.argtypes = [ctypes.c_void_p]
    return lib


def srgb_to_profile(profile_bytes, pixels):
    """Each 8-bit sRGB (r, g, b) in `pixels` as the profile's device values, clipped to 0..1 and rounded to 8 bits."""
    lib = _library()
    source = lib.cmsCreate_sRGBProfile()
    target = lib.cmsOpenProfileFromMem(profile_bytes, len(profile_bytes))
    if not source or not target:
        raise RuntimeError("lcms2 cannot open the profiles")
    transform = lib.cmsCreateTransform(source, TYPE_RGB_DBL, target, TYPE_RGB_DBL, INTENT_RELATIVE_COLORIMETRIC,
                                       FLAGS_NOOPTIMIZE)
    if not transform:
        raise RuntimeError("lcms2 cannot make the transform")
    try:
        values = [c / 255 for pixel in pixels for c in pixel]
        src = (ctypes.c_double * len(values))(*values)
        dst = (ctypes.c_double * len(values))()
        lib.cmsDoTransform(transform, src, dst, len(pixels))
        out = [round(min(1.0, max(0.0, v)) * 255) for v in dst]
        return [tuple(out[i:i + 3]) for i in range(0, len(out), 3)]
    finally:
        lib.cmsDeleteTransform(transform)
        lib.cmsCloseProfile(source)
        lib.cmsCloseProfile(target)


def _transform(source, source_type, target, target_type, values):
    """`values` (a flat list of doubles, three a pixel) through lcms2 from `source` to `target` (profile bytes, or
    "srgb" / "xyz" for lcms2's built-in ones), relative colorimetric, unoptimised, unclipped."""
    lib = _library()

    def open_profile(which):
        if which == "srgb":
            return lib.cmsCreate_sRGBProfile()
        if which == "xyz":
            return lib.cmsCreateXYZProfile()
        return lib.cmsOpenProfileFromMem(which, len(which))
    src, dst = open_profile(source), open_profile(target)
    if not src or not dst:
        raise RuntimeError("lcms2 cannot open the profiles")
    transform = lib.cmsCreateTransform(src, source_type, dst, target_type, INTENT_RELATIVE_COLORIMETRIC,
                                       FLAGS_NOOPTIMIZE)
    try:
        if not transform:
            raise RuntimeError("lcms2 cannot make the transform")
        n = len(values) // 3
        out = (ctypes.c_double * len(values))()
        lib.cmsDoTransform(transform, (ctypes.c_double * len(values))(*values), out, n)
        return [tuple(out[i:i + 3]) for i in range(0, len(values), 3)]
    finally:
        if transform:
            lib.cmsDeleteTransform(transform)
        lib.cmsCloseProfile(src)
        lib.cmsCloseProfile(dst)


def srgb_to_xyz(colours):
    """Each sRGB colour (0..1 doubles) as lcms2's XYZ (D50 PCS, white Y = 1)."""
    return _transform("srgb", TYPE_RGB_DBL, "xyz", TYPE_XYZ_DBL, [c for colour in colours for c in colour])


def xyz_to_profile(profile_bytes, colours):
    """Each XYZ (D50 PCS) colour as the profile's device values (0..1 doubles, unclipped)."""
    return _transform("xyz", TYPE_XYZ_DBL, profile_bytes, TYPE_RGB_DBL, [c for colour in colours for c in colour])


def srgb_to_profile_values(profile_bytes, colours):
    """Each sRGB colour (0..1 doubles) as the profile's device values (0..1 doubles, unclipped)."""
    return _transform("srgb", TYPE_RGB_DBL, profile_bytes, TYPE_RGB_DBL, [c for colour in colours for c in colour])
