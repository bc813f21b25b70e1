// Translucent surfaces blend in linear light where a frame is colour-managed: the readback equals a blend worked out
// here on doubles in linear light (IEC 61966-2-1's sRGB curve, SMPTE ST 2084, the primaries' matrices), within one
// 8-bit code value, and differs from the old gamma-space blend as that reference says; an all-sRGB frame makes no
// intermediate and blends as before.
#include "renderer/colour/colour_pipeline.hpp"
#include "renderer/colour/primaries.hpp"
#include "renderer/colour/transfer.hpp"
#include "renderer/formats.hpp"
#include "tests/gl/gl_fixture.hpp"

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

using namespace kiln::renderer;
using kiln::test::box_matrix;
using kiln::test::GlFixture;

namespace {

using Rgb = std::array<double, 3>;

// One translucent surface: its premultiplied RGBA bytes (ABGR8888 memory order) and what they mean.
struct Layer {
    std::array<uint8_t, 4> bytes;
    std::shared_ptr<const ImageDescription> description;  // null: sRGB, as a client without color-management
};

std::shared_ptr<const IccTable> shaper_table(NamedPrimaries primaries, double gamma, int size);
std::shared_ptr<const IccTable> shaper_output_table(double gamma, int size);

// The output as the reference sees it: primaries, curve, white and peak in cd/m²; or an ICC output, a matrix/shaper
// profile of `primaries` with a pure `icc_gamma` curve, sampled into the tables kiln reads from such a profile.
struct Output {
    NamedPrimaries primaries = NamedPrimaries::srgb;
    TransferFunction tf = TransferFunction::srgb;
    double white = 80;
    double peak = 80;
    double icc_gamma = 0;  // > 0: an ICC output
    ImageDescription description() const
    {
        if (tf == TransferFunction::st2084_pq)
            return pq_output(white, peak);
        if (tf == TransferFunction::hlg)
            return hlg_output(white, peak);
        ImageDescription d = sdr_output(primaries, tf);
        if (icc_gamma > 0) {
            d.icc = shaper_table(primaries, icc_gamma, 33);
            d.output_table = shaper_output_table(icc_gamma, 33);
        }
        return d;
    }
};

// IEC 61966-2-1, written out here rather than taken from renderer/colour.
double srgb_decode(double v)
{
    return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
}
double srgb_encode(double l)
{
    return l <= 0.0031308 ? l * 12.92 : 1.055 * std::pow(l, 1.0 / 2.4) - 0.055;
}

double content_decode(TransferFunction tf, double v)
{
    return tf == TransferFunction::srgb ? srgb_decode(v) : decode(tf, v);
}

// ITU-R BT.2100 table 5, written out: the HLG OETF of scene light 0..1.
double hlg_oetf(double e)
{
    const double a = 0.17883277, b = 1 - 4 * a, c = 0.5 - a * std::log(4 * a);
    return e <= 1.0 / 12.0 ? std::sqrt(3 * e) : a * std::log(12 * e - b) + c;
}

// Linear light relative to the output's white → the output's encoding, 0..1.
Rgb output_encode(const Output& out, const Rgb& linear)
{
    Rgb e{};
    if (out.tf == TransferFunction::hlg) {
        // BT.2100: display light relative to the nominal peak, clipped there; the inverse OOTF (Y_d from BT.2020's
        // weights, system gamma 1.2 + 0.42 log10(L_W / 1000)) gives scene light, the OETF the signal.
        const double gamma = 1.2 + 0.42 * std::log10(out.peak / 1000.0);
        Rgb fd{};
        for (int c = 0; c < 3; ++c)
            fd[c] = std::clamp(linear[c] * out.white / out.peak, 0.0, 1.0);
        const double yd = 0.2627 * fd[0] + 0.6780 * fd[1] + 0.0593 * fd[2];
        for (int c = 0; c < 3; ++c)
            e[c] = hlg_oetf(yd > 0 ? fd[c] * std::pow(yd, (1 - gamma) / gamma) : 0.0);
        return e;
    }
    for (int c = 0; c < 3; ++c) {
        if (out.tf == TransferFunction::st2084_pq) {
            e[c] = encode(TransferFunction::st2084_pq, std::clamp(linear[c] * out.white, 0.0, out.peak) / 10000.0);
            continue;
        }
        const double l = std::clamp(linear[c], 0.0, 1.0);
        // An ICC matrix/shaper output: its colorants are the primaries, its curve the inverse of the profile's.
        e[c] = out.icc_gamma > 0 ? std::pow(l, 1.0 / out.icc_gamma)
               : out.tf == TransferFunction::srgb ? srgb_encode(l) : encode(out.tf, l);
    }
    return e;
}

// A matrix/shaper profile's forward table (device RGB → XYZ, D65 at Y = 1) and its way back (linear light in its
// primaries raised to 1/2.4 → device RGB), laid out as kiln's ICC reader makes them (renderer::IccTable).
std::shared_ptr<const IccTable> shaper_table(NamedPrimaries primaries, double gamma, int size)
{
    auto table = std::make_shared<IccTable>();
    table->size = size;
    const ColourMatrix to_xyz = *rgb_to_xyz(named_primaries(primaries));
    for (int b = 0; b < size; ++b)
        for (int g = 0; g < size; ++g)
            for (int r = 0; r < size; ++r) {
                const auto curve = [&](int i) { return std::pow(i / (size - 1.0), gamma); };
                const Rgb xyz = apply_matrix(to_xyz, {curve(r), curve(g), curve(b)});
                for (double v : xyz)
                    table->xyz.push_back(static_cast<float>(v));
            }
    return table;
}
std::shared_ptr<const IccTable> shaper_output_table(double gamma, int size)
{
    auto table = std::make_shared<IccTable>();
    table->size = size;
    for (int b = 0; b < size; ++b)
        for (int g = 0; g < size; ++g)
            for (int r = 0; r < size; ++r)
                for (int i : {r, g, b})
                    table->xyz.push_back(static_cast<float>(std::pow(std::pow(i / (size - 1.0), 2.4), 1.0 / gamma)));
    return table;
}

// An ICC-like table: Adobe RGB (1998) primaries with a pure 2.2 curve, sampled on a size³ grid into XYZ (D65, Y=1).
std::shared_ptr<const IccTable> adobe_table(int size)
{
    auto table = std::make_shared<IccTable>();
    table->size = size;
    const ColourMatrix to_xyz = *rgb_to_xyz(named_primaries(NamedPrimaries::adobe_rgb));
    for (int b = 0; b < size; ++b)
        for (int g = 0; g < size; ++g)
            for (int r = 0; r < size; ++r) {
                const auto curve = [&](int i) { return std::pow(i / (size - 1.0), 2.2); };
                const Rgb xyz = apply_matrix(to_xyz, {curve(r), curve(g), curve(b)});
                table->xyz.insert(table->xyz.end(), {static_cast<float>(xyz[0]), static_cast<float>(xyz[1]),
                                                     static_cast<float>(xyz[2])});
            }
    return table;
}

// The table's XYZ at an encoded colour, interpolated trilinearly as a 3D texture does.
Rgb table_lookup(const IccTable& table, Rgb encoded)
{
    const int n = table.size;
    int lo[3];
    double f[3];
    for (int i = 0; i < 3; ++i) {
        const double p = std::clamp(encoded[i], 0.0, 1.0) * (n - 1);
        lo[i] = std::min(static_cast<int>(std::floor(p)), n - 2);
        f[i] = p - lo[i];
    }
    Rgb out{};
    for (int corner = 0; corner < 8; ++corner) {
        const int dr = corner & 1, dg = (corner >> 1) & 1, db = (corner >> 2) & 1;
        const double w = (dr ? f[0] : 1 - f[0]) * (dg ? f[1] : 1 - f[1]) * (db ? f[2] : 1 - f[2]);
        const size_t at = ((static_cast<size_t>(lo[2] + db) * n + (lo[1] + dg)) * n + (lo[0] + dr)) * 3;
        for (int c = 0; c < 3; ++c)
            out[c] += w * table.xyz[at + c];
    }
    return out;
}

// A layer's colour in linear light in the output's primaries (1.0 = its white), clipped to its range, not
// premultiplied; and its alpha.
Rgb layer_linear(const Layer& layer, const Output& out, double& alpha)
{
    alpha = layer.bytes[3] / 255.0;
    const ImageDescription d = layer.description ? *layer.description : ImageDescription{};
    Rgb encoded{};
    for (int c = 0; c < 3; ++c)
        encoded[c] = alpha > 0 ? layer.bytes[c] / 255.0 / alpha : 0.0;
    Rgb shown{};
    if (d.icc) {
        // The table's XYZ (D65 white), into the output's primaries.
        const Primaries p = named_primaries(out.primaries);
        shown = apply_matrix(multiply(*invert(*rgb_to_xyz(p)), bradford_adaptation(white::d65, p.white)),
                             table_lookup(*d.icc, encoded));
    } else {
        Rgb decoded{};
        for (int c = 0; c < 3; ++c)
            decoded[c] = content_decode(d.transfer, encoded[c]);
        shown = apply_matrix(*rgb_to_rgb(d.primaries, named_primaries(out.primaries)), decoded);
    }
    const double top = is_hdr(out.tf) ? out.peak / out.white : 1.0;
    for (double& v : shown)
        v = std::clamp(v, 0.0, top);
    return shown;
}

// The premultiplied "over" of `layers` onto an opaque black background, in linear light, then encoded: 0..255.
Rgb linear_blend(const std::vector<Layer>& layers, const Output& out)
{
    Rgb acc{0, 0, 0};
    for (const Layer& layer : layers) {
        double a = 0;
        const Rgb c = layer_linear(layer, out, a);
        for (int i = 0; i < 3; ++i)
            acc[i] = c[i] * a + acc[i] * (1 - a);
    }
    Rgb result = output_encode(out, acc);
    for (double& v : result)
        v *= 255.0;
    return result;
}

// The same blend as kiln did it before (and still does on an all-sRGB desktop): each layer encoded for the output
// first, the encoded values blended.
Rgb gamma_blend(const std::vector<Layer>& layers, const Output& out)
{
    Rgb acc{0, 0, 0};
    for (const Layer& layer : layers) {
        double a = 0;
        const Rgb c = output_encode(out, layer_linear(layer, out, a));
        for (int i = 0; i < 3; ++i)
            acc[i] = c[i] * a + acc[i] * (1 - a);
    }
    for (double& v : acc)
        v *= 255.0;
    return acc;
}

constexpr int32_t width = 4;
constexpr int32_t height = 2;

// Draws `layers` bottom to top over the whole target (cleared to opaque black) as kiln's GlFrame does, in linear
// light when `linear`, and returns one pixel's R, G, B.
Rgb compose(GlFixture& gl, const std::vector<Layer>& layers, const Output& out, bool linear)
{
    std::string error;
    std::vector<std::unique_ptr<Texture>> textures;
    for (const Layer& layer : layers) {
        textures.push_back(gl.renderer->create_shm_texture({fourcc::abgr8888, 1, 1, 4, layer.bytes.data()}, error));
        REQUIRE(textures.back());
    }
    auto target = gl.make_target(width, height);
    gl.renderer->set_output_colour(out.description());
    gl.renderer->begin(*target.target);
    if (linear)
        REQUIRE(gl.renderer->begin_linear(&error));
    CHECK(gl.renderer->composing_linear() == linear);
    const Box all{0, 0, width, height};
    gl.renderer->set_scissor(all);
    gl.renderer->clear({0, 0, 0, 1});
    gl.renderer->set_blending(true);
    for (size_t i = 0; i < layers.size(); ++i)
        REQUIRE(gl.renderer->draw_texture(*textures[i], {0, 0, 1, 1}, box_matrix(0, 0, width, height), 1.0f,
                                          Filter::nearest, {layers[i].description, RenderIntent::relative}));
    if (linear)
        REQUIRE(gl.renderer->end_linear(std::span(&all, 1)));
    REQUIRE(gl.renderer->end());
    const uint32_t p = target.at(1, 1);
    return {static_cast<double>((p >> 16) & 0xff), static_cast<double>((p >> 8) & 0xff),
            static_cast<double>(p & 0xff)};
}

// The readback is the linear-light reference within one code value, and lies on the reference's side of the
// gamma-space blend by the amount the reference says.
// `tolerance`: 1 code value, 2 through an ICC table (GL interpolates it at lower precision).
void check_linear(const Rgb& got, const Rgb& linear, const Rgb& gamma, double tolerance = 1.0)
{
    double largest = 0;
    for (int c = 0; c < 3; ++c) {
        INFO("channel " << c << ": got " << got[c] << ", linear-light reference " << linear[c]
                        << ", gamma-space blend " << gamma[c]);
        CHECK(std::abs(got[c] - std::round(linear[c])) <= tolerance);
        const double predicted = linear[c] - gamma[c];
        largest = std::max(largest, std::abs(predicted));
        if (std::abs(predicted) >= 3.0) {
            CHECK((got[c] - gamma[c]) * predicted > 0);
            CHECK(std::abs((got[c] - gamma[c]) - predicted) <= tolerance + 0.5);
        }
    }
    // The case is one where the two blends differ visibly, so matching the linear one means something.
    CHECK(largest >= 10.0);
}

std::shared_ptr<const ImageDescription> described(NamedPrimaries primaries, TransferFunction tf)
{
    auto d = std::make_shared<ImageDescription>();
    d->primaries = named_primaries(primaries);
    d->transfer = tf;
    return d;
}

// 60% green, then 50% red over it: premultiplied bytes.
const Layer green60{{0, 153, 0, 153}, nullptr};
const Layer red50{{128, 0, 0, 128}, nullptr};

}  // namespace

