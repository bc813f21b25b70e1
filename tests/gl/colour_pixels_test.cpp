// A surface's colour description is honoured: its pixels, drawn onto the sRGB output, equal a reference worked out
// here on doubles from the published formulas (renderer/colour), within one 8-bit code value (two through an ICC
// table), and plain sRGB takes the old program.
#include "renderer/colour/colour_shaders.hpp"
#include "renderer/colour/image_description.hpp"
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
using Bytes = std::array<uint8_t, 4>;  // R, G, B, A as ABGR8888 memory holds them (premultiplied)

// Opaque test colours: primaries, greys, skin and sky tones, near-black and near-white, PQ/HLG highlights.
const std::vector<Bytes> opaque_colours{
    {0, 0, 0, 255},       {255, 255, 255, 255}, {255, 0, 0, 255},     {0, 255, 0, 255},
    {0, 0, 255, 255},     {128, 128, 128, 255}, {200, 150, 120, 255}, {90, 160, 230, 255},
    {10, 20, 5, 255},     {250, 240, 230, 255}, {60, 200, 90, 255},   {140, 100, 180, 255},
    {230, 200, 40, 255},  {30, 60, 120, 255},   {180, 40, 60, 255},   {100, 100, 40, 255},
};

std::shared_ptr<const ImageDescription> description(NamedPrimaries primaries, TransferFunction tf)
{
    auto d = std::make_shared<ImageDescription>();
    d->primaries = named_primaries(primaries);
    d->transfer = tf;
    if (tf == TransferFunction::st2084_pq) {
        d->min_luminance = 0.005;
        d->max_luminance = 10000;
        d->reference_white = 203;
    } else if (tf == TransferFunction::hlg) {
        d->min_luminance = 0.005;
        d->max_luminance = 1000;
        d->reference_white = 203;
    }
    return d;
}

// An output as the reference sees it: primaries, curve, white and peak in cd/m².
struct Output {
    NamedPrimaries primaries = NamedPrimaries::srgb;
    TransferFunction tf = TransferFunction::srgb;
    double white = 80;
    double peak = 80;
};

// The reference: one encoded colour of `d` as `out` shows it (the content's reference white on the output's),
// 0..255 per channel before rounding.
Rgb reference(const ImageDescription& d, Rgb encoded, Output out = {})
{
    Rgb linear{};
    if (d.transfer == TransferFunction::st2084_pq) {
        // BT.2390 from the content's range onto the output's peak in content cd/m², black 0.
        const double white = d.reference_white;
        for (int i = 0; i < 3; ++i) {
            const double mapped =
                bt2390_eetf(encoded[i], {d.min_luminance, d.max_luminance}, {0.0, out.peak * white / out.white});
            linear[i] = decode(TransferFunction::st2084_pq, mapped) * 10000.0 / white;
        }
    } else if (d.transfer == TransferFunction::hlg) {
        Rgb scene{};
        for (int i = 0; i < 3; ++i)
            scene[i] = decode(TransferFunction::hlg, encoded[i]);
        const Rgb display = hlg_ootf(scene, d.max_luminance);
        for (int i = 0; i < 3; ++i)
            linear[i] = display[i] / d.reference_white;
    } else {
        for (int i = 0; i < 3; ++i)
            linear[i] = decode(d.transfer, encoded[i]);
    }
    const Rgb shown = apply_matrix(*rgb_to_rgb(d.primaries, named_primaries(out.primaries)), linear);
    Rgb result{};
    for (int i = 0; i < 3; ++i) {
        if (out.tf == TransferFunction::st2084_pq) {
            const double nits = std::clamp(shown[i] * out.white, 0.0, out.peak);
            result[i] = encode(TransferFunction::st2084_pq, nits / 10000.0) * 255.0;
        } else {
            result[i] = encode(out.tf, std::clamp(shown[i], 0.0, 1.0)) * 255.0;
        }
    }
    return result;
}

