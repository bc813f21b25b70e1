// Colour math against published numbers: the primaries' matrices (IEC 61966-2-1, ITU-R BT.2087, Adobe RGB (1998)),
// Bradford adaptation (ICC.1), the transfer functions' defining points (IEC 61966-2-1, SMPTE ST 2084, ARIB STD-B67)
// and the shape of the BT.2390 EETF and BT.2100 HLG OOTF.
#include "renderer/colour/image_description.hpp"
#include "renderer/colour/primaries.hpp"
#include "renderer/colour/tone_curve.hpp"
#include "renderer/colour/transfer.hpp"

#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>

#include <cmath>

using namespace kiln::renderer;

namespace {

void require_matrix(const ColourMatrix& got, const ColourMatrix& want, double tolerance)
{
    for (int i = 0; i < 9; ++i) {
        INFO("element " << i << ": got " << got[i] << ", want " << want[i]);
        CHECK(std::abs(got[i] - want[i]) <= tolerance);
    }
}

}  // namespace

TEST_CASE("sRGB and Adobe RGB primaries give their standards' RGB to XYZ matrices")
{
    const auto srgb = rgb_to_xyz(named_primaries(NamedPrimaries::srgb));
    REQUIRE(srgb);
    // IEC 61966-2-1 (to four places).
    require_matrix(*srgb, {0.4124, 0.3576, 0.1805, 0.2126, 0.7152, 0.0722, 0.0193, 0.1192, 0.9505}, 1.5e-4);
    const auto adobe = rgb_to_xyz(named_primaries(NamedPrimaries::adobe_rgb));
    REQUIRE(adobe);
    // Adobe RGB (1998) Color Image Encoding, section 4.3.4.1 (its D65 is tabulated XYZ, ours comes from xy: 3e-4).
    require_matrix(*adobe, {0.5767, 0.1856, 0.1882, 0.2973, 0.6274, 0.0753, 0.0270, 0.0707, 0.9911}, 3e-4);
}

TEST_CASE("BT.709 to BT.2020 is ITU-R BT.2087's matrix, and back is its inverse")
{
    const auto to_2020 = rgb_to_rgb(named_primaries(NamedPrimaries::srgb), named_primaries(NamedPrimaries::bt2020));
    REQUIRE(to_2020);
    require_matrix(*to_2020, {0.6274, 0.3293, 0.0433, 0.0691, 0.9195, 0.0114, 0.0164, 0.0880, 0.8956}, 1.5e-4);
    const auto back = rgb_to_rgb(named_primaries(NamedPrimaries::bt2020), named_primaries(NamedPrimaries::srgb));
    REQUIRE(back);
    require_matrix(multiply(*back, *to_2020), {1, 0, 0, 0, 1, 0, 0, 0, 1}, 1e-12);
}

TEST_CASE("Display P3 to sRGB: white stays white, pure P3 red is outside sRGB")
{
    const auto m = rgb_to_rgb(named_primaries(NamedPrimaries::display_p3), named_primaries(NamedPrimaries::srgb));
    REQUIRE(m);
    // The widely published matrix (e.g. WebKit's and Chromium's colour code), to three places.
    require_matrix(*m, {1.2249, -0.2247, 0.0, -0.0420, 1.0419, 0.0, -0.0197, -0.0786, 1.0979}, 1e-3);
    const auto white_out = apply_matrix(*m, {1, 1, 1});
    for (double c : white_out)
        CHECK(c == Catch::Approx(1.0).margin(1e-12));
    const auto red = apply_matrix(*m, {1, 0, 0});
    CHECK(red[0] > 1.0);
    CHECK(red[1] < 0.0);
}

TEST_CASE("Bradford adaptation D65 to D50 is ICC's, and different whites stay white through rgb_to_rgb")
{
    // Lindbloom's D65 → D50 Bradford matrix (his whites are tabulated XYZ, ours come from xy: three places).
    require_matrix(bradford_adaptation(white::d65, white::d50),
                   {1.0478, 0.0229, -0.0501, 0.0295, 0.9905, -0.0170, -0.0092, 0.0150, 0.7521}, 1.5e-3);
    const auto d50_white = apply_matrix(bradford_adaptation(white::d65, white::d50), white_xyz(white::d65));
    const auto want = white_xyz(white::d50);
    for (int i = 0; i < 3; ++i)
        CHECK(d50_white[i] == Catch::Approx(want[i]).margin(1e-12));
    const auto dci = rgb_to_rgb(named_primaries(NamedPrimaries::dci_p3), named_primaries(NamedPrimaries::srgb));
    REQUIRE(dci);
    for (double c : apply_matrix(*dci, {1, 1, 1}))
        CHECK(c == Catch::Approx(1.0).margin(1e-12));
}

TEST_CASE("primaries that span no volume are refused, not turned into NaN")
{
    Primaries flat = named_primaries(NamedPrimaries::srgb);
    flat.blue = {0.47, 0.465};  // on the line from red to green
    CHECK_FALSE(rgb_to_xyz(flat));
    Primaries zero_y = named_primaries(NamedPrimaries::srgb);
    zero_y.white = {0.3, 0.0};
    CHECK_FALSE(rgb_to_xyz(zero_y));
    CHECK_FALSE(rgb_to_rgb(flat, named_primaries(NamedPrimaries::srgb)));
}