TEST_CASE("two translucent sRGB surfaces on a Display P3 output blend in linear light", "[gl][colour][linear]")
{
    GlFixture gl;
    const Output p3{NamedPrimaries::display_p3, TransferFunction::srgb};
    const std::vector<Layer> layers{green60, red50};
    const Rgb got = compose(gl, layers, p3, true);
    check_linear(got, linear_blend(layers, p3), gamma_blend(layers, p3));
    CHECK(gl.renderer->stats().linear_frames == 1);
    CHECK(gl.renderer->stats().linear_targets == 1);
}

TEST_CASE("a Display P3 surface over an sRGB one on an sRGB output blends in linear light", "[gl][colour][linear]")
{
    GlFixture gl;
    const Output srgb{};
    const Layer p3_red{{120, 20, 30, 128}, described(NamedPrimaries::display_p3, TransferFunction::srgb)};
    const std::vector<Layer> layers{green60, p3_red};
    check_linear(compose(gl, layers, srgb, true), linear_blend(layers, srgb), gamma_blend(layers, srgb));
}

TEST_CASE("translucent surfaces on a BT.2020 PQ output blend in linear light, encoded once", "[gl][colour][linear]")
{
    GlFixture gl;
    const Output pq{NamedPrimaries::bt2020, TransferFunction::st2084_pq, 203, 1000};
    const Layer gamma22_blue{{0, 60, 140, 160}, described(NamedPrimaries::srgb, TransferFunction::gamma22)};
    const std::vector<Layer> layers{green60, gamma22_blue, red50};
    check_linear(compose(gl, layers, pq, true), linear_blend(layers, pq), gamma_blend(layers, pq));
}

