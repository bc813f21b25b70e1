// ColourVariant: one colour conversion program (a sampling variant and a ColourKey) named as the precompile list
// records it, that name read back so a warm start can prepare the program, and said in words for kiln-cache.
#pragma once

#include "renderer/colour/colour_pipeline.hpp"
#include "renderer/shaders.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace kiln::renderer {

struct ColourVariant {
    ShaderVariant sampling = ShaderVariant::rgba;  // any texture variant (not solid)
    ColourKey key;
    auto operator<=>(const ColourVariant&) const = default;
};

// "colour_<sampling program>_<decode | lut>_[matrix_]<tone>_to_<encode>", e.g.
// "colour_texture_rgba_st2084_pq_matrix_bt2390_to_srgb": one word, as the precompile list stores names.
std::string colour_program_name(const ColourVariant& variant);

// The variant a colour program name stands for; nullopt for any other name (a plain program's, a damaged line's).
// An ICC table's key reads back with decode sRGB and no tone map, as colour_pipeline() makes it.
std::optional<ColourVariant> parse_colour_program_name(std::string_view name);

// In words, e.g. "rgba: decode st2084_pq, tone map bt2390, matrix, encode srgb". The primaries are not part of a
// variant (the matrix is a uniform): one program serves every pair of descriptions with the same curves.
std::string describe_colour_variant(const ColourVariant& variant);

}  // namespace kiln::renderer
