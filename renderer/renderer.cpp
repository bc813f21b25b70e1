// Frame passes: quads drawn with premultiplied blending into the bound target, scissored to damage.
#include "renderer/renderer.hpp"

#include "renderer/elapsed.hpp"
#include "renderer/formats.hpp"

#include <GLES2/gl2ext.h>

#include <algorithm>
#include <array>
#include <sys/sysmacros.h>

namespace kiln::renderer {
namespace {

// The unit square as a triangle strip.
constexpr std::array<GLfloat, 8> unit_quad{0, 0, 1, 0, 0, 1, 1, 1};

const std::array<uint32_t, 2> cpu_formats{fourcc::xrgb8888, fourcc::argb8888};

// Row-major a * b.
Matrix3 multiply(const Matrix3& a, const Matrix3& b)
{
    Matrix3 out{};
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            out[r * 3 + c] = a[r * 3] * b[c] + a[r * 3 + 1] * b[3 + c] + a[r * 3 + 2] * b[6 + c];
    return out;
}

// GLES wants column-major with transpose = GL_FALSE.
Matrix3 transpose(const Matrix3& m)
{
    return {m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]};
}

// The program that turns `mode`'s alpha into premultiplied electrical values while sampling an RGBA/BGRA texture.
ShaderVariant with_alpha_mode(ShaderVariant variant, AlphaMode mode)
{
    const bool bgra = variant == ShaderVariant::bgra;
    switch (mode) {
    case AlphaMode::straight: return bgra ? ShaderVariant::bgra_straight : ShaderVariant::rgba_straight;
    case AlphaMode::premultiplied_optical: return bgra ? ShaderVariant::bgra_optical : ShaderVariant::rgba_optical;
    case AlphaMode::premultiplied_electrical: break;
    }
    return variant;
}

}  // namespace

std::unique_ptr<Renderer> Renderer::create(EglDisplay& display, ProgramCache& programs, std::string& error)
{
    if (!display.make_current()) {
        error = "cannot make the EGL context current";
        return nullptr;
    }
    std::unique_ptr<Renderer> renderer(new Renderer(display, programs));
    renderer->bgra_read_ = display.has_gl_extension("GL_EXT_read_format_bgra");
    renderer->has_external_ = display.has_gl_extension("GL_OES_EGL_image_external");
    std::string device;
    if (auto dev = display.main_device())
        device = std::to_string(major(*dev)) + ":" + std::to_string(minor(*dev));
    programs.context_ready(display.handle(), device);
    return renderer;
}

Renderer::~Renderer()
{
    display_.make_current();
    for (auto& slot : programs_)
        slot.program.reset();
    colour_programs_.clear();
    encode_programs_.clear();
    linear_target_.reset();
    luts_.clear();
    scratch_target_.reset();
    scratch_texture_.reset();
    for (auto& texture : scratch_yuv_)
        texture.reset();
    cache_.context_lost();
}

std::vector<ShaderVariant> Renderer::variants() const
{
    std::vector<ShaderVariant> out;
    for (size_t i = 0; i < shader_variant_count; ++i)
        if (static_cast<ShaderVariant>(i) != ShaderVariant::external || has_external_)
            out.push_back(static_cast<ShaderVariant>(i));
    return out;
}

Renderer::ProgramSlot* Renderer::program(ShaderVariant variant, std::string* error)
{
    ProgramSlot& slot = programs_[static_cast<size_t>(variant)];
    if (slot.program)
        return &slot;
    if (slot.failed || (variant == ShaderVariant::external && !has_external_)) {
        if (error)
            *error = "program " + shader_source(variant).name + " is not available";
        return nullptr;
    }
    return fetch(slot, shader_source(variant), error) ? &slot : nullptr;
}