TEST_CASE("translucent sRGB surfaces on a BT.2020 HLG output blend in linear light, encoded once",
          "[gl][colour][linear]")
{
    GlFixture gl;
    const Output hlg{NamedPrimaries::bt2020, TransferFunction::hlg, 203, 1000};
    const std::vector<Layer> layers{green60, red50};
    check_linear(compose(gl, layers, hlg, true), linear_blend(layers, hlg), gamma_blend(layers, hlg));
    // A dimmer display's system gamma (1.2 + 0.42 log10(0.4) = 1.033) reaches the encode pass too.
    const Output dim{NamedPrimaries::bt2020, TransferFunction::hlg, 100, 400};
    const Layer gamma22_blue{{0, 60, 140, 160}, described(NamedPrimaries::srgb, TransferFunction::gamma22)};
    const std::vector<Layer> three{green60, gamma22_blue, red50};
    check_linear(compose(gl, three, dim, true), linear_blend(three, dim), gamma_blend(three, dim));
    CHECK(gl.renderer->stats().linear_frames == 2);
}

TEST_CASE("translucent sRGB surfaces on an ICC (matrix/shaper) output blend in linear light through its table",
          "[gl][colour][linear]")
{
    GlFixture gl;
    // Adobe RGB (1998) colorants with a pure 1.8 curve, as an ICC profile describes them.
    const Output icc{NamedPrimaries::adobe_rgb, TransferFunction::srgb, 80, 80, 1.8};
    const std::vector<Layer> layers{green60, red50};
    check_linear(compose(gl, layers, icc, true), linear_blend(layers, icc), gamma_blend(layers, icc), 2.0);
    CHECK(gl.renderer->stats().linear_frames == 1);
}

