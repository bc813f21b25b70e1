// How GL uploads and samples each shm-uploadable format (renderer-private: the plain facts are in formats.hpp).
#pragma once

#include <GLES3/gl3.h>

#include <cstdint>
#include <optional>

namespace kiln::renderer {

struct GlUpload {
    // GL format/type whose memory layout equals the fourcc's on little-endian.
    GLenum format = 0;
    GLenum type = 0;
    // The texture's storage: unsized (GL_RGBA, GL_RGB) for 8-bit layouts, sized where the type needs it
    // (GL_RGB10_A2, GL_RGBA16F; GLES 3.0 table 3.2).
    GLenum internal_format = 0;
    // Swap red and blue in the shader (GL_BGRA_EXT is not universally sampleable, so BGR-ordered formats are uploaded
    // as RGBA and swizzled).
    bool swizzle_rb = false;
};

// The upload of `fourcc`, or nothing when GL cannot upload it whole (YUV, unknown).
std::optional<GlUpload> gl_upload(uint32_t fourcc);

}  // namespace kiln::renderer
