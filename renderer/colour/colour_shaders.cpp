// Colour conversion programs written out from their key: sampling, un-premultiply, decode (or ICC table), tone map,
// matrix, clip, encode, re-premultiply. The formulas mirror renderer/colour/{transfer,tone_curve}.cpp, which the GL
// tests hold them to.
#include "renderer/colour/colour_shaders.hpp"

#include "renderer/colour/colour_variant.hpp"

#include <string>

namespace kiln::renderer {
namespace {

constexpr const char* vertex_300 = R"(#version 300 es
uniform mat3 proj;
uniform mat3 tex_proj;
in vec2 pos;
out vec2 v_texcoord;
void main() {
    vec3 p = proj * vec3(pos, 1.0);
    gl_Position = vec4(p.xy, 0.0, 1.0);
    v_texcoord = (tex_proj * vec3(pos, 1.0)).xy;
}
)";

// Each sampling variant's declarations and the statement giving `c`, premultiplied RGBA as the buffer holds it.
struct Sampling {
    const char* declarations;
    const char* sample;
};

constexpr const char* optical_declarations =
    "uniform sampler2D tex;\n"
    "vec4 optical(vec4 c) {\n"
    "    vec3 e = clamp(c.rgb, 0.0, 1.0);\n"
    "    vec3 l = mix(e / 12.92, pow((e + 0.055) / 1.055, vec3(2.4)), step(vec3(0.04045), e));\n"
    "    l = c.a > 0.0 ? min(l / c.a, vec3(1.0)) : vec3(0.0);\n"
    "    e = mix(l * 12.92, 1.055 * pow(l, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), l));\n"
    "    return vec4(e * c.a, c.a);\n"
    "}\n";

Sampling sampling_of(ShaderVariant variant)
{
    switch (variant) {
    case ShaderVariant::rgba:
        return {"uniform sampler2D tex;\n", "vec4 c = texture(tex, v_texcoord);\n"};
    case ShaderVariant::rgbx:
        return {"uniform sampler2D tex;\n", "vec4 c = vec4(texture(tex, v_texcoord).rgb, 1.0);\n"};
    case ShaderVariant::bgra:
        return {"uniform sampler2D tex;\n", "vec4 c = texture(tex, v_texcoord).bgra;\n"};
    case ShaderVariant::bgrx:
        return {"uniform sampler2D tex;\n", "vec4 c = vec4(texture(tex, v_texcoord).bgr, 1.0);\n"};
    case ShaderVariant::external:
        return {"uniform samplerExternalOES tex;\n", "vec4 c = texture(tex, v_texcoord);\n"};
    case ShaderVariant::yuv_semiplanar:
        return {"uniform sampler2D tex;\nuniform sampler2D tex1;\nuniform vec2 chroma_scale;\n"
                "uniform vec2 chroma_offset;\nuniform mat3 yuv_matrix;\nuniform vec3 yuv_offset;\n",
                "vec2 cc = (v_texcoord + chroma_offset) * chroma_scale;\n"
                "    vec3 yuv = vec3(texture(tex, v_texcoord).r, texture(tex1, cc).rg);\n"
                "    vec4 c = vec4(clamp(yuv_matrix * (yuv - yuv_offset), 0.0, 1.0), 1.0);\n"};
    case ShaderVariant::yuv_planar:
        return {"uniform sampler2D tex;\nuniform sampler2D tex1;\nuniform sampler2D tex2;\nuniform vec2 chroma_scale;\n"
                "uniform vec2 chroma_offset;\nuniform mat3 yuv_matrix;\nuniform vec3 yuv_offset;\n",
                "vec2 cc = (v_texcoord + chroma_offset) * chroma_scale;\n"
                "    vec3 yuv = vec3(texture(tex, v_texcoord).r, texture(tex1, cc).r, texture(tex2, cc).r);\n"
                "    vec4 c = vec4(clamp(yuv_matrix * (yuv - yuv_offset), 0.0, 1.0), 1.0);\n"};
    // Straight and premultiplied optical alpha become the premultiplied electrical values the steps below expect
    // (optical through the sRGB curve, as renderer/shaders.cpp does: a OETF(min(EOTF(E) / a, 1))).
    case ShaderVariant::rgba_straight:
        return {"uniform sampler2D tex;\n", "vec4 c = texture(tex, v_texcoord);\n    c.rgb *= c.a;\n"};
    case ShaderVariant::bgra_straight:
        return {"uniform sampler2D tex;\n", "vec4 c = texture(tex, v_texcoord).bgra;\n    c.rgb *= c.a;\n"};
    case ShaderVariant::rgba_optical:
        return {optical_declarations, "vec4 c = optical(texture(tex, v_texcoord));\n"};
    case ShaderVariant::bgra_optical:
        return {optical_declarations, "vec4 c = optical(texture(tex, v_texcoord).bgra);\n"};
    case ShaderVariant::solid:
    case ShaderVariant::count:
        break;
    }
    return {"uniform sampler2D tex;\n", "vec4 c = texture(tex, v_texcoord);\n"};
}

// Decoding curves, on |v| with the sign given back for the SDR ones (extended-range values survive).
const char* decode_function(TransferFunction tf)
{
    switch (tf) {
    case TransferFunction::srgb:
        return "vec3 decode(vec3 v) {\n"
               "    vec3 a = abs(v);\n"
               "    return sign(v) * mix(a / 12.92, pow((a + 0.055) / 1.055, vec3(2.4)), step(0.04045, a));\n"
               "}\n";
    case TransferFunction::gamma22:
        return "vec3 decode(vec3 v) { return sign(v) * pow(abs(v), vec3(2.2)); }\n";
    case TransferFunction::bt1886:
        return "vec3 decode(vec3 v) { return sign(v) * pow(abs(v), vec3(2.4)); }\n";
    case TransferFunction::st2084_pq:
        // SMPTE ST 2084: 1.0 is 10,000 cd/m².
        return "vec3 decode(vec3 v) {\n"
               "    const float m1 = 2610.0 / 16384.0;\n"
               "    const float m2 = 2523.0 / 4096.0 * 128.0;\n"
               "    const float c1 = 3424.0 / 4096.0;\n"
               "    const float c2 = 2413.0 / 4096.0 * 32.0;\n"
               "    const float c3 = 2392.0 / 4096.0 * 32.0;\n"
               "    vec3 p = pow(clamp(v, 0.0, 1.0), vec3(1.0 / m2));\n"
               "    return pow(max(p - c1, 0.0) / (c2 - c3 * p), vec3(1.0 / m1));\n"
               "}\n";
    case TransferFunction::hlg:
        // ARIB STD-B67 inverse OETF: scene light 0..1.
        return "vec3 decode(vec3 v) {\n"
               "    const float a = 0.17883277;\n"
               "    const float b = 1.0 - 4.0 * a;\n"
               "    const float c = 0.5 - a * log(4.0 * a);\n"
               "    vec3 e = clamp(v, 0.0, 1.0);\n"
               "    return mix(e * e / 3.0, (exp((e - c) / a) + b) / 12.0, step(0.5, e));\n"
               "}\n";
    case TransferFunction::ext_linear:
        return "vec3 decode(vec3 v) { return v; }\n";
    }
    return "vec3 decode(vec3 v) { return v; }\n";
}

// Encoding for the output (values already clipped to its range: 0..1, or PQ's absolute 0..peak/10,000).
const char* encode_function(TransferFunction tf)
{
    switch (tf) {
    case TransferFunction::gamma22:
        return "vec3 encode(vec3 v) { return pow(v, vec3(1.0 / 2.2)); }\n";
    case TransferFunction::bt1886:
        return "vec3 encode(vec3 v) { return pow(v, vec3(1.0 / 2.4)); }\n";
    case TransferFunction::ext_linear:
        return "vec3 encode(vec3 v) { return v; }\n";
    case TransferFunction::st2084_pq:
        return "vec3 encode(vec3 v) {\n"
               "    const float m1 = 2610.0 / 16384.0;\n"
               "    const float m2 = 2523.0 / 4096.0 * 128.0;\n"
               "    const float c1 = 3424.0 / 4096.0;\n"
               "    const float c2 = 2413.0 / 4096.0 * 32.0;\n"
               "    const float c3 = 2392.0 / 4096.0 * 32.0;\n"
               "    vec3 y = pow(v, vec3(m1));\n"
               "    return pow((c1 + c2 * y) / (1.0 + c3 * y), vec3(m2));\n"
               "}\n";
    case TransferFunction::hlg:
        // BT.2100 HLG: display light relative to the nominal peak (0..1) → scene light through the inverse OOTF
        // (Y_s = Y_d^(1/gamma), BT.2020 luminance weights), then the OETF.
        return "uniform float hlg_out_gamma;\n"
               "vec3 encode(vec3 v) {\n"
               "    const float a = 0.17883277;\n"
               "    const float b = 1.0 - 4.0 * a;\n"
               "    const float c = 0.5 - a * log(4.0 * a);\n"
               "    float yd = dot(vec3(0.2627, 0.6780, 0.0593), v);\n"
               "    vec3 e = yd > 0.0 ? v * pow(yd, (1.0 - hlg_out_gamma) / hlg_out_gamma) : vec3(0.0);\n"
               "    return mix(sqrt(3.0 * e), a * log(max(12.0 * e - b, 1e-6)) + c, step(1.0 / 12.0, e));\n"
               "}\n";
    default:
        return "vec3 encode(vec3 v) {\n"
               "    return mix(v * 12.92, 1.055 * pow(v, vec3(1.0 / 2.4)) - 0.055, step(0.0031308, v));\n"
               "}\n";
    }
}

// An ICC output's table, indexed by linear light raised to 1/2.4 (IccTable), gives its device values.
constexpr const char* output_table_encode =
    "uniform sampler3D out_lut;\nuniform vec2 out_lut_coord;\n"
    "vec3 encode(vec3 v) { return texture(out_lut, pow(v, vec3(1.0 / 2.4)) * out_lut_coord.x + out_lut_coord.y).rgb; }\n";

// BT.2390-4 5.4 per channel in the PQ domain; eetf = (source black, source span, target min, target max), the
// targets normalised to the source span (tone_curve.cpp's bt2390_eetf).
constexpr const char* eetf_function = R"(uniform vec4 eetf;
vec3 tone_map(vec3 e) {
    vec3 e1 = clamp((e - eetf.x) / eetf.y, 0.0, 1.0);
    float knee = 1.5 * eetf.w - 0.5;
    vec3 t = (e1 - knee) / max(1.0 - knee, 1e-6);
    vec3 t2 = t * t;
    vec3 t3 = t2 * t;
    vec3 spline = (2.0 * t3 - 3.0 * t2 + 1.0) * knee + (t3 - 2.0 * t2 + t) * (1.0 - knee) + (-2.0 * t3 + 3.0 * t2) * eetf.w;
    vec3 e2 = knee < 1.0 ? mix(e1, spline, step(knee, e1)) : e1;
    vec3 e3 = e2 + eetf.z * pow(max(1.0 - e2, 0.0), vec3(4.0));
    return e3 * eetf.y + eetf.x;
}
)";

