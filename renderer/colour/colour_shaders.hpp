// The GLSL of colour conversion programs: one program per (sampling variant, ColourKey), generated from the key so
// that the program cache keys it by its text like every other program and a warm start links nothing.
#pragma once

#include "renderer/colour/colour_pipeline.hpp"
#include "renderer/program_cache.hpp"
#include "renderer/shaders.hpp"

namespace kiln::renderer {

// GLSL ES 3.00 (the ICC table is a 3D texture); uniforms: colour_matrix, eetf, hlg, lut (texture unit
// colour_lut_unit), lut_coord, hlg_out_gamma (HLG outputs), out_lut (unit colour_output_lut_unit) and out_lut_coord
// (ICC outputs), plus the sampling variant's own. `sampling` is any texture variant (not solid).
ProgramSource colour_program_source(ShaderVariant sampling, const ColourKey& key);

// The encode pass of a linear-light frame (renderer_linear.cpp): reads the FP16 intermediate's texel under each
// fragment (uniform `composed`), un-premultiplies, scales by `scale`, clips to 0..`clip_max`, encodes with `encode`
// and premultiplies again; with `table` an ICC output's table (out_lut, out_lut_coord) replaces the curve, and an
// HLG curve takes hlg_out_gamma. One program per output curve or table ("linear_encode_to_<curve | icc>"), keyed by
// its text in the program cache like the others.
ProgramSource linear_encode_program_source(TransferFunction encode, bool table = false);

// The texture unit the ICC table is bound to (after the YUV planes' 0..2).
constexpr int colour_lut_unit = 3;
// ... and an ICC output's table.
constexpr int colour_output_lut_unit = 4;

}  // namespace kiln::renderer
