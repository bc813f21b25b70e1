// GLSL ES sources: one vertex shader for every quad, one fragment shader per way of sampling a buffer.
#include "renderer/shaders.hpp"

#include <GLES3/gl3.h>

namespace kiln::renderer {
namespace {

// GLSL ES 1.00: external textures (samplerExternalOES) are most widely supported there.
constexpr const char* quad_vertex = R"(#version 100
uniform mat3 proj;
uniform mat3 tex_proj;
attribute vec2 pos;
varying vec2 v_texcoord;
void main() {
    vec3 p = proj * vec3(pos, 1.0);
    gl_Position = vec4(p.xy, 0.0, 1.0);
    v_texcoord = (tex_proj * vec3(pos, 1.0)).xy;
}
)";

constexpr const char* solid_fragment = R"(#version 100
precision mediump float;
uniform vec4 color;
void main() {
    gl_FragColor = color;
}
)";

constexpr const char* rgba_fragment = R"(#version 100
precision mediump float;
varying vec2 v_texcoord;
uniform sampler2D tex;
uniform float alpha;
void main() {
    gl_FragColor = texture2D(tex, v_texcoord) * alpha;
}
)";

constexpr const char* rgbx_fragment = R"(#version 100
precision mediump float;
varying vec2 v_texcoord;
uniform sampler2D tex;
uniform float alpha;
void main() {
    gl_FragColor = vec4(texture2D(tex, v_texcoord).rgb, 1.0) * alpha;
}
)";

// BGR-ordered shm memory uploaded as RGBA: swap red and blue while sampling.
constexpr const char* bgra_fragment = R"(#version 100
precision mediump float;
varying vec2 v_texcoord;
uniform sampler2D tex;
uniform float alpha;
void main() {
    gl_FragColor = texture2D(tex, v_texcoord).bgra * alpha;
}
)";

constexpr const char* bgrx_fragment = R"(#version 100
precision mediump float;
varying vec2 v_texcoord;
uniform sampler2D tex;
uniform float alpha;
void main() {
    gl_FragColor = vec4(texture2D(tex, v_texcoord).bgr, 1.0) * alpha;
}
)";

constexpr const char* external_fragment = R"(#version 100
#extension GL_OES_EGL_image_external : require
precision mediump float;
varying vec2 v_texcoord;
uniform samplerExternalOES tex;
uniform float alpha;
void main() {
    gl_FragColor = texture2D(tex, v_texcoord) * alpha;
}
)";

// YUV sampled plane by plane (R8 luma; GR88 Cb,Cr pairs or R8 Cb and Cr planes), converted here because the driver
// will not import the whole buffer. `yuv_matrix` and `yuv_offset` carry the encoding (renderer/yuv.hpp), so one
// program serves BT.601, BT.709 and BT.2020 at either range and depth (R16/GR1616 planes sample the same);
// `chroma_offset` moves the chroma sampling point to where the encoder sited chroma.
constexpr const char* yuv_semiplanar_fragment = R"(#version 100
precision mediump float;
varying vec2 v_texcoord;
uniform sampler2D tex;
uniform sampler2D tex1;
uniform vec2 chroma_scale;
uniform vec2 chroma_offset;
uniform mat3 yuv_matrix;
uniform vec3 yuv_offset;
uniform float alpha;
void main() {
    vec3 yuv = vec3(texture2D(tex, v_texcoord).r, texture2D(tex1, (v_texcoord + chroma_offset) * chroma_scale).rg);
    gl_FragColor = vec4(clamp(yuv_matrix * (yuv - yuv_offset), 0.0, 1.0), 1.0) * alpha;
}
)";

constexpr const char* yuv_planar_fragment = R"(#version 100
precision mediump float;
varying vec2 v_texcoord;
uniform sampler2D tex;
uniform sampler2D tex1;
uniform sampler2D tex2;
uniform vec2 chroma_scale;
uniform vec2 chroma_offset;
uniform mat3 yuv_matrix;
uniform vec3 yuv_offset;
uniform float alpha;
void main() {
    vec2 c = (v_texcoord + chroma_offset) * chroma_scale;
    vec3 yuv = vec3(texture2D(tex, v_texcoord).r, texture2D(tex1, c).r, texture2D(tex2, c).r);
    gl_FragColor = vec4(clamp(yuv_matrix * (yuv - yuv_offset), 0.0, 1.0), 1.0) * alpha;
}
)";

