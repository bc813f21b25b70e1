// read_icc_profile: lcms2 (its own context per call, so no global error handler and no shared state) opens the
// profile from memory, checks its header, and samples an RGB → XYZ (D50 PCS) relative colorimetric transform over
// a cube that Bradford then adapts to D65; for an output's profile also the transform back, XYZ → device RGB.
#include "compositor/protocol_kit/icc_profile.hpp"

#include "renderer/colour/primaries.hpp"

#include <lcms2.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace kiln::compositor {
namespace {

// lcms2's last complaint for this call, kept for `why` instead of being printed.
struct Complaint {
    std::string text;
};

void log_to_complaint(cmsContext context, cmsUInt32Number, const char* text) noexcept
{
    if (auto* complaint = static_cast<Complaint*>(cmsGetContextUserData(context)); complaint && text)
        complaint->text = text;
}

// RAII over lcms2's handles.
struct Context {
    cmsContext handle;
    explicit Context(Complaint* complaint) : handle(cmsCreateContext(nullptr, complaint))
    {
        if (handle)
            cmsSetLogErrorHandlerTHR(handle, &log_to_complaint);
    }
    ~Context()
    {
        if (handle)
            cmsDeleteContext(handle);
    }
};
struct Profile {
    cmsHPROFILE handle;
    ~Profile()
    {
        if (handle)
            cmsCloseProfile(handle);
    }
};
struct Transform {
    cmsHTRANSFORM handle;
    ~Transform()
    {
        if (handle)
            cmsDeleteTransform(handle);
    }
};

bool fail(std::string& why, std::string text, const Complaint& complaint)
{
    why = std::move(text);
    if (!complaint.text.empty())
        why += " (lcms2: " + complaint.text + ")";
    return false;
}

renderer::Chromaticity xy_of(const float* xyz)
{
    const double sum = double(xyz[0]) + xyz[1] + xyz[2];
    return sum > 0 ? renderer::Chromaticity{xyz[0] / sum, xyz[1] / sum} : renderer::Chromaticity{};
}

}  // namespace

bool read_icc_profile(std::span<const uint8_t> bytes, IccProfile& profile, std::string& why, int cube_size)
{
    Complaint complaint;
    // The header alone is 128 bytes; lcms2 checks the rest (tag table within the data, tag types).
    if (bytes.size() < 128)
        return fail(why, "an ICC profile is at least its 128-byte header", complaint);
    // lcms2 reads tags lazily and takes a profile cut short inside a tag's padding; the header says how long it is.
    const uint32_t declared = uint32_t(bytes[0]) << 24 | uint32_t(bytes[1]) << 16 | uint32_t(bytes[2]) << 8 | bytes[3];
    if (declared > bytes.size())
        return fail(why, "the profile is cut short (" + std::to_string(bytes.size()) + " of the " +
                             std::to_string(declared) + " bytes its header gives)", complaint);
    Context context(&complaint);
    if (!context.handle)
        return fail(why, "lcms2 could not make a context", complaint);
    Profile icc{cmsOpenProfileFromMemTHR(context.handle, bytes.data(), static_cast<cmsUInt32Number>(bytes.size()))};
    if (!icc.handle)
        return fail(why, "not a readable ICC profile", complaint);
    const cmsUInt32Number major = cmsGetEncodedICCversion(icc.handle) >> 24;
    if (major != 2 && major != 4)
        return fail(why, "ICC version " + std::to_string(major) + " (2 or 4 are accepted)", complaint);
    const cmsProfileClassSignature cls = cmsGetDeviceClass(icc.handle);
    if (cls != cmsSigDisplayClass && cls != cmsSigColorSpaceClass)
        return fail(why, "not a Display or ColorSpace profile", complaint);
    if (cmsGetColorSpace(icc.handle) != cmsSigRgbData)
        return fail(why, "not an RGB profile", complaint);
    Profile xyz{cmsCreateXYZProfileTHR(context.handle)};
    if (!xyz.handle)
        return fail(why, "lcms2 could not make an XYZ profile", complaint);
    // No optimisation and no cache: the cube is sampled once, and lcms2's optimiser may approximate curves.
    Transform transform{cmsCreateTransformTHR(context.handle, icc.handle, TYPE_RGB_FLT, xyz.handle, TYPE_XYZ_FLT,
                                              INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_NOOPTIMIZE | cmsFLAGS_NOCACHE)};
    if (!transform.handle)
        return fail(why, "no RGB to XYZ transform in this profile", complaint);

    const auto n = static_cast<size_t>(cube_size);
    std::vector<float> rgb(n * n * n * 3);
    for (size_t b = 0; b < n; ++b)
        for (size_t g = 0; g < n; ++g)
            for (size_t r = 0; r < n; ++r) {
                float* at = &rgb[((b * n + g) * n + r) * 3];
                at[0] = float(r) / float(n - 1);
                at[1] = float(g) / float(n - 1);
                at[2] = float(b) / float(n - 1);
            }
    auto table = std::make_shared<renderer::IccTable>();
    table->size = cube_size;
    table->xyz.resize(rgb.size());
    cmsDoTransform(transform.handle, rgb.data(), table->xyz.data(), static_cast<cmsUInt32Number>(n * n * n));

    // The PCS is D50; the renderer works in XYZ with D65 white at Y = 1.
    const renderer::ColourMatrix adapt = renderer::bradford_adaptation(renderer::white::d50, renderer::white::d65);
    for (size_t i = 0; i < table->xyz.size(); i += 3) {
        const std::array<double, 3> d65 =
            renderer::apply_matrix(adapt, {table->xyz[i], table->xyz[i + 1], table->xyz[i + 2]});
        for (int c = 0; c < 3; ++c) {
            if (!std::isfinite(d65[c]) || std::fabs(d65[c]) > 1e3)
                return fail(why, "the profile's transform gives values that are not finite", complaint);
            table->xyz[i + c] = static_cast<float>(d65[c]);
        }
    }
    const float* white = &table->xyz[(n * n * n - 1) * 3];
    if (!(white[1] > 0.5f && white[1] < 2.0f))
        return fail(why, "the profile's white does not map near Y = 1", complaint);

    profile.primaries = {xy_of(&table->xyz[(n - 1) * 3]), xy_of(&table->xyz[((n - 1) * n) * 3]),
                         xy_of(&table->xyz[((n - 1) * n * n) * 3]), renderer::white::d65};
    profile.table = std::move(table);
    return true;
}