TEST_CASE("transfer functions meet their standards' defining points")
{
    using TF = TransferFunction;
    // IEC 61966-2-1: the linear segment meets the power curve at 0.04045 / 0.0031308.
    CHECK(decode(TF::srgb, 0.04045) == Catch::Approx(0.0031308).margin(1e-7));
    CHECK(decode(TF::srgb, 0.5) == Catch::Approx(0.214041).margin(1e-6));
    CHECK(encode(TF::srgb, 0.18) == Catch::Approx(0.461356).margin(1e-6));
    // SMPTE ST 2084: 100 cd/m² is 0.508078, 203 cd/m² (BT.2408 reference white) 0.580689, 10,000 is 1.
    CHECK(encode(TF::st2084_pq, 100.0 / 10000) == Catch::Approx(0.508078).margin(1e-6));
    CHECK(encode(TF::st2084_pq, 203.0 / 10000) == Catch::Approx(0.580689).margin(1e-6));
    CHECK(encode(TF::st2084_pq, 1.0) == Catch::Approx(1.0).margin(1e-12));
    CHECK(decode(TF::st2084_pq, 0.0) == Catch::Approx(0.0).margin(1e-12));
    // ARIB STD-B67: scene light 1/12 encodes to 0.5, full scene light to 1.
    CHECK(encode(TF::hlg, 1.0 / 12) == Catch::Approx(0.5).margin(1e-12));
    CHECK(encode(TF::hlg, 1.0) == Catch::Approx(1.0).margin(1e-5));
    CHECK(decode(TF::gamma22, 0.5) == Catch::Approx(std::pow(0.5, 2.2)).margin(1e-12));
    CHECK(decode(TF::bt1886, 0.5) == Catch::Approx(std::pow(0.5, 2.4)).margin(1e-12));
    CHECK(decode(TF::ext_linear, 1.75) == 1.75);
}

TEST_CASE("every transfer function round-trips, and extended sRGB keeps values beyond 0..1")
{
    using TF = TransferFunction;
    for (TF tf : {TF::srgb, TF::gamma22, TF::bt1886, TF::st2084_pq, TF::hlg, TF::ext_linear}) {
        INFO(transfer_name(tf));
        for (int i = 0; i <= 1000; ++i) {
            const double e = i / 1000.0;
            // ST 2084 encodes zero light as c1^m2 (7.3e-7), not 0: hence 1e-6.
            CHECK(encode(tf, decode(tf, e)) == Catch::Approx(e).margin(1e-6));
        }
    }
    CHECK(decode(TF::srgb, -0.5) == Catch::Approx(-decode(TF::srgb, 0.5)));
    CHECK(encode(TF::srgb, decode(TF::srgb, 1.25)) == Catch::Approx(1.25).margin(1e-12));
    CHECK_FALSE(is_hdr(TF::srgb));
    CHECK(is_hdr(TF::st2084_pq));
}

TEST_CASE("BT.2390 EETF: below the knee unchanged, the source peak lands on the target peak, never decreasing")
{
    const LuminanceRange source{0.0, 1000.0};
    const LuminanceRange target{0.0, 100.0};
    const double pq1000 = encode(TransferFunction::st2084_pq, 0.1);
    const double pq100 = encode(TransferFunction::st2084_pq, 0.01);
    CHECK(bt2390_eetf(pq1000, source, target) == Catch::Approx(pq100).margin(1e-12));
    // The knee in absolute PQ: 1.5 * max_lum - 0.5 of the source span.
    const double knee = (1.5 * pq100 / pq1000 - 0.5) * pq1000;
    CHECK(bt2390_eetf(knee * 0.9, source, target) == Catch::Approx(knee * 0.9).margin(1e-12));
    CHECK(bt2390_eetf(knee * 0.5, source, target) == Catch::Approx(knee * 0.5).margin(1e-12));
    double last = -1;
    for (int i = 0; i <= 1000; ++i) {
        const double out = bt2390_eetf(pq1000 * i / 1000.0, source, target);
        CHECK(out >= last - 1e-12);
        CHECK(out <= pq100 + 1e-12);
        last = out;
    }
    // A target as wide as the source changes nothing.
    CHECK(bt2390_eetf(0.3, source, {0.0, 4000.0}) == 0.3);
    // A raised target black lifts the black only.
    CHECK(bt2390_eetf(0.0, source, {0.1, 100.0}) > 0.0);
}

TEST_CASE("HLG OOTF: full white reaches the display's peak, system gamma 1.2 at 1,000 cd/m²")
{
    const auto white = hlg_ootf({1, 1, 1}, 1000.0);
    for (double c : white)
        CHECK(c == Catch::Approx(1000.0).margin(1e-9));
    const auto grey = hlg_ootf({0.5, 0.5, 0.5}, 1000.0);
    CHECK(grey[0] == Catch::Approx(1000.0 * std::pow(0.5, 1.2)).margin(1e-9));
    // A brighter display: gamma above 1.2, so mid grey sits relatively lower.
    const auto bright = hlg_ootf({0.5, 0.5, 0.5}, 2000.0);
    CHECK(bright[0] / 2000.0 < grey[0] / 1000.0);
    CHECK(hlg_ootf({0, 0, 0}, 1000.0)[0] == 0.0);
}

TEST_CASE("ImageDescription: only plain sRGB without a profile takes the unconverted path")
{
    ImageDescription srgb;
    CHECK(srgb.is_plain_srgb());
    ImageDescription p3;
    p3.primaries = named_primaries(NamedPrimaries::display_p3);
    CHECK_FALSE(p3.is_plain_srgb());
    ImageDescription gamma;
    gamma.transfer = TransferFunction::gamma22;
    CHECK_FALSE(gamma.is_plain_srgb());
    ImageDescription icc;
    icc.icc = std::make_shared<IccTable>();
    CHECK_FALSE(icc.is_plain_srgb());
}
