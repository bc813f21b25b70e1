// The bytes kiln puts in a DRM connector's HDR_OUTPUT_METADATA blob (struct hdr_output_metadata, CTA-861-G's HDR
// Static Metadata Type 1) and the Colorspace it asks for, worked out from an output's description; no DRM calls.
#pragma once

#include "renderer/colour/image_description.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace kiln::compositor {

// CTA-861-G's EOTF codes (table 44): what the sink is told the signal's curve is.
enum class HdrEotf : uint8_t { sdr = 0, hdr = 1, st2084_pq = 2, hlg = 3 };

// struct hdr_output_metadata as linux/drm_mode.h lays it out: a u32 metadata type (0: static metadata type 1), then
// the infoframe: u8 EOTF, u8 descriptor id (0), the red, green and blue primaries and the white point as u16 x, y in
// units of 0.00002, the mastering display's max luminance (u16, 1 cd/m²) and min luminance (u16, 0.0001 cd/m²),
// MaxCLL and MaxFALL (u16, 1 cd/m²; 0: unknown); native byte order, 32 bytes with the trailing padding.
inline constexpr size_t hdr_output_metadata_size = 32;
using HdrOutputMetadata = std::array<uint8_t, hdr_output_metadata_size>;

// The blob for an HDR output (a PQ or HLG description): its mastering display's primaries and luminances where it
// has them, else its own; nullopt for an SDR one, whose connector gets no blob.
std::optional<HdrOutputMetadata> hdr_output_metadata(const renderer::ImageDescription& description);

// The Colorspace property's enum name for the description: BT2020_RGB for BT.2020 primaries with a PQ or HLG curve
// (HDR10 and HLG over RGB), Default for the rest.
std::string_view connector_colorspace(const renderer::ImageDescription& description);

}  // namespace kiln::compositor