bool read_icc_output_profile(std::span<const uint8_t> bytes, IccProfile& profile,
                             std::shared_ptr<const renderer::IccTable>& output_table, std::string& why, int cube_size)
{
    IccProfile forward;
    if (!read_icc_profile(bytes, forward, why, cube_size))
        return false;
    Complaint complaint;
    Context context(&complaint);
    if (!context.handle)
        return fail(why, "lcms2 could not make a context", complaint);
    Profile icc{cmsOpenProfileFromMemTHR(context.handle, bytes.data(), static_cast<cmsUInt32Number>(bytes.size()))};
    Profile xyz{cmsCreateXYZProfileTHR(context.handle)};
    if (!icc.handle || !xyz.handle)
        return fail(why, "not a readable ICC profile", complaint);
    Transform transform{cmsCreateTransformTHR(context.handle, xyz.handle, TYPE_XYZ_FLT, icc.handle, TYPE_RGB_FLT,
                                              INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_NOOPTIMIZE | cmsFLAGS_NOCACHE)};
    if (!transform.handle)
        return fail(why, "no XYZ to RGB transform in this profile (an output needs one)", complaint);

    // Linear light in the profile's primaries (D65 white at Y = 1) → XYZ D65 → Bradford to the D50 PCS.
    const auto to_xyz = renderer::rgb_to_xyz(forward.primaries);
    if (!to_xyz)
        return fail(why, "the profile's primaries span no volume", complaint);
    const renderer::ColourMatrix to_pcs =
        renderer::multiply(renderer::bradford_adaptation(renderer::white::d65, renderer::white::d50), *to_xyz);
    const auto n = static_cast<size_t>(cube_size);
    std::vector<float> pcs(n * n * n * 3);
    for (size_t b = 0; b < n; ++b)
        for (size_t g = 0; g < n; ++g)
            for (size_t r = 0; r < n; ++r) {
                // The index is linear light raised to 1/2.4 (IccTable), so dark values get their share of entries.
                const auto linear = [&](size_t i) { return std::pow(double(i) / double(n - 1), 2.4); };
                const std::array<double, 3> at = renderer::apply_matrix(to_pcs, {linear(r), linear(g), linear(b)});
                float* out = &pcs[((b * n + g) * n + r) * 3];
                for (int c = 0; c < 3; ++c)
                    out[c] = static_cast<float>(at[c]);
            }
    auto table = std::make_shared<renderer::IccTable>();
    table->size = cube_size;
    table->xyz.resize(pcs.size());
    cmsDoTransform(transform.handle, pcs.data(), table->xyz.data(), static_cast<cmsUInt32Number>(n * n * n));
    for (float& v : table->xyz) {
        if (!std::isfinite(v))
            return fail(why, "the profile's transform back to the device gives values that are not finite", complaint);
        v = std::clamp(v, 0.0f, 1.0f);  // a LUT profile may overshoot; the device takes 0..1
    }
    profile = std::move(forward);
    output_table = std::move(table);
    return true;
}

}  // namespace kiln::compositor
