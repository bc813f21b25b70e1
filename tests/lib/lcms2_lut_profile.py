"""An ICC version 2 LUT-based RGB Display profile made by lcms2 through ctypes (no matrix/shaper tags): A2B0 and B2A0
as lut16Type (mft2) pipelines built from lcms2 stages and written with cmsWriteTag after cmsSetProfileVersion(2.1);
and a reader of a profile's tag table, so a test can check what kind of profile it holds."""
import ctypes
import ctypes.util
import struct

import icc_profiles


def _sig(text):
    return struct.unpack(">I", text.encode())[0]


# lcms2 keeps lut16 XYZ in its 16-bit PCS encoding: a pipeline value of 1.0 (0xffff) is X, Y or Z = 65535 / 32768.
XYZ_ENCODING = 65535 / 32768
_SAMPLER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_uint16), ctypes.POINTER(ctypes.c_uint16),
                            ctypes.c_void_p)


def _library():
    lib = ctypes.CDLL(ctypes.util.find_library("lcms2") or "liblcms2.so.2")
    p, u32, dbl = ctypes.c_void_p, ctypes.c_uint32, ctypes.c_double
    for name, restype, argtypes in [
            ("cmsCreateProfilePlaceholder", p, [p]),
            ("cmsSetProfileVersion", None, [p, dbl]),
            ("cmsSetDeviceClass", None, [p, u32]),
            ("cmsSetColorSpace", None, [p, u32]),
            ("cmsSetPCS", None, [p, u32]),
            ("cmsD50_XYZ", p, []),
            ("cmsWriteTag", ctypes.c_int, [p, u32, p]),
            ("cmsMLUalloc", p, [p, u32]),
            ("cmsMLUsetASCII", ctypes.c_int, [p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p]),
            ("cmsMLUfree", None, [p]),
            ("cmsPipelineAlloc", p, [p, u32, u32]),
            ("cmsPipelineInsertStage", ctypes.c_int, [p, ctypes.c_int, p]),
            ("cmsPipelineFree", None, [p]),
            ("cmsBuildGamma", p, [p, dbl]),
            ("cmsFreeToneCurve", None, [p]),
            ("cmsStageAllocToneCurves", p, [p, u32, ctypes.POINTER(p)]),
            ("cmsStageAllocMatrix", p, [p, u32, u32, ctypes.POINTER(dbl), ctypes.POINTER(dbl)]),
            ("cmsStageAllocCLut16bit", p, [p, u32, u32, u32, ctypes.POINTER(ctypes.c_uint16)]),
            ("cmsStageSampleCLut16bit", ctypes.c_int, [p, _SAMPLER, p, u32]),
            ("cmsSaveProfileToMem", ctypes.c_int, [p, p, ctypes.POINTER(u32)]),
            ("cmsCloseProfile", ctypes.c_int, [p])]:
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    return lib


def _curves(lib, gamma):
    curve = lib.cmsBuildGamma(None, gamma)
    stage = lib.cmsStageAllocToneCurves(None, 3, (ctypes.c_void_p * 3)(curve, curve, curve))
    lib.cmsFreeToneCurve(curve)
    return stage


def _clut(lib, points, function):
    """A points³ CLUT (3 in, 3 out) sampled from `function` (0..1 inputs to 0..1 outputs, clipped)."""
    stage = lib.cmsStageAllocCLut16bit(None, points, 3, 3, None)

    def sample(inputs, outputs, _cargo):
        values = function([inputs[i] / 65535 for i in range(3)])
        for i in range(3):
            outputs[i] = round(min(1.0, max(0.0, values[i])) * 65535)
        return 1
    sampler = _SAMPLER(sample)  # kept alive for the call
    if not lib.cmsStageSampleCLut16bit(stage, sampler, None, 0):
        raise RuntimeError("lcms2 cannot sample the CLUT")
    return stage


