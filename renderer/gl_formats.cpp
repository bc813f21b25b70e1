// The GL upload of each RGB format, matching its memory layout byte for byte.
#include "renderer/gl_formats.hpp"

#include "renderer/formats.hpp"

#include <array>
#include <utility>

namespace kiln::renderer {
namespace {

// Little-endian: ARGB8888 is B,G,R,A in memory; ABGR8888 is R,G,B,A (GL_RGBA + UNSIGNED_BYTE).
const std::array<std::pair<uint32_t, GlUpload>, 5> uploads{{
    {fourcc::argb8888, {GL_RGBA, GL_UNSIGNED_BYTE, true}},
    {fourcc::xrgb8888, {GL_RGBA, GL_UNSIGNED_BYTE, true}},
    {fourcc::abgr8888, {GL_RGBA, GL_UNSIGNED_BYTE, false}},
    {fourcc::xbgr8888, {GL_RGBA, GL_UNSIGNED_BYTE, false}},
    {fourcc::rgb565, {GL_RGB, GL_UNSIGNED_SHORT_5_6_5, false}},
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
