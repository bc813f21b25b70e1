// The GL upload of each RGB format, matching its memory layout byte for byte.
#include "renderer/gl_formats.hpp"

#include "renderer/formats.hpp"

#include <array>
#include <utility>

namespace kiln::renderer {
namespace {

// Little-endian: ARGB8888 is B,G,R,A in memory; ABGR8888 is R,G,B,A (GL_RGBA + UNSIGNED_BYTE).
// ABGR2101010 has red in the word's low 10 bits, as GL_UNSIGNED_INT_2_10_10_10_REV reads RGBA; ARGB2101010 has blue
// there, so it is uploaded the same way and red and blue swapped in the shader, like ARGB8888 (no CPU reorder: the
// damage goes to GL as the client wrote it). ABGR16161616F is R,G,B,A half floats (GL_RGBA + GL_HALF_FLOAT).
const std::array<std::pair<uint32_t, GlUpload>, 11> uploads{{
    {fourcc::argb8888, {GL_RGBA, GL_UNSIGNED_BYTE, GL_RGBA, true}},
    {fourcc::xrgb8888, {GL_RGBA, GL_UNSIGNED_BYTE, GL_RGBA, true}},
    {fourcc::abgr8888, {GL_RGBA, GL_UNSIGNED_BYTE, GL_RGBA, false}},
    {fourcc::xbgr8888, {GL_RGBA, GL_UNSIGNED_BYTE, GL_RGBA, false}},
    {fourcc::rgb565, {GL_RGB, GL_UNSIGNED_SHORT_5_6_5, GL_RGB, false}},
    {fourcc::xrgb2101010, {GL_RGBA, GL_UNSIGNED_INT_2_10_10_10_REV, GL_RGB10_A2, true}},
    {fourcc::argb2101010, {GL_RGBA, GL_UNSIGNED_INT_2_10_10_10_REV, GL_RGB10_A2, true}},
    {fourcc::xbgr2101010, {GL_RGBA, GL_UNSIGNED_INT_2_10_10_10_REV, GL_RGB10_A2, false}},
    {fourcc::abgr2101010, {GL_RGBA, GL_UNSIGNED_INT_2_10_10_10_REV, GL_RGB10_A2, false}},
    {fourcc::xbgr16161616f, {GL_RGBA, GL_HALF_FLOAT, GL_RGBA16F, false}},
    {fourcc::abgr16161616f, {GL_RGBA, GL_HALF_FLOAT, GL_RGBA16F, false}},
}};

}  // namespace

std::optional<GlUpload> gl_upload(uint32_t code)
{
    for (const auto& [fourcc, upload] : uploads)
        if (fourcc == code)
            return upload;
    return std::nullopt;
}

}  // namespace kiln::renderer