// Draws `colours` as a row of 1:1 texels (ABGR8888, NEAREST) with `colour` and reads the row back.
std::vector<uint32_t> draw_row(GlFixture& gl, const std::vector<Bytes>& colours, const SurfaceColour& colour,
                               float alpha = 1.0f)
{
    const int32_t n = static_cast<int32_t>(colours.size());
    std::vector<uint8_t> memory;
    for (const Bytes& c : colours)
        memory.insert(memory.end(), c.begin(), c.end());
    std::string error;
    auto texture = gl.renderer->create_shm_texture({fourcc::abgr8888, n, 1, static_cast<uint32_t>(n * 4),
                                                    memory.data()},
                                                   error);
    REQUIRE(texture);
    auto target = gl.make_target(n, 1);
    gl.renderer->begin(*target.target);
    gl.renderer->clear({0, 0, 0, 1});
    REQUIRE(gl.renderer->draw_texture(*texture, {0, 0, static_cast<double>(n), 1},
                                      box_matrix(0, 0, static_cast<float>(n), 1), alpha, Filter::nearest, colour));
    REQUIRE(gl.renderer->end());
    std::vector<uint32_t> row;
    for (int32_t x = 0; x < n; ++x)
        row.push_back(target.at(x, 0));
    return row;
}

// Every channel of every pixel within `tolerance` code values of `expected` (0..255, unrounded).
void check_row(const std::vector<uint32_t>& row, const std::vector<Rgb>& expected, double tolerance)
{
    REQUIRE(row.size() == expected.size());
    for (size_t i = 0; i < row.size(); ++i) {
        const Rgb got{static_cast<double>((row[i] >> 16) & 0xff), static_cast<double>((row[i] >> 8) & 0xff),
                      static_cast<double>(row[i] & 0xff)};
        for (int c = 0; c < 3; ++c) {
            INFO("pixel " << i << " channel " << c << ": got " << got[c] << ", reference " << expected[i][c]);
            CHECK(std::abs(got[c] - std::round(expected[i][c])) <= tolerance);
        }
    }
}

std::vector<Rgb> references(const ImageDescription& d, const std::vector<Bytes>& colours)
{
    std::vector<Rgb> out;
    for (const Bytes& c : colours)
        out.push_back(reference(d, {c[0] / 255.0, c[1] / 255.0, c[2] / 255.0}));
    return out;
}

void check_description(GlFixture& gl, const std::shared_ptr<const ImageDescription>& d)
{
    const auto row = draw_row(gl, opaque_colours, {d, RenderIntent::relative});
    check_row(row, references(*d, opaque_colours), 1.0);
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
                const auto curve = [&](int i) { return decode(TransferFunction::gamma22, i / (size - 1.0)); };
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

}  // namespace

TEST_CASE("plain sRGB descriptions draw exactly as before, with the old program and no new one", "[gl][colour]")
{
    GlFixture gl;
    const auto before = draw_row(gl, opaque_colours, {});
    const uint64_t linked = gl.programs.linked_from_source();
    const auto plain = draw_row(gl, opaque_colours, {std::make_shared<ImageDescription>(), RenderIntent::relative});
    CHECK(plain == before);
    CHECK(gl.programs.linked_from_source() == linked);
    for (size_t i = 0; i < opaque_colours.size(); ++i) {
        const Bytes& c = opaque_colours[i];
        CHECK(before[i] == ((uint32_t{c[0]} << 16) | (uint32_t{c[1]} << 8) | c[2]));
    }
}

TEST_CASE("Display P3 content is converted to sRGB (relative colorimetric, clipped)", "[gl][colour]")
{
    GlFixture gl;
    const auto d = description(NamedPrimaries::display_p3, TransferFunction::srgb);
    check_description(gl, d);
    // Not drawn as it is: P3 red is redder than sRGB can show, so its green and blue are clipped to 0 and a
    // mid-tone moves by several code values.
    const auto row = draw_row(gl, {{200, 150, 120, 255}}, {d, RenderIntent::relative});
    CHECK(row[0] != 0xc89678u);
}