def lut_profile(primaries, gamma):
    """A v2 Display RGB profile, PCS XYZ, whose A2B0 is [curves: `gamma`] [CLUT 9³: the colorants' XYZ, D50] [identity]
    and whose B2A0 is [matrix: XYZ → linear RGB] [curves: 1 / `gamma`] [CLUT 9³: identity] [identity], both lut16Type:
    the device of `primaries` (chromaticities and white, adapted to D50 with Bradford as ICC asks) with a pure
    curve, expressed only through LUTs. Returns the profile's bytes."""
    lib = _library()
    to_xyz = list(zip(*icc_profiles.colorants(primaries)))  # rows X, Y, Z over columns R, G, B (D50)
    from_xyz = icc_profiles._inv(to_xyz)
    profile = lib.cmsCreateProfilePlaceholder(None)
    if not profile:
        raise RuntimeError("lcms2 cannot make a profile")
    try:
        lib.cmsSetProfileVersion(profile, 2.1)
        lib.cmsSetDeviceClass(profile, _sig("mntr"))
        lib.cmsSetColorSpace(profile, _sig("RGB "))
        lib.cmsSetPCS(profile, _sig("XYZ "))
        description = lib.cmsMLUalloc(None, 1)
        lib.cmsMLUsetASCII(description, b"en", b"US", b"kiln test: v2 LUT profile")
        lib.cmsWriteTag(profile, _sig("desc"), description)
        lib.cmsMLUfree(description)
        lib.cmsWriteTag(profile, _sig("wtpt"), lib.cmsD50_XYZ())

        a2b = lib.cmsPipelineAlloc(None, 3, 3)
        lib.cmsPipelineInsertStage(a2b, 1, _curves(lib, gamma))  # cmsAT_END
        lib.cmsPipelineInsertStage(a2b, 1, _clut(lib, 9, lambda rgb: [
            sum(to_xyz[r][k] * rgb[k] for k in range(3)) / XYZ_ENCODING for r in range(3)]))
        lib.cmsPipelineInsertStage(a2b, 1, _curves(lib, 1.0))

        b2a = lib.cmsPipelineAlloc(None, 3, 3)
        matrix = [from_xyz[r][k] * XYZ_ENCODING for r in range(3) for k in range(3)]
        lib.cmsPipelineInsertStage(b2a, 1, lib.cmsStageAllocMatrix(None, 3, 3, (ctypes.c_double * 9)(*matrix), None))
        lib.cmsPipelineInsertStage(b2a, 1, _curves(lib, 1.0 / gamma))
        lib.cmsPipelineInsertStage(b2a, 1, _clut(lib, 9, lambda rgb: rgb))
        lib.cmsPipelineInsertStage(b2a, 1, _curves(lib, 1.0))
        ok = lib.cmsWriteTag(profile, _sig("A2B0"), a2b) and lib.cmsWriteTag(profile, _sig("B2A0"), b2a)
        lib.cmsPipelineFree(a2b)
        lib.cmsPipelineFree(b2a)
        if not ok:
            raise RuntimeError("lcms2 cannot write the LUT tags")
        size = ctypes.c_uint32(0)
        if not lib.cmsSaveProfileToMem(profile, None, ctypes.byref(size)):
            raise RuntimeError("lcms2 cannot size the profile")
        data = ctypes.create_string_buffer(size.value)
        if not lib.cmsSaveProfileToMem(profile, data, ctypes.byref(size)):
            raise RuntimeError("lcms2 cannot save the profile")
        return data.raw[:size.value]
    finally:
        lib.cmsCloseProfile(profile)


def tags(profile):
    """The profile's tags as {signature: type signature}, read from its tag table (ICC.1 7.3)."""
    count = struct.unpack_from(">I", profile, 128)[0]
    out = {}
    for i in range(count):
        sig, offset, _size = struct.unpack_from(">4sII", profile, 132 + 12 * i)
        out[sig.decode("latin-1")] = profile[offset:offset + 4].decode("latin-1")
    return out
