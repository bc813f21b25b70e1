// GlFixture: an EGL display (device, else surfaceless llvmpipe) with the renderer on it, for pixel tests.
#pragma once

#include "renderer/egl_display.hpp"
#include "renderer/formats.hpp"
#include "renderer/in_memory_program_cache.hpp"
#include "renderer/renderer.hpp"

#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <memory>
#include <vector>

namespace kiln::test {

struct GlFixture {
    std::unique_ptr<renderer::EglDisplay> display;
    renderer::InMemoryProgramCache programs;
    std::unique_ptr<renderer::Renderer> renderer;

    GlFixture()
    {
        std::string error;
        display = renderer::EglDisplay::open({}, error);
        REQUIRE(display);
        renderer = renderer::Renderer::create(*display, programs, error);
        INFO(error);
        REQUIRE(renderer);
    }

    // A CPU target of w x h, XRGB8888 (B,G,R,X bytes), with memory the test can read.
    struct Target {
        std::unique_ptr<renderer::RenderTarget> target;
        std::vector<uint32_t> pixels;
        int32_t width;
        int32_t height;
        uint32_t at(int32_t x, int32_t y) const { return pixels[static_cast<size_t>(y * width + x)] & 0x00ffffffu; }
    };

    Target make_target(int32_t w, int32_t h)
    {
        std::string error;
        Target t{renderer->create_cpu_target(renderer::fourcc::xrgb8888, w, h, error),
                 std::vector<uint32_t>(static_cast<size_t>(w * h), 0xdeadbeef), w, h};
        REQUIRE(t.target);
        t.target->set_destination(t.pixels.data(), static_cast<uint32_t>(w * 4));
        return t;
    }
};

// Maps the unit square to the pixel rectangle (x, y, w, h): what wlroots passes as a quad's matrix.
inline renderer::Matrix3 box_matrix(float x, float y, float w, float h)
{
    return {w, 0, x, 0, h, y, 0, 0, 1};
}

// True when no EGL display can be opened at all: the GL tests then skip (exit 77) with this reason.
bool egl_unavailable(std::string& why);

}  // namespace kiln::test