TEST_CASE("Adobe RGB with a gamma 2.2 curve is converted to sRGB", "[gl][colour]")
{
    GlFixture gl;
    check_description(gl, description(NamedPrimaries::adobe_rgb, TransferFunction::gamma22));
}

TEST_CASE("BT.2020 PQ content is tone-mapped with the BT.2390 EETF onto the sRGB output", "[gl][colour]")
{
    GlFixture gl;
    const auto d = description(NamedPrimaries::bt2020, TransferFunction::st2084_pq);
    check_description(gl, d);
    // PQ 0.58 is about 203 cd/m², the reference white: near the output's white after the roll-off, not clipped
    // far above it; PQ 1.0 (10,000 cd/m²) lands on white.
    const auto row = draw_row(gl, {{148, 148, 148, 255}, {255, 255, 255, 255}}, {d, RenderIntent::perceptual});
    CHECK(row[1] == 0xffffffu);
    CHECK(((row[0] >> 16) & 0xff) < 0xff);
}

TEST_CASE("HLG content goes through the BT.2100 OOTF for its peak onto the sRGB output", "[gl][colour]")
{
    GlFixture gl;
    check_description(gl, description(NamedPrimaries::bt2020, TransferFunction::hlg));
}

TEST_CASE("extended linear content is encoded for the output, and what lies beyond it is clipped", "[gl][colour]")
{
    GlFixture gl;
    check_description(gl, description(NamedPrimaries::srgb, TransferFunction::ext_linear));
    // BT.2020 primaries in extended linear: saturated colours fall outside sRGB (above 1, below 0) and clip.
    const auto wide = description(NamedPrimaries::bt2020, TransferFunction::ext_linear);
    check_description(gl, wide);
    const auto row = draw_row(gl, {{0, 255, 0, 255}}, {wide, RenderIntent::relative});
    CHECK(row[0] == 0x00ff00u);  // 1.13 green clipped to 1, -0.59 red and -0.10 blue to 0
}

TEST_CASE("an ICC table is sampled as a 3D texture into XYZ and converted to sRGB", "[gl][colour]")
{
    GlFixture gl;
    auto d = std::make_shared<ImageDescription>();
    d->primaries = named_primaries(NamedPrimaries::adobe_rgb);
    d->transfer = TransferFunction::gamma22;
    d->icc = adobe_table(17);
    const ColourMatrix xyz_to_srgb = *invert(*rgb_to_xyz(named_primaries(NamedPrimaries::srgb)));
    std::vector<Rgb> expected;
    for (const Bytes& c : opaque_colours) {
        const Rgb linear = apply_matrix(xyz_to_srgb, table_lookup(*d->icc, {c[0] / 255.0, c[1] / 255.0,
                                                                            c[2] / 255.0}));
        Rgb e{};
        for (int i = 0; i < 3; ++i)
            e[i] = encode(TransferFunction::srgb, std::clamp(linear[i], 0.0, 1.0)) * 255.0;
        expected.push_back(e);
    }
    check_row(draw_row(gl, opaque_colours, {d, RenderIntent::relative}), expected, 2.0);
}

TEST_CASE("translucent content is converted un-premultiplied and premultiplied again", "[gl][colour]")
{
    GlFixture gl;
    const auto d = description(NamedPrimaries::display_p3, TransferFunction::srgb);
    // Premultiplied at alpha 128, drawn over black with a surface alpha of 0.5 too: the converted colour times
    // 128/255 times 0.5 (blending stays in the output's encoding).
    const std::vector<Bytes> colours{{100, 75, 60, 128}, {128, 0, 0, 128}, {64, 64, 64, 128}};
    std::vector<Rgb> expected;
    for (const Bytes& c : colours) {
        const double a = c[3] / 255.0;
        Rgb e = reference(*d, {c[0] / 255.0 / a, c[1] / 255.0 / a, c[2] / 255.0 / a});
        for (double& v : e)
            v *= a * 0.5;
        expected.push_back(e);
    }
    check_row(draw_row(gl, colours, {d, RenderIntent::relative}, 0.5f), expected, 1.0);
}