bool Renderer::fetch(ProgramSlot& slot, const ProgramSource& source, std::string* error)
{
    std::string why;
    auto result = cache_.get(source, why);
    if (!result) {
        slot.failed = true;  // a program that failed once fails again: do not retry every frame
        if (error)
            *error = "program " + source.name + ": " + why;
        return false;
    }
    slot.program = std::move(result->program);
    const GLuint id = slot.program.id();
    slot.proj = glGetUniformLocation(id, "proj");
    slot.tex_proj = glGetUniformLocation(id, "tex_proj");
    slot.tex = glGetUniformLocation(id, "tex");
    slot.alpha = glGetUniformLocation(id, "alpha");
    slot.color = glGetUniformLocation(id, "color");
    slot.chroma_tex[0] = glGetUniformLocation(id, "tex1");
    slot.chroma_tex[1] = glGetUniformLocation(id, "tex2");
    slot.chroma_scale = glGetUniformLocation(id, "chroma_scale");
    slot.chroma_offset = glGetUniformLocation(id, "chroma_offset");
    slot.yuv_matrix = glGetUniformLocation(id, "yuv_matrix");
    slot.yuv_offset = glGetUniformLocation(id, "yuv_offset");
    slot.colour_matrix = glGetUniformLocation(id, "colour_matrix");
    slot.eetf = glGetUniformLocation(id, "eetf");
    slot.hlg = glGetUniformLocation(id, "hlg");
    slot.lut = glGetUniformLocation(id, "lut");
    slot.lut_coord = glGetUniformLocation(id, "lut_coord");
    slot.clip_max = glGetUniformLocation(id, "clip_max");
    slot.hlg_out_gamma = glGetUniformLocation(id, "hlg_out_gamma");
    slot.out_lut = glGetUniformLocation(id, "out_lut");
    slot.out_lut_coord = glGetUniformLocation(id, "out_lut_coord");
    slot.composed = glGetUniformLocation(id, "composed");
    slot.encode_scale = glGetUniformLocation(id, "scale");
    return true;
}

bool Renderer::prepare(ShaderVariant variant, std::string& error)
{
    display_.make_current();
    const auto fetch_start = Clock::now();
    ProgramSlot* slot = program(variant, &error);
    prepare_times_.fetch_ms += ms_since(fetch_start);
    if (!slot)
        return false;
    if (slot->warmed || variant == ShaderVariant::external)
        return true;  // an external program needs an external image to draw with; it warms on first use
    const auto draw_start = Clock::now();
    const bool drawn = warm(variant, *slot, error);
    prepare_times_.first_draw_ms += ms_since(draw_start);
    return drawn;
}

bool Renderer::warm(ShaderVariant variant, ProgramSlot& slot, std::string& error)
{
    if (variant == ShaderVariant::yuv_semiplanar || variant == ShaderVariant::yuv_planar)
        return prepare_planes(variant, slot, error);
    if (!scratch_target_) {
        scratch_target_ = RenderTarget::for_cpu(fourcc::xrgb8888, 1, 1, error);
        uint32_t texel = 0xffffffff;
        // Its upload is not a client's: counted apart, so buffers.shm_upload_bytes is client bytes only.
        scratch_texture_ = Texture::from_shm({fourcc::abgr8888, 1, 1, 4, &texel}, scratch_stats_, error);
        if (!scratch_target_ || !scratch_texture_)
            return false;
    }
    // Same state as a real frame (blending on, RGBA target, RGBA texture) so the driver compiles the variant that
    // frames will use.
    glBindFramebuffer(GL_FRAMEBUFFER, scratch_target_->framebuffer());
    glViewport(0, 0, 1, 1);
    glEnable(GL_BLEND);
    glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    RenderTarget* previous = target_;
    target_ = scratch_target_.get();
    const Matrix3 unit{1, 0, 0, 0, 1, 0, 0, 0, 1};
    if (variant == ShaderVariant::solid)
        draw_solid({0, 0, 0, 0}, unit);
    else
        draw_with(slot, *scratch_texture_, {0, 0, 1, 1}, unit, 1.0f);
    glFinish();
    target_ = previous;
    slot.warmed = true;
    return true;
}

std::span<const uint32_t> Renderer::shm_formats() const
{
    return kiln::renderer::shm_formats();
}

std::span<const uint32_t> Renderer::cpu_target_formats()
{
    return cpu_formats;
}

std::unique_ptr<Texture> Renderer::create_shm_texture(const ShmDescription& desc, std::string& error)
{
    return Texture::from_shm(desc, stats_, error, shm_cpu_copies_);
}

std::unique_ptr<Texture> Renderer::import_dmabuf(const DmabufAttributes& attributes, std::string& error,
                                                 DmabufCheck* check, YuvEncoding encoding)
{
    DmabufCheck result = validate_dmabuf(attributes, display_.dmabuf_formats());
    if (check)
        *check = result;
    if (!result.ok()) {
        ++stats_.dmabuf_rejected;
        error = result.reason;
        return nullptr;
    }
    bool external_only = false;
    bool through_planes = false;
    for (const auto& fm : display_.dmabuf_formats())
        if (fm.fourcc == attributes.fourcc && fm.modifier == attributes.modifier) {
            external_only = fm.external_only;
            through_planes = fm.through_planes;
        }
    if (through_planes)
        return Texture::from_dmabuf_planes(display_, attributes, encoding, stats_, error);
    if (external_only && !has_external_) {
        error = "the format needs external textures, which this driver lacks";
        return nullptr;
    }
    return Texture::from_dmabuf(display_, attributes, external_only, stats_, error, encoding);
}