TEST_CASE("the background keeps its value through linear light on HLG and ICC outputs", "[gl][colour][linear]")
{
    GlFixture gl;
    for (const Output& out : {Output{NamedPrimaries::bt2020, TransferFunction::hlg, 203, 1000},
                              Output{NamedPrimaries::adobe_rgb, TransferFunction::srgb, 80, 80, 1.8}}) {
        auto target = gl.make_target(2, 1);
        gl.renderer->set_output_colour(out.description());
        gl.renderer->begin(*target.target);
        REQUIRE(gl.renderer->begin_linear());
        const Box all{0, 0, 2, 1};
        gl.renderer->set_scissor(all);
        // A coloured background: HLG's inverse OOTF mixes the channels, so a per-channel inverse would miss it.
        gl.renderer->clear({0.8f, 0.3f, 0.1f, 1});
        REQUIRE(gl.renderer->end_linear(std::span(&all, 1)));
        REQUIRE(gl.renderer->end());
        const uint32_t p = target.at(0, 0);
        INFO("tf " << transfer_name(out.tf) << ": got " << std::hex << p);
        CHECK(std::abs(int((p >> 16) & 0xff) - 204) <= 1);
        CHECK(std::abs(int((p >> 8) & 0xff) - 77) <= 1);
        CHECK(std::abs(int(p & 0xff) - 26) <= 1);
    }
}