TEST_CASE("colour programs come from the program cache: a second renderer on a warm cache links none", "[gl][colour]")
{
    GlFixture gl;
    const std::vector<std::shared_ptr<const ImageDescription>> all{
        description(NamedPrimaries::display_p3, TransferFunction::srgb),
        description(NamedPrimaries::bt2020, TransferFunction::st2084_pq),
        description(NamedPrimaries::bt2020, TransferFunction::hlg),
        description(NamedPrimaries::adobe_rgb, TransferFunction::gamma22),
    };
    std::vector<std::vector<uint32_t>> first;
    for (const auto& d : all)
        first.push_back(draw_row(gl, opaque_colours, {d, RenderIntent::relative}));
    const uint64_t linked = gl.programs.linked_from_source();
    // One conversion program per distinct pipeline, nothing else (clearing needs no program).
    CHECK(linked == all.size());
    // The same descriptions again on this renderer: nothing new.
    for (const auto& d : all)
        draw_row(gl, opaque_colours, {d, RenderIntent::perceptual});
    CHECK(gl.programs.linked_from_source() == linked);

    std::string error;
    gl.renderer.reset();
    gl.renderer = Renderer::create(*gl.display, gl.programs, error);
    REQUIRE(gl.renderer);
    for (size_t i = 0; i < all.size(); ++i)
        CHECK(draw_row(gl, opaque_colours, {all[i], RenderIntent::relative}) == first[i]);
    CHECK(gl.programs.linked_from_source() == linked);
    CHECK(gl.programs.loaded_from_memory() == linked);
}

TEST_CASE("YUV planes are converted after their YCbCr matrix, like RGB content", "[gl][colour]")
{
    GlFixture gl;
    const auto d = description(NamedPrimaries::bt2020, TransferFunction::st2084_pq);
    // A flat NV12 colour (BT.601 limited, the default encoding): the chroma sample covers every luma sample.
    const uint8_t luma[4] = {150, 150, 150, 150};
    const uint8_t chroma[2] = {100, 170};
    std::string error;
    auto texture = Texture::from_yuv_memory(fourcc::nv12, 2, 2, {luma, chroma, chroma}, error);
    REQUIRE(texture);
    auto target = gl.make_target(2, 2);
    gl.renderer->begin(*target.target);
    REQUIRE(gl.renderer->draw_texture(*texture, {0, 0, 2, 2}, box_matrix(0, 0, 2, 2), 1.0f, Filter::nearest,
                                      {d, RenderIntent::relative}));
    REQUIRE(gl.renderer->end());
    const YuvConversion yuv = yuv_conversion({});
    const double in[3] = {150 / 255.0 - yuv.offset[0], 100 / 255.0 - yuv.offset[1], 170 / 255.0 - yuv.offset[2]};
    Rgb encoded{};
    for (int r = 0; r < 3; ++r)
        encoded[r] = std::clamp(yuv.matrix[r * 3] * in[0] + yuv.matrix[r * 3 + 1] * in[1] + yuv.matrix[r * 3 + 2] * in[2],
                                0.0, 1.0);
    check_row({target.at(0, 0), target.at(1, 1)}, {reference(*d, encoded), reference(*d, encoded)}, 1.0);
}

