"""lcms2's own RGB → RGB transform through ctypes (liblcms2.so.2, which kiln links), as an outside reference for what
kiln draws onto an output described by an ICC profile: sRGB (lcms2's built-in profile) to the profile's device
values, relative colorimetric, in doubles so that the rounding to 8 bits is the test's."""
import ctypes
import ctypes.util

TYPE_RGB_DBL = (1 << 22) | (4 << 16) | (3 << 3)  # FLOAT_SH(1) | COLORSPACE_SH(PT_RGB) | CHANNELS_SH(3) | BYTES_SH(0)
INTENT_RELATIVE_COLORIMETRIC = 1
FLAGS_NOOPTIMIZE = 0x0100


def _library():
    lib = ctypes.CDLL(ctypes.util.find_library("lcms2") or "liblcms2.so.2")
    lib.cmsOpenProfileFromMem.restype = ctypes.c_void_p
    lib.cmsOpenProfileFromMem.argtypes = [ctypes.c_char_p, ctypes.c_uint32]
    lib.cmsCreate_sRGBProfile.restype = ctypes.c_void_p
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
