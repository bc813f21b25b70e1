// The renderer's colour conversion: a surface's description worked out into a pipeline, its program fetched by key,
// its uniforms set and its ICC table kept as a 3D texture.
#include "renderer/renderer.hpp"

#include "renderer/colour/colour_shaders.hpp"
#include "renderer/elapsed.hpp"

#include <algorithm>

namespace kiln::renderer {

void Renderer::set_output_colour(const ImageDescription& output)
{
    if (output.primaries == output_colour_.primaries && output.transfer == output_colour_.transfer &&
        output.icc == output_colour_.icc && output.output_table == output_colour_.output_table &&
        output.reference_white == output_colour_.reference_white &&
        output.min_luminance == output_colour_.min_luminance && output.max_luminance == output_colour_.max_luminance)
        return;
    output_colour_ = output;
    output_plain_ = output.is_plain_srgb();
    last_pipeline_.reset();
}

const ColourPipeline* Renderer::pipeline_for(const SurfaceColour& colour)
{
    // Many surfaces share one description and a frame draws each many times (one draw per damage rectangle).
    if (!last_pipeline_ || !(last_pipeline_->colour == colour) || last_pipeline_linear_ != linear_) {
        const CompositionSpace space = linear_ ? CompositionSpace::linear_light : CompositionSpace::output_encoding;
        last_pipeline_ = LastPipeline{colour, colour_pipeline(colour, output_colour_, space)};
        last_pipeline_linear_ = linear_;
    }
    return last_pipeline_->pipeline ? &*last_pipeline_->pipeline : nullptr;
}

Renderer::ProgramSlot* Renderer::colour_program(ShaderVariant sampling, const ColourKey& key)
{
    if (sampling == ShaderVariant::external && !has_external_)
        return nullptr;
    ProgramSlot& slot = colour_programs_[{sampling, key}];
    if (slot.program)
        return &slot;
    if (slot.failed)
        return nullptr;
    // A program that cannot be built (a driver without GL_OES_EGL_image_external_essl3, say) leaves the surface
    // drawn as it is, unconverted: wrong colours beat a missing window.
    return fetch(slot, colour_program_source(sampling, key), nullptr) ? &slot : nullptr;
}

bool Renderer::prepare_colour(ShaderVariant sampling, const ColourKey& key, std::string& error)
{
    display_.make_current();
    const auto fetch_start = Clock::now();
    ProgramSlot* slot = colour_program(sampling, key);
    prepare_times_.fetch_ms += ms_since(fetch_start);
    if (!slot) {
        error = "colour program " + colour_program_source(sampling, key).name + " cannot be built here";
        return false;
    }
    const bool rgb = sampling == ShaderVariant::rgba || sampling == ShaderVariant::rgbx ||
                     sampling == ShaderVariant::bgra || sampling == ShaderVariant::bgrx;
    if (slot->warmed || !rgb || key.lut)
        return true;
    // Its colour uniforms stay 0 (black): the draw only makes the driver compile what frames will run.
    const auto draw_start = Clock::now();
    const bool drawn = warm(sampling, *slot, error);
    prepare_times_.first_draw_ms += ms_since(draw_start);
    return drawn;
}

bool Renderer::set_colour(const ProgramSlot& slot, const ColourPipeline& pipeline)
{
    // Made (and so bound to colour_lut_unit once) before the surface's table is bound there.
    const GLuint output_texture = pipeline.key.encode_lut ? lut_texture(pipeline.output_lut) : 0;
    if (pipeline.key.encode_lut && !output_texture)
        return false;
    glUniform1f(slot.clip_max, pipeline.clip_max);
    if (pipeline.key.matrix) {
        const std::array<float, 9>& m = pipeline.matrix;
        const GLfloat column_major[9] = {m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]};
        glUniformMatrix3fv(slot.colour_matrix, 1, GL_FALSE, column_major);
    }
    if (pipeline.key.tone == ToneMap::bt2390)
        glUniform4f(slot.eetf, pipeline.eetf[0], pipeline.eetf[1], pipeline.eetf[2], pipeline.eetf[3]);
    if (pipeline.key.tone == ToneMap::hlg_ootf)
        glUniform2f(slot.hlg, pipeline.hlg[0], pipeline.hlg[1]);
    if (pipeline.key.lut) {
        const GLuint texture = lut_texture(pipeline.lut);
        if (!texture)
            return false;
        bind_table(texture, colour_lut_unit, slot.lut, slot.lut_coord, pipeline.lut->size);
    }
    if (pipeline.key.encode == TransferFunction::hlg && !pipeline.key.encode_lut)
        glUniform1f(slot.hlg_out_gamma, pipeline.hlg_out_gamma);
    if (pipeline.key.encode_lut) {
        bind_table(output_texture, colour_output_lut_unit, slot.out_lut, slot.out_lut_coord, pipeline.output_lut->size);
    }
    return true;
}

void Renderer::bind_table(GLuint texture, GLint unit, GLint sampler, GLint coord, int size)
{
    glActiveTexture(GL_TEXTURE0 + unit);
    glBindTexture(GL_TEXTURE_3D, texture);
    glActiveTexture(GL_TEXTURE0);
    glUniform1i(sampler, unit);
    // Texel centres: encoded 0 samples the first entry, 1 the last, linearly in between.
    const float n = static_cast<float>(size);
    glUniform2f(coord, (n - 1.0f) / n, 0.5f / n);
}

GLuint Renderer::lut_texture(const std::shared_ptr<const IccTable>& table)
{
    std::erase_if(luts_, [](const LutTexture& lut) { return lut.table.expired(); });
    for (const LutTexture& lut : luts_)
        if (lut.key == table.get())
            return lut.texture.id();
    GlTexture texture = make_texture();
    glActiveTexture(GL_TEXTURE0 + colour_lut_unit);
    glBindTexture(GL_TEXTURE_3D, texture.id());
    glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_WRAP_R, GL_CLAMP_TO_EDGE);
    // Texture uploads elsewhere leave row lengths and skips set: a table is tightly packed.
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glPixelStorei(GL_UNPACK_IMAGE_HEIGHT, 0);
    glPixelStorei(GL_UNPACK_SKIP_PIXELS, 0);
    glPixelStorei(GL_UNPACK_SKIP_ROWS, 0);
    glPixelStorei(GL_UNPACK_SKIP_IMAGES, 0);
    while (glGetError() != GL_NO_ERROR) {
    }
    // Half floats: filterable everywhere in GLES 3 (32-bit float textures need an extension to filter).
    const GLsizei n = table->size;
    glTexImage3D(GL_TEXTURE_3D, 0, GL_RGB16F, n, n, n, 0, GL_RGB, GL_FLOAT, table->xyz.data());
    const bool ok = glGetError() == GL_NO_ERROR;
    glActiveTexture(GL_TEXTURE0);
    if (!ok)
        return 0;
    luts_.push_back({table, table.get(), std::move(texture)});
    return luts_.back().texture.id();
}

}  // namespace kiln::renderer
