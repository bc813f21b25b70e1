// The renderer's YUV pass: plane textures bound side by side and converted in kiln's shader with the texture's
// encoding (BT.601/BT.709/BT.2020, limited/full range, chroma siting) at the planes' depth.
#include "renderer/renderer.hpp"

#include "renderer/formats.hpp"
#include "renderer/yuv.hpp"

namespace kiln::renderer {
namespace {

Matrix3 column_major(const Matrix3& m)
{
    return {m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]};
}

ShaderVariant variant_for(YuvShape shape)
{
    return shape == YuvShape::planar ? ShaderVariant::yuv_planar : ShaderVariant::yuv_semiplanar;
}

}  // namespace

bool Renderer::draw_planes(Texture& texture, FBox source, const Matrix3& matrix, float alpha,
                           const ColourPipeline* colour)
{
    const ShaderVariant variant = variant_for(texture.yuv_layout().shape);
    if (colour)
        if (const ProgramSlot* slot = colour_program(variant, colour->key))
            return draw_planes_with(*slot, texture, source, matrix, alpha, colour);
    const ProgramSlot* slot = program(variant);
    if (!slot)
        return false;
    return draw_planes_with(*slot, texture, source, matrix, alpha);
}

bool Renderer::draw_planes_with(const ProgramSlot& slot, Texture& texture, FBox source, const Matrix3& matrix,
                                float alpha, const ColourPipeline* colour)
{
    glUseProgram(slot.program.id());
    if (colour && !set_colour(slot, *colour))
        return false;
    for (uint32_t i = 0; i < texture.plane_count(); ++i) {
        glActiveTexture(GL_TEXTURE0 + i);
        glBindTexture(GL_TEXTURE_2D, texture.plane_id(i));
    }
    glUniform1i(slot.tex, 0);
    for (uint32_t i = 1; i < texture.plane_count(); ++i)
        glUniform1i(slot.chroma_tex[i - 1], static_cast<GLint>(i));
    const YuvLayout& layout = texture.yuv_layout();
    glUniform2f(slot.chroma_scale, layout.chroma_scale_x, layout.chroma_scale_y);
    const auto shift = chroma_offset(texture.yuv_encoding(), layout, texture.width(), texture.height());
    glUniform2f(slot.chroma_offset, shift[0], shift[1]);
    const YuvConversion conversion = yuv_conversion(texture.yuv_encoding(), layout.depth);
    const Matrix3 yuv_gl = column_major(conversion.matrix);
    glUniformMatrix3fv(slot.yuv_matrix, 1, GL_FALSE, yuv_gl.data());
    glUniform3f(slot.yuv_offset, conversion.offset[0], conversion.offset[1], conversion.offset[2]);
    glUniform1f(slot.alpha, alpha);
    set_source(slot, texture, source);  // luma coordinates: the shader scales them for chroma
    draw_quad(slot, matrix);
    for (uint32_t i = texture.plane_count(); i-- > 0;) {
        glActiveTexture(GL_TEXTURE0 + i);
        glBindTexture(GL_TEXTURE_2D, 0);
    }
    return true;
}

bool Renderer::prepare_planes(ShaderVariant variant, ProgramSlot& slot, std::string& error)
{
    // llvmpipe keys its compiled shaders on the sampled formats, so warming uses R8/RG8 planes like real buffers.
    auto& scratch = scratch_yuv_[variant == ShaderVariant::yuv_planar ? 1 : 0];
    if (!scratch) {
        const uint8_t luma[4] = {16, 16, 16, 16};
        const uint8_t chroma[2] = {128, 128};
        const uint32_t code = variant == ShaderVariant::yuv_planar ? fourcc::yuv420 : fourcc::nv12;
        scratch = Texture::from_yuv_memory(code, 2, 2, {luma, chroma, chroma}, error);
        if (!scratch)
            return false;
    }
    if (!scratch_target_) {
        scratch_target_ = RenderTarget::for_cpu(fourcc::xrgb8888, 1, 1, error);
        if (!scratch_target_)
            return false;
    }
    glBindFramebuffer(GL_FRAMEBUFFER, scratch_target_->framebuffer());
    glViewport(0, 0, 1, 1);
    glEnable(GL_BLEND);
    glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    RenderTarget* previous = target_;
    target_ = scratch_target_.get();
    draw_planes_with(slot, *scratch, {0, 0, 2, 2}, Matrix3{1, 0, 0, 0, 1, 0, 0, 0, 1}, 1.0f);
    glFinish();
    target_ = previous;
    slot.warmed = true;
    return true;
}

}  // namespace kiln::renderer