TEST_CASE("every sampling variant's conversion program compiles and links", "[gl][colour]")
{
    GlFixture gl;
    const bool external = gl.display->has_gl_extension("GL_OES_EGL_image_external_essl3");
    std::vector<ColourKey> keys;
    for (TransferFunction tf : {TransferFunction::srgb, TransferFunction::gamma22, TransferFunction::bt1886,
                                TransferFunction::st2084_pq, TransferFunction::hlg, TransferFunction::ext_linear})
        keys.push_back({tf, false, true,
                        tf == TransferFunction::st2084_pq ? ToneMap::bt2390
                        : tf == TransferFunction::hlg     ? ToneMap::hlg_ootf
                                                          : ToneMap::none,
                        TransferFunction::srgb});
    keys.push_back({TransferFunction::srgb, true, true, ToneMap::none, TransferFunction::srgb});
    keys.push_back({TransferFunction::ext_linear, false, false, ToneMap::none, TransferFunction::gamma22});
    // Onto an HLG output (inverse OOTF + OETF) and an ICC output (its table replaces the curve).
    keys.push_back({TransferFunction::srgb, false, true, ToneMap::none, TransferFunction::hlg});
    keys.push_back({TransferFunction::srgb, true, true, ToneMap::none, TransferFunction::srgb, true});
    for (ShaderVariant variant : gl.renderer->variants()) {
        if (variant == ShaderVariant::solid || (variant == ShaderVariant::external && !external))
            continue;
        for (const ColourKey& key : keys) {
            const ProgramSource source = colour_program_source(variant, key);
            std::string error;
            const bool linked = gl.programs.get(source, error).has_value();
            INFO(source.name << ": " << error);
            CHECK(linked);
        }
    }
}

TEST_CASE("onto a Display P3 output, sRGB surfaces are converted too and P3 surfaces pass through", "[gl][colour]")
{
    GlFixture gl;
    gl.renderer->set_output_colour(sdr_output(NamedPrimaries::display_p3, TransferFunction::srgb));
    const Output p3{NamedPrimaries::display_p3, TransferFunction::srgb, 80, 80};
    const ImageDescription srgb;
    std::vector<Rgb> expected;
    for (const Bytes& c : opaque_colours)
        expected.push_back(reference(srgb, {c[0] / 255.0, c[1] / 255.0, c[2] / 255.0}, p3));
    check_row(draw_row(gl, opaque_colours, {}), expected, 1.0);  // no description at all: sRGB
    const auto d = description(NamedPrimaries::display_p3, TransferFunction::srgb);
    const auto row = draw_row(gl, opaque_colours, {d, RenderIntent::relative});
    for (size_t i = 0; i < opaque_colours.size(); ++i)
        for (int c = 0; c < 3; ++c)
            CHECK(std::abs(static_cast<int>((row[i] >> (16 - 8 * c)) & 0xff) - opaque_colours[i][c]) <= 1);
    // Back on an sRGB output, sRGB surfaces take the old program again: exact.
    gl.renderer->set_output_colour(srgb_output());
    const auto plain = draw_row(gl, opaque_colours, {});
    for (size_t i = 0; i < opaque_colours.size(); ++i) {
        const Bytes& c = opaque_colours[i];
        CHECK(plain[i] == ((uint32_t{c[0]} << 16) | (uint32_t{c[1]} << 8) | c[2]));
    }
}

TEST_CASE("onto a BT.2020 PQ output, SDR surfaces sit at its SDR white and PQ surfaces are mapped to its peak",
          "[gl][colour]")
{
    GlFixture gl;
    gl.renderer->set_output_colour(pq_output(203, 1000));
    const Output hdr{NamedPrimaries::bt2020, TransferFunction::st2084_pq, 203, 1000};
    const ImageDescription srgb;
    std::vector<Rgb> expected;
    for (const Bytes& c : opaque_colours)
        expected.push_back(reference(srgb, {c[0] / 255.0, c[1] / 255.0, c[2] / 255.0}, hdr));
    check_row(draw_row(gl, opaque_colours, {}), expected, 1.0);
    // sRGB white is 203 cd/m²: PQ 0.58, not the output's peak.
    CHECK(((draw_row(gl, {{255, 255, 255, 255}}, {})[0] >> 16) & 0xff) == 148);

    const auto pq = description(NamedPrimaries::bt2020, TransferFunction::st2084_pq);
    expected.clear();
    for (const Bytes& c : opaque_colours)
        expected.push_back(reference(*pq, {c[0] / 255.0, c[1] / 255.0, c[2] / 255.0}, hdr));
    check_row(draw_row(gl, opaque_colours, {pq, RenderIntent::perceptual}), expected, 1.0);
}
