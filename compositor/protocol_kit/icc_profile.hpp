// read_icc_profile: an ICC profile's bytes checked against what color-management-v1 accepts (version 2 or 4, an RGB
// Display or ColorSpace profile) and sampled with lcms2 into the renderer's IccTable; no Wayland in here, so unit
// tests and the fuzzer call it directly.
#pragma once

#include "renderer/colour/image_description.hpp"

#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace kiln::compositor {

struct IccProfile {
    std::shared_ptr<const renderer::IccTable> table;
    renderer::Primaries primaries;  // the xy of the table's red, green and blue corners, D65 white
};

// The cube's edge: 33 entries keep a LUT profile's curves within a code value at 8 bits.
inline constexpr int icc_cube_size = 33;

// The profile in `bytes`, or false with `why` (for wp_image_description_v1.failed's message) when it is not a
// version 2 or 4 RGB Display/ColorSpace profile lcms2 can transform to XYZ (relative colorimetric), or when its
// transform gives values that are not finite. Never throws, never aborts, whatever the bytes.
bool read_icc_profile(std::span<const uint8_t> bytes, IccProfile& profile, std::string& why,
                      int cube_size = icc_cube_size);

// An output's profile (kiln.ini color-profile=icc:PATH): what read_icc_profile accepts and gives, and also the way
// back, lcms2's relative colorimetric transform from XYZ (D50 PCS, after Bradford from D65) to the device's RGB,
// sampled into `output_table` (renderer::IccTable's output layout) over linear light in `profile.primaries`. False
// with `why` where read_icc_profile refuses the bytes or the profile has no transform back to the device.
bool read_icc_output_profile(std::span<const uint8_t> bytes, IccProfile& profile,
                             std::shared_ptr<const renderer::IccTable>& output_table, std::string& why,
                             int cube_size = icc_cube_size);

}  // namespace kiln::compositor