std::unique_ptr<RenderTarget> Renderer::create_dmabuf_target(const DmabufAttributes& attributes, std::string& error)
{
    // Output buffers come from kiln's own allocator, but are checked like any other before EGL sees them.
    DmabufCheck check = validate_dmabuf(attributes, display_.dmabuf_formats());
    if (!check.ok()) {
        error = check.reason;
        return nullptr;
    }
    auto target = RenderTarget::for_dmabuf(display_, attributes, error);
    if (target)
        ++stats_.dmabuf_targets;
    return target;
}

std::unique_ptr<RenderTarget> Renderer::create_cpu_target(uint32_t fourcc, int32_t width, int32_t height,
                                                          std::string& error)
{
    auto target = RenderTarget::for_cpu(fourcc, width, height, error);
    if (target)
        ++stats_.cpu_targets;
    return target;
}

void Renderer::begin(RenderTarget& target)
{
    display_.make_current();
    target_ = &target;
    last_target_ = &target;
    glBindFramebuffer(GL_FRAMEBUFFER, target.framebuffer());
    glViewport(0, 0, target.width(), target.height());
    glDisable(GL_SCISSOR_TEST);
    glEnable(GL_BLEND);
    glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    scissor_.reset();
    frame_damage_.reset();
    frame_full_ = false;
    linear_ = false;
    ++stats_.frames;
}

void Renderer::touched()
{
    if (!scissor_) {
        frame_full_ = true;
        return;
    }
    if (!frame_damage_) {
        frame_damage_ = scissor_;
        return;
    }
    const int32_t x0 = std::min(frame_damage_->x, scissor_->x);
    const int32_t y0 = std::min(frame_damage_->y, scissor_->y);
    const int32_t x1 = std::max(frame_damage_->x + frame_damage_->width, scissor_->x + scissor_->width);
    const int32_t y1 = std::max(frame_damage_->y + frame_damage_->height, scissor_->y + scissor_->height);
    frame_damage_ = Box{x0, y0, x1 - x0, y1 - y0};
}

bool Renderer::end(bool complete)
{
    if (!target_)
        return false;
    glDisable(GL_SCISSOR_TEST);
    glEnable(GL_BLEND);
    bool ok = true;
    if (!complete) {
        glFlush();
    } else if (target_->is_cpu()) {
        if (frame_full_)
            ok = target_->read_back(bgra_read_, stats_);
        else if (frame_damage_)
            ok = target_->read_back(bgra_read_, stats_, frame_damage_);
    } else {
        // A software driver draws on the CPU: finish so the buffer is whole before the output shows it.
        // Hardware drivers only need the flush; the kernel's implicit fences order the scan-out.
        if (display_.kind() == DisplayKind::gbm)
            glFlush();
        else
            glFinish();
    }
    target_ = nullptr;
    linear_ = false;
    return ok;
}

void Renderer::clear(Color color)
{
    touched();
    if (linear_)
        color = linear_of(color, false);
    glClearColor(color.r, color.g, color.b, color.a);
    glClear(GL_COLOR_BUFFER_BIT);
}

void Renderer::set_scissor(std::optional<Box> box)
{
    scissor_ = box;
    if (!box) {
        glDisable(GL_SCISSOR_TEST);
        return;
    }
    // Target row 0 is framebuffer row 0: no flip.
    glScissor(box->x, box->y, box->width, box->height);
    glEnable(GL_SCISSOR_TEST);
}

void Renderer::set_blending(bool on)
{
    if (on)
        glEnable(GL_BLEND);
    else
        glDisable(GL_BLEND);
}

void Renderer::draw_quad(const ProgramSlot& slot, const Matrix3& matrix)
{
    const float w = target_ ? static_cast<float>(target_->width()) : 1.0f;
    const float h = target_ ? static_cast<float>(target_->height()) : 1.0f;
    // Target pixels (y down, row 0 first in memory) to normalised device coordinates.
    const Matrix3 projection{2.0f / w, 0, -1, 0, 2.0f / h, -1, 0, 0, 1};
    const Matrix3 gl_matrix = transpose(multiply(projection, matrix));
    glUniformMatrix3fv(slot.proj, 1, GL_FALSE, gl_matrix.data());
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    if (target_ && target_ != scratch_target_.get())
        touched();
    glVertexAttribPointer(position_attribute, 2, GL_FLOAT, GL_FALSE, 0, unit_quad.data());
    glEnableVertexAttribArray(position_attribute);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    glDisableVertexAttribArray(position_attribute);
}

