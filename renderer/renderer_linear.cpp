// Linear-light composition: a frame drawn into an FP16 intermediate in the output's primaries, blended there, then
// one encode pass into the target. doc/colour.md ("Composition in linear light") says when and why.
#include "renderer/renderer.hpp"

#include "renderer/colour/colour_shaders.hpp"

namespace kiln::renderer {

bool Renderer::begin_linear(std::string* error)
{
    if (!target_ || linear_)
        return linear_;
    if (!can_compose_linear(output_colour_) || linear_refused_)
        return false;
    if (!linear_target_ || linear_target_->width() != target_->width() ||
        linear_target_->height() != target_->height()) {
        linear_target_.reset();
        std::string why;
        linear_target_ = LinearTarget::create(target_->width(), target_->height(), why);
        if (!linear_target_) {
            // A driver without EXT_color_buffer_(half_)float: frames blend in the output's encoding, as before.
            if (error)
                *error = why;
            linear_refused_ = true;
            glBindFramebuffer(GL_FRAMEBUFFER, target_->framebuffer());
            return false;
        }
        ++stats_.linear_targets;
    }
    glBindFramebuffer(GL_FRAMEBUFFER, linear_target_->framebuffer());
    linear_ = true;
    ++stats_.linear_frames;
    return true;
}

bool Renderer::end_linear(std::span<const Box> boxes)
{
    if (!linear_)
        return false;
    linear_ = false;
    glBindFramebuffer(GL_FRAMEBUFFER, target_->framebuffer());
    const LinearEncode encode = linear_encode(output_colour_);
    const bool table = encode.table != nullptr;
    ProgramSlot& slot = encode_programs_[{encode.encode, table}];
    if (!slot.program && (slot.failed || !fetch(slot, linear_encode_program_source(encode.encode, table), nullptr)))
        return false;
    // Made before anything is bound to texture unit 0 for the pass (an upload binds on its own unit).
    const GLuint table_texture = table ? lut_texture(encode.table) : 0;
    if (table && !table_texture)
        return false;
    glUseProgram(slot.program.id());
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, linear_target_->texture());
    glUniform1i(slot.composed, 0);
    glUniform1f(slot.encode_scale, encode.scale);
    glUniform1f(slot.clip_max, encode.clip_max);
    if (encode.encode == TransferFunction::hlg && !table)
        glUniform1f(slot.hlg_out_gamma, encode.hlg_gamma);
    if (table) {
        bind_table(table_texture, colour_output_lut_unit, slot.out_lut, slot.out_lut_coord, encode.table->size);
    }
    // The encode pass replaces what the target held: the intermediate already is the blend of everything.
    glDisable(GL_BLEND);
    const std::optional<Box> scissor = scissor_;
    const Matrix3 whole{static_cast<float>(target_->width()), 0, 0, 0, static_cast<float>(target_->height()), 0,
                        0, 0, 1};
    for (const Box& box : boxes) {
        set_scissor(box);
        draw_quad(slot, whole);
    }
    set_scissor(scissor);
    glBindTexture(GL_TEXTURE_2D, 0);
    glEnable(GL_BLEND);
    return true;
}

Color Renderer::linear_of(Color color, bool premultiplied) const
{
    const double a = color.a;
    auto straight = [&](float v) { return premultiplied ? (a > 0 ? v / a : 0.0) : double(v); };
    // Whole colours: HLG's inverse OOTF and an ICC table mix the channels.
    const std::array<double, 3> linear =
        linear_of_encoded(output_colour_, {straight(color.r), straight(color.g), straight(color.b)});
    auto channel = [&](double v) { return static_cast<float>(premultiplied ? v * a : v); };
    return {channel(linear[0]), channel(linear[1]), channel(linear[2]), color.a};
}

}  // namespace kiln::renderer