// Straight alpha: the colour was not multiplied by alpha, so it is here.
constexpr const char* rgba_straight_fragment = R"(#version 100
precision mediump float;
varying vec2 v_texcoord;
uniform sampler2D tex;
uniform float alpha;
void main() {
    vec4 c = texture2D(tex, v_texcoord);
    gl_FragColor = vec4(c.rgb * c.a, c.a) * alpha;
}
)";

constexpr const char* bgra_straight_fragment = R"(#version 100
precision mediump float;
varying vec2 v_texcoord;
uniform sampler2D tex;
uniform float alpha;
void main() {
    vec4 c = texture2D(tex, v_texcoord).bgra;
    gl_FragColor = vec4(c.rgb * c.a, c.a) * alpha;
}
)";

// Premultiplied optical alpha: the buffer holds E = OETF(a L), the linear colour L multiplied by alpha before the
// sRGB curve encoded it; kiln blends a OETF(L) = a OETF(min(EOTF(E) / a, 1)) (0 where a is 0), worked out here.
constexpr const char* rgba_optical_fragment = R"(#version 100
#ifdef GL_FRAGMENT_PRECISION_HIGH
precision highp float;
#else
precision mediump float;
#endif
varying vec2 v_texcoord;
uniform sampler2D tex;
uniform float alpha;
vec3 eotf(vec3 e) {
    return mix(e / 12.92, pow((e + 0.055) / 1.055, vec3(2.4)), step(vec3(0.04045), e));
}
vec3 oetf(vec3 l) {
    return mix(l * 12.92, 1.055 * pow(l, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), l));
}
void main() {
    vec4 c = texture2D(tex, v_texcoord);
    vec3 l = c.a > 0.0 ? min(eotf(clamp(c.rgb, 0.0, 1.0)) / c.a, vec3(1.0)) : vec3(0.0);
    gl_FragColor = vec4(oetf(l) * c.a, c.a) * alpha;
}
)";

constexpr const char* bgra_optical_fragment = R"(#version 100
#ifdef GL_FRAGMENT_PRECISION_HIGH
precision highp float;
#else
precision mediump float;
#endif
varying vec2 v_texcoord;
uniform sampler2D tex;
uniform float alpha;
vec3 eotf(vec3 e) {
    return mix(e / 12.92, pow((e + 0.055) / 1.055, vec3(2.4)), step(vec3(0.04045), e));
}
vec3 oetf(vec3 l) {
    return mix(l * 12.92, 1.055 * pow(l, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), l));
}
void main() {
    vec4 c = texture2D(tex, v_texcoord).bgra;
    vec3 l = c.a > 0.0 ? min(eotf(clamp(c.rgb, 0.0, 1.0)) / c.a, vec3(1.0)) : vec3(0.0);
    gl_FragColor = vec4(oetf(l) * c.a, c.a) * alpha;
}
)";

ProgramSource make(const char* name, const char* fragment, uint32_t usage)
{
    return ProgramSource{name, quad_vertex, fragment, {{"pos", position_attribute}}, usage};
}

const std::array<ProgramSource, shader_variant_count> sources{
    make("solid", solid_fragment, usage_solid),
    make("texture_rgba", rgba_fragment, usage_shm | usage_dmabuf),
    make("texture_rgbx", rgbx_fragment, usage_shm | usage_dmabuf),
    make("texture_bgra", bgra_fragment, usage_shm),
    make("texture_bgrx", bgrx_fragment, usage_shm),
    make("texture_external", external_fragment, usage_dmabuf),
    make("texture_yuv_semiplanar", yuv_semiplanar_fragment, usage_dmabuf),
    make("texture_yuv_planar", yuv_planar_fragment, usage_dmabuf),
    make("texture_rgba_straight", rgba_straight_fragment, usage_shm | usage_dmabuf),
    make("texture_bgra_straight", bgra_straight_fragment, usage_shm),
    make("texture_rgba_optical", rgba_optical_fragment, usage_shm | usage_dmabuf),
    make("texture_bgra_optical", bgra_optical_fragment, usage_shm),
};

}  // namespace

const ProgramSource& shader_source(ShaderVariant variant)
{
    return sources[static_cast<size_t>(variant)];
}

std::array<const ProgramSource*, shader_variant_count> all_shader_sources()
{
    std::array<const ProgramSource*, shader_variant_count> all{};
    for (size_t i = 0; i < shader_variant_count; ++i)
        all[i] = &sources[i];
    return all;
}

}  // namespace kiln::renderer