// BT.2100 HLG OOTF; hlg = (display peak cd/m², system gamma); BT.2020 luminance weights.
constexpr const char* ootf_function = R"(uniform vec2 hlg;
vec3 ootf(vec3 rgb) {
    float ys = dot(vec3(0.2627, 0.6780, 0.0593), rgb);
    return ys > 0.0 ? hlg.x * pow(ys, hlg.y - 1.0) * rgb : vec3(0.0);
}
)";

}  // namespace

ProgramSource colour_program_source(ShaderVariant sampling, const ColourKey& key)
{
    const Sampling s = sampling_of(sampling);
    std::string f = "#version 300 es\n";
    if (sampling == ShaderVariant::external)
        f += "#extension GL_OES_EGL_image_external_essl3 : require\n";
    // highp: PQ's exponents (78.8, 1/0.159) lose whole code values at mediump.
    f += "precision highp float;\nprecision highp sampler3D;\n"
         "in vec2 v_texcoord;\nout vec4 frag;\nuniform float alpha;\nuniform float clip_max;\n";
    f += s.declarations;
    if (key.matrix)
        f += "uniform mat3 colour_matrix;\n";
    if (key.lut) {
        f += "uniform sampler3D lut;\nuniform vec2 lut_coord;\n";
    } else {
        f += decode_function(key.decode);
        if (key.tone == ToneMap::bt2390)
            f += eetf_function;
        else if (key.tone == ToneMap::hlg_ootf)
            f += ootf_function;
    }
    if (key.encode_lut)
        f += output_table_encode;
    else
        f += encode_function(key.encode);
    f += "void main() {\n    ";
    f += s.sample;
    // Premultiplied in, premultiplied out: the curves apply to the colour, not to colour times coverage.
    f += "    vec3 rgb = c.a > 0.0 ? c.rgb / c.a : vec3(0.0);\n";
    if (key.lut) {
        f += "    rgb = texture(lut, clamp(rgb, 0.0, 1.0) * lut_coord.x + lut_coord.y).rgb;\n";
    } else {
        if (key.tone == ToneMap::bt2390)
            f += "    rgb = tone_map(rgb);\n";
        f += "    rgb = decode(rgb);\n";
        if (key.tone == ToneMap::hlg_ootf)
            f += "    rgb = ootf(rgb);\n";
    }
    if (key.matrix)
        f += "    rgb = colour_matrix * rgb;\n";
    // What lies beyond the output's gamut or above its top (SDR: its white; PQ: its peak) is clipped.
    f += "    rgb = encode(clamp(rgb, 0.0, clip_max));\n";
    f += "    frag = vec4(rgb * c.a, c.a) * alpha;\n}\n";

    // The name is the variant itself: the precompile list records it, and a warm start reads it back.
    const std::string name = colour_program_name({sampling, key});
    return ProgramSource{name, vertex_300, f, {{"pos", position_attribute}}, shader_source(sampling).usage_bits};
}

ProgramSource linear_encode_program_source(TransferFunction encode, bool table)
{
    std::string f = "#version 300 es\nprecision highp float;\nprecision highp sampler2D;\nprecision highp sampler3D;\n"
                    "out vec4 frag;\nuniform sampler2D composed;\nuniform float scale;\nuniform float clip_max;\n";
    // The same encodings as the conversion programs' last step (HLG: inverse OOTF with hlg_out_gamma, then OETF).
    f += table ? output_table_encode : encode_function(encode);
    // The intermediate has the target's size and orientation: texel (x, y) is pixel (x, y).
    f += "void main() {\n"
         "    vec4 c = texelFetch(composed, ivec2(gl_FragCoord.xy), 0);\n"
         "    vec3 rgb = c.a > 0.0 ? c.rgb / c.a : vec3(0.0);\n"
         "    rgb = encode(clamp(rgb * scale, 0.0, clip_max));\n"
         "    frag = vec4(rgb * c.a, c.a);\n}\n";
    return ProgramSource{"linear_encode_to_" + std::string(table ? "icc" : transfer_name(encode)), vertex_300, f,
                         {{"pos", position_attribute}}, 0};
}

}  // namespace kiln::renderer
