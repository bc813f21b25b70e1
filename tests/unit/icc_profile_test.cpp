// read_icc_profile against numbers from the standards: a Display P3 matrix/shaper profile (made by lcms2's own
// builder, not kiln's reader) samples to a table whose red corner is P3's red (SMPTE EG 432-1), whose white is D65
// at Y = 1, and whose mid grey is the sRGB curve's 0.2140 (IEC 61966-2-1); profiles color-management-v1 refuses
// are refused with a reason.
#include "compositor/protocol_kit/icc_profile.hpp"

#include <catch2/catch_test_macros.hpp>

#include <lcms2.h>

#include <cmath>
#include <vector>

using kiln::compositor::IccProfile;
using kiln::compositor::read_icc_profile;

namespace {

std::vector<uint8_t> saved(cmsHPROFILE profile)
{
    cmsUInt32Number size = 0;
    REQUIRE(cmsSaveProfileToMem(profile, nullptr, &size));
    std::vector<uint8_t> bytes(size);
    REQUIRE(cmsSaveProfileToMem(profile, bytes.data(), &size));
    cmsCloseProfile(profile);
    return bytes;
}

std::vector<uint8_t> display_p3(cmsProfileClassSignature cls = cmsSigDisplayClass)
{
    const cmsCIExyY d65{0.3127, 0.3290, 1.0};
    const cmsCIExyYTRIPLE p3{{0.680, 0.320, 1.0}, {0.265, 0.690, 1.0}, {0.150, 0.060, 1.0}};
    const double srgb[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
    cmsToneCurve* curve = cmsBuildParametricToneCurve(nullptr, 4, srgb);
    cmsToneCurve* curves[3] = {curve, curve, curve};
    cmsHPROFILE profile = cmsCreateRGBProfile(&d65, &p3, curves);
    cmsFreeToneCurve(curve);
    cmsSetDeviceClass(profile, cls);
    return saved(profile);
}

const float* entry(const IccProfile& p, int r, int g, int b)
{
    const int n = p.table->size;
    return &p.table->xyz[static_cast<size_t>(((b * n + g) * n + r) * 3)];
}

}  // namespace

TEST_CASE("a Display P3 profile samples to P3 primaries, a D65 white at Y = 1 and the sRGB curve")
{
    IccProfile profile;
    std::string why;
    REQUIRE(read_icc_profile(display_p3(), profile, why));
    const int last = profile.table->size - 1;
    CHECK(profile.table->size == 33);
    CHECK(std::abs(profile.primaries.red.x - 0.680) < 1e-3);
    CHECK(std::abs(profile.primaries.red.y - 0.320) < 1e-3);
    CHECK(std::abs(profile.primaries.green.x - 0.265) < 1e-3);
    CHECK(std::abs(profile.primaries.blue.y - 0.060) < 1e-3);
    const float* white = entry(profile, last, last, last);
    INFO("white " << white[0] << " " << white[1] << " " << white[2]);
    CHECK(std::abs(white[0] - 0.9505) < 2e-3);  // D65 at Y = 1: x / y, 1, (1 - x - y) / y
    CHECK(std::abs(white[1] - 1.0) < 1e-3);
    CHECK(std::abs(white[2] - 1.0891) < 2e-3);
    const float* grey = entry(profile, 16, 16, 16);  // encoded 0.5
    CHECK(std::abs(grey[1] - 0.2140) < 1e-3);
    const float* black = entry(profile, 0, 0, 0);
    CHECK(std::abs(black[1]) < 1e-4);
}

TEST_CASE("a ColorSpace profile is taken, other classes and colour spaces are refused with a reason")
{
    IccProfile profile;
    std::string why;
    CHECK(read_icc_profile(display_p3(cmsSigColorSpaceClass), profile, why));
    CHECK_FALSE(read_icc_profile(display_p3(cmsSigOutputClass), profile, why));
    CHECK(why.find("Display or ColorSpace") != std::string::npos);
    CHECK_FALSE(read_icc_profile(saved(cmsCreateLab4Profile(nullptr)), profile, why));
    CHECK_FALSE(read_icc_profile(saved(cmsCreateGrayProfile(cmsD50_xyY(), nullptr)), profile, why));
}

TEST_CASE("bytes that are not a whole profile are refused, never read past")
{
    IccProfile profile;
    std::string why;
    const std::vector<uint8_t> good = display_p3();
    for (size_t cut : {size_t(0), size_t(100), size_t(128), good.size() / 2, good.size() - 1}) {
        INFO("cut at " << cut);
        CHECK_FALSE(read_icc_profile(std::span(good.data(), cut), profile, why));
        CHECK_FALSE(why.empty());
    }
    std::vector<uint8_t> garbage(4096, 0xa5);
    CHECK_FALSE(read_icc_profile(garbage, profile, why));
}
