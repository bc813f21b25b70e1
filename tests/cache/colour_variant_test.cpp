// Colour program names in the precompile list: every variant's name reads back as that variant (so a warm start
// prepares exactly the program it recorded), other names do not, and kiln-cache's words say what the variant does.
#include "renderer/cache/program_key.hpp"
#include "renderer/colour/colour_shaders.hpp"
#include "renderer/colour/colour_variant.hpp"

#include <catch2/catch_test_macros.hpp>

#include <set>
#include <string>
#include <vector>

using namespace kiln::renderer;

namespace {

// Every key colour_pipeline() can make: a table with its matrix, or a curve with or without one, each tone map.
std::vector<ColourVariant> every_variant()
{
    const ShaderVariant samplings[] = {ShaderVariant::rgba,     ShaderVariant::rgbx,           ShaderVariant::bgra,
                                       ShaderVariant::bgrx,     ShaderVariant::external,       ShaderVariant::yuv_semiplanar,
                                       ShaderVariant::yuv_planar};
    const TransferFunction curves[] = {TransferFunction::srgb,      TransferFunction::gamma22, TransferFunction::bt1886,
                                       TransferFunction::st2084_pq, TransferFunction::hlg,     TransferFunction::ext_linear};
    std::vector<ColourVariant> out;
    constexpr TransferFunction decode_srgb = TransferFunction::srgb;
    for (ShaderVariant sampling : samplings)
        for (TransferFunction encode : curves)
            for (ToneMap tone : {ToneMap::none, ToneMap::bt2390, ToneMap::hlg_ootf})
                for (bool matrix : {false, true}) {
                    for (TransferFunction decode : curves)
                        out.push_back({sampling, ColourKey{decode, false, matrix, tone, encode}});
                    if (matrix && tone == ToneMap::none)
                        out.push_back({sampling, ColourKey{TransferFunction::srgb, true, true, tone, encode}});
                    // Onto an ICC output: its table replaces the encode curve ("…_to_icc").
                    if (matrix && tone == ToneMap::none && encode == TransferFunction::srgb) {
                        out.push_back({sampling, ColourKey{decode_srgb, false, true, tone, encode, true}});
                        out.push_back({sampling, ColourKey{decode_srgb, true, true, tone, encode, true}});
                    }
                }
    return out;
}

}  // namespace

TEST_CASE("every colour program name reads back as its variant, with the same program text")
{
    std::set<std::string> names;
    for (const ColourVariant& variant : every_variant()) {
        const ProgramSource source = colour_program_source(variant.sampling, variant.key);
        INFO(source.name);
        CHECK(source.name == colour_program_name(variant));
        CHECK(source.name.find(' ') == std::string::npos);  // the list stores a name as one word
        const auto back = parse_colour_program_name(source.name);
        REQUIRE(back);
        CHECK(*back == variant);
        // The same key for the program: what the precompile list recorded is what a warm start prepares.
        const ProgramSource again = colour_program_source(back->sampling, back->key);
        CHECK(kiln::cache::program_key(again).program == kiln::cache::program_key(source).program);
        names.insert(source.name);
    }
    CHECK(names.size() == every_variant().size());  // no two variants share a name
}

TEST_CASE("names that are not colour variants read back as none")
{
    for (const char* name : {"texture_rgba", "solid", "colour_", "colour_texture_rgba", "colour_texture_rgba_srgb",
                             "colour_texture_rgba_srgb_none_to_", "colour_texture_rgba_srgb_none_to_srgbx",
                             "colour_texture_rgba_lut_none_to_srgb_", "colour_solid_srgb_none_to_srgb",
                             "colour_texture_rgba_sRGB_none_to_srgb", "-", ""}) {
        INFO(name);
        CHECK_FALSE(parse_colour_program_name(name));
    }
}

TEST_CASE("a colour variant in words")
{
    CHECK(describe_colour_variant({ShaderVariant::rgba, {TransferFunction::srgb, false, true, ToneMap::none,
                                                         TransferFunction::srgb}}) ==
          "rgba: decode srgb, matrix, encode srgb");
    CHECK(describe_colour_variant({ShaderVariant::yuv_semiplanar,
                                   {TransferFunction::st2084_pq, false, true, ToneMap::bt2390,
                                    TransferFunction::srgb}}) ==
          "yuv_semiplanar: decode st2084_pq, tone map bt2390, matrix, encode srgb");
    CHECK(describe_colour_variant({ShaderVariant::bgrx, {TransferFunction::srgb, true, true, ToneMap::none,
                                                         TransferFunction::st2084_pq}}) ==
          "bgrx: icc table, matrix, encode st2084_pq");
}