TEST_CASE("a surface with an ICC table blends in linear light on a Display P3 output", "[gl][colour][linear]")
{
    GlFixture gl;
    const Output p3{NamedPrimaries::display_p3, TransferFunction::srgb};
    auto d = std::make_shared<ImageDescription>();
    d->primaries = named_primaries(NamedPrimaries::adobe_rgb);
    d->transfer = TransferFunction::gamma22;
    d->icc = adobe_table(17);
    const Layer table_red{{110, 30, 20, 128}, d};
    const std::vector<Layer> layers{green60, table_red};
    check_linear(compose(gl, layers, p3, true), linear_blend(layers, p3), gamma_blend(layers, p3), 2.0);
}

TEST_CASE("the FP16 intermediate is kept while the size matches and only redrawn where asked", "[gl][colour][linear]")
{
    GlFixture gl;
    const Output p3{NamedPrimaries::display_p3, TransferFunction::srgb};
    compose(gl, {green60, red50}, p3, true);
    compose(gl, {red50}, p3, true);
    CHECK(gl.renderer->stats().linear_frames == 2);
    CHECK(gl.renderer->stats().linear_targets == 1);

    // Encoding only a box leaves the target's other pixels as they were.
    auto target = gl.make_target(8, 1);
    gl.renderer->set_output_colour(p3.description());
    gl.renderer->begin(*target.target);
    gl.renderer->clear({0, 0, 1, 1});
    REQUIRE(gl.renderer->begin_linear());
    const Box left{0, 0, 4, 1};
    gl.renderer->set_scissor(left);
    gl.renderer->clear({1, 0, 0, 1});
    REQUIRE(gl.renderer->end_linear(std::span(&left, 1)));
    REQUIRE(gl.renderer->end());
    CHECK(gl.renderer->stats().linear_targets == 2);  // another size: a new one
    CHECK(target.at(0, 0) == 0xff0000u);  // the background keeps its value through linear light and back
    CHECK(target.at(3, 0) == 0xff0000u);
    CHECK(target.at(4, 0) == 0x0000ffu);
    CHECK(target.at(7, 0) == 0x0000ffu);
}

TEST_CASE("an all-sRGB frame on an sRGB output makes no intermediate and blends as before", "[gl][colour][linear]")
{
    GlFixture gl;
    const Output srgb{};
    const std::vector<Layer> layers{green60, red50};
    const uint64_t linked = gl.programs.linked_from_source();
    const Rgb got = compose(gl, layers, srgb, false);
    const Rgb gamma = gamma_blend(layers, srgb);
    for (int c = 0; c < 3; ++c) {
        INFO("channel " << c << ": got " << got[c] << ", gamma-space blend " << gamma[c]);
        CHECK(std::abs(got[c] - gamma[c]) <= 1.0);
    }
    CHECK(gl.renderer->stats().linear_frames == 0);
    CHECK(gl.renderer->stats().linear_targets == 0);
    // The ordinary programs only (solid and rgba; the conversion and encode programs are never made).
    CHECK(gl.programs.linked_from_source() - linked <= 2);
}