void Renderer::draw_solid(Color color, const Matrix3& matrix)
{
    const ProgramSlot* slot = program(ShaderVariant::solid);
    if (!slot)
        return;
    if (linear_)
        color = linear_of(color, true);
    glUseProgram(slot->program.id());
    glUniform4f(slot->color, color.r, color.g, color.b, color.a);
    draw_quad(*slot, matrix);
}

bool Renderer::draw_texture(Texture& texture, FBox source, const Matrix3& matrix, float alpha, Filter filter,
                            const SurfaceColour& colour)
{
    if (!texture.ensure_gl(display_))
        return false;
    // Plain sRGB on the sRGB output: no lookup at all, the ordinary programs below. A linear-light frame converts
    // every surface.
    const ColourPipeline* pipeline = is_plain(colour) && output_plain_ && !linear_ ? nullptr : pipeline_for(colour);
    if (texture.through_planes())
        return draw_planes(texture, source, matrix, alpha, pipeline);
    ShaderVariant variant;
    if (texture.external())
        variant = ShaderVariant::external;
    else if (texture.swizzle_rb())
        variant = texture.opaque() ? ShaderVariant::bgrx : with_alpha_mode(ShaderVariant::bgra, texture.alpha_mode());
    else
        variant = texture.opaque() ? ShaderVariant::rgbx : with_alpha_mode(ShaderVariant::rgba, texture.alpha_mode());
    if (pipeline)
        if (const ProgramSlot* slot = colour_program(variant, pipeline->key))
            return draw_with(*slot, texture, source, matrix, alpha, filter, pipeline);
    const ProgramSlot* slot = program(variant);
    if (!slot)
        return false;
    return draw_with(*slot, texture, source, matrix, alpha, filter);
}

bool Renderer::draw_with(const ProgramSlot& slot, Texture& texture, FBox source, const Matrix3& matrix, float alpha,
                         Filter filter, const ColourPipeline* colour)
{
    glUseProgram(slot.program.id());
    if (colour && !set_colour(slot, *colour))
        return false;
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(texture.target(), texture.id());
    const GLint gl_filter = filter == Filter::nearest ? GL_NEAREST : GL_LINEAR;
    glTexParameteri(texture.target(), GL_TEXTURE_MIN_FILTER, gl_filter);
    glTexParameteri(texture.target(), GL_TEXTURE_MAG_FILTER, gl_filter);
    glUniform1i(slot.tex, 0);
    glUniform1f(slot.alpha, alpha);
    set_source(slot, texture, source);
    draw_quad(slot, matrix);
    glBindTexture(texture.target(), 0);
    return true;
}

void Renderer::set_source(const ProgramSlot& slot, const Texture& texture, FBox source)
{
    // The unit square to the source box in (luma, for YUV) texture coordinates.
    const float tw = static_cast<float>(texture.width());
    const float th = static_cast<float>(texture.height());
    const Matrix3 tex_proj{static_cast<float>(source.width) / tw, 0, static_cast<float>(source.x) / tw,
                           0, static_cast<float>(source.height) / th, static_cast<float>(source.y) / th,
                           0, 0, 1};
    const Matrix3 tex_gl = transpose(tex_proj);
    glUniformMatrix3fv(slot.tex_proj, 1, GL_FALSE, tex_gl.data());
}

bool Renderer::read_back(RenderTarget& target, std::span<const Box> boxes)
{
    display_.make_current();
    bool ok = true;
    for (const Box& box : boxes)
        ok = target.read_back(bgra_read_, stats_, box) && ok;
    return ok;
}

bool Renderer::read_pixels(uint32_t fourcc, uint32_t stride, Box source, void* data, RenderTarget* from)
{
    RenderTarget* target = from ? from : target_ ? target_ : last_target_;
    if (!target)
        return false;
    display_.make_current();
    glBindFramebuffer(GL_FRAMEBUFFER, target->framebuffer());
    return read_framebuffer(fourcc, stride, source, data, bgra_read_);
}

}  // namespace kiln::renderer
