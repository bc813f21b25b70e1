// Shared pieces of the cache suite: a GL context on llvmpipe, temporary cache directories, sample programs.
#pragma once

#include "renderer/cache/tiered_program_cache.hpp"
#include "renderer/egl_display.hpp"
#include "renderer/formats.hpp"
#include "renderer/render_target.hpp"
#include "renderer/renderer_stats.hpp"

#include <catch2/catch_test_macros.hpp>

#include <filesystem>
#include <memory>
#include <string>

namespace kiln::test {

// A fresh directory under $TMPDIR (else /tmp), removed when the test ends.
struct TempDir {
    std::filesystem::path path;
    TempDir();
    ~TempDir();
};

struct GlContext {
    std::unique_ptr<renderer::EglDisplay> display;
    GlContext();
};

// A program that paints a uniform colour, with a distinguishing constant so tests can make many distinct ones.
renderer::ProgramSource colour_program(const std::string& name, int variant = 0,
                                       std::vector<renderer::AttributeBinding> attributes = {{"pos", 0}});

// Draws a full-target quad with `program` into a 4x4 CPU target and returns the centre pixel (0xRRGGBB).
uint32_t draw_centre(GLuint program, float r, float g, float b);

cache::CacheOptions quiet_options(const std::filesystem::path& user_dir, const std::filesystem::path& system_dir = {});

// Path of this test binary, for re-running it as a second process.
std::string self_path();

}  // namespace kiln::test
