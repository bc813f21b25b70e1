// The HDR_OUTPUT_METADATA blob byte by byte at the offsets linux/drm_mode.h's struct hdr_output_metadata gives
// (CTA-861-G Static Metadata Type 1), with the numbers HDR10 encoders write for BT.2020 and a D65 white
// (G(8500,39850) B(6550,2300) R(35400,14600) WP(15635,16450) in 0.00002 units), and the Colorspace chosen.
#include "compositor/backend/drm_hdr_metadata.hpp"

#include "renderer/colour/colour_pipeline.hpp"

#include <catch2/catch_test_macros.hpp>

using kiln::compositor::connector_colorspace;
using kiln::compositor::hdr_output_metadata;
using kiln::compositor::HdrOutputMetadata;
namespace renderer = kiln::renderer;

namespace {

// A little-endian u16 at `offset` (x86 and arm64 kernels take the struct in native order).
unsigned u16(const HdrOutputMetadata& b, size_t offset)
{
    return b[offset] | b[offset + 1] << 8;
}

}  // namespace

TEST_CASE("a bt2020-pq output's blob says ST 2084, BT.2020, D65 and its luminances")
{
    const auto blob = hdr_output_metadata(renderer::pq_output(203, 1000));
    REQUIRE(blob);
    const HdrOutputMetadata& b = *blob;
    CHECK((b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24) == 0);  // metadata_type: HDMI_STATIC_METADATA_TYPE1
    CHECK(b[4] == 2);                                           // EOTF: SMPTE ST 2084
    CHECK(b[5] == 0);                                           // Static_Metadata_Descriptor_ID: type 1
    CHECK(u16(b, 6) == 35400);                                  // red x
    CHECK(u16(b, 8) == 14600);                                  // red y
    CHECK(u16(b, 10) == 8500);                                  // green x
    CHECK(u16(b, 12) == 39850);                                 // green y
    CHECK(u16(b, 14) == 6550);                                  // blue x
    CHECK(u16(b, 16) == 2300);                                  // blue y
    CHECK(u16(b, 18) == 15635);                                 // white x
    CHECK(u16(b, 20) == 16450);                                 // white y
    CHECK(u16(b, 22) == 1000);                                  // max mastering luminance, 1 cd/m²
    CHECK(u16(b, 24) == 50);                                    // min, 0.0001 cd/m²: 0.005
    CHECK(u16(b, 26) == 0);                                     // MaxCLL unknown
    CHECK(u16(b, 28) == 0);                                     // MaxFALL unknown
    CHECK(connector_colorspace(renderer::pq_output(203, 1000)) == "BT2020_RGB");
}

TEST_CASE("a description's mastering display and light levels go in the blob")
{
    renderer::ImageDescription d = renderer::pq_output(203, 4000);
    d.mastering_primaries = renderer::named_primaries(renderer::NamedPrimaries::display_p3);
    d.mastering_luminance = renderer::LuminanceRange{0.0001, 1000};
    d.max_cll = 1200;
    d.max_fall = 400.4;
    const auto blob = hdr_output_metadata(d);
    REQUIRE(blob);
    const HdrOutputMetadata& b = *blob;
    // Display P3 (SMPTE EG 432-1): R 0.680/0.320, G 0.265/0.690, B 0.150/0.060.
    CHECK(u16(b, 6) == 34000);
    CHECK(u16(b, 8) == 16000);
    CHECK(u16(b, 10) == 13250);
    CHECK(u16(b, 12) == 34500);
    CHECK(u16(b, 14) == 7500);
    CHECK(u16(b, 16) == 3000);
    CHECK(u16(b, 22) == 1000);
    CHECK(u16(b, 24) == 1);
    CHECK(u16(b, 26) == 1200);
    CHECK(u16(b, 28) == 400);
}

TEST_CASE("an HLG output says so; SDR outputs get no blob and the default colorspace")
{
    const auto hlg = hdr_output_metadata(renderer::hlg_output(203, 1000));
    REQUIRE(hlg);
    CHECK((*hlg)[4] == 3);  // EOTF: BT.2100 HLG
    CHECK(connector_colorspace(renderer::hlg_output(203, 1000)) == "BT2020_RGB");
    CHECK_FALSE(hdr_output_metadata(renderer::srgb_output()));
    CHECK_FALSE(hdr_output_metadata(renderer::sdr_output(renderer::NamedPrimaries::display_p3,
                                                          renderer::TransferFunction::srgb)));
    CHECK(connector_colorspace(renderer::srgb_output()) == "Default");
}
