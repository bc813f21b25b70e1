// Renderer: textures from client buffers, render targets, and the drawing passes of a frame.
#pragma once

#include "renderer/colour/colour_pipeline.hpp"
#include "renderer/dmabuf_validation.hpp"
#include "renderer/egl_display.hpp"
#include "renderer/linear_target.hpp"
#include "renderer/program_cache.hpp"
#include "renderer/render_target.hpp"
#include "renderer/renderer_stats.hpp"
#include "renderer/shaders.hpp"
#include "renderer/texture.hpp"
#include "renderer/types.hpp"

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kiln::renderer {

class Renderer {
public:
    // Both must outlive the Renderer. Programs are fetched from `programs` on first use, or ahead of it by prepare().
    static std::unique_ptr<Renderer> create(EglDisplay& display, ProgramCache& programs, std::string& error);
    ~Renderer();
    Renderer(const Renderer&) = delete;
    Renderer& operator=(const Renderer&) = delete;

    EglDisplay& display() { return display_; }
    std::span<const uint32_t> shm_formats() const;
    // Formats a render target may use, for CPU targets (dma-buf targets use the display's dmabuf_formats()).
    static std::span<const uint32_t> cpu_target_formats();

    std::unique_ptr<Texture> create_shm_texture(const ShmDescription& desc, std::string& error);
    // shm textures made from now on keep their pixels in CPU memory for CpuCompositor (GL gets them on first use).
    void set_shm_cpu_copies(bool enabled) { shm_cpu_copies_ = enabled; }
    // Validates first (validate_dmabuf): a bad description never reaches EGL. `check` (optional) gets the result.
    // YUV is read as `encoding` (linux-dmabuf cannot say which; a colour-representation protocol could).
    std::unique_ptr<Texture> import_dmabuf(const DmabufAttributes& attributes, std::string& error,
                                           DmabufCheck* check = nullptr, YuvEncoding encoding = {});
    std::unique_ptr<RenderTarget> create_dmabuf_target(const DmabufAttributes& attributes, std::string& error);
    std::unique_ptr<RenderTarget> create_cpu_target(uint32_t fourcc, int32_t width, int32_t height,
                                                    std::string& error);

    void begin(RenderTarget& target);
    // Finishes the frame. With `complete` (callers that draw through wlroots' API and expect a finished buffer):
    // CPU targets are read back into their destination, dma-buf targets finished on software drivers. Without it
    // (kiln's frame pipeline) the commands are only flushed: the caller fences them (RenderFence) and reads back
    // with read_back() once the fence has signalled, and only where someone consumes the pixels.
    bool end(bool complete = true);
    void clear(Color color);
    void set_scissor(std::optional<Box> box);
    // Blending is on at begin(); an opaque draw turns it off, which saves llvmpipe a read of every covered pixel.
    void set_blending(bool on);
    void draw_solid(Color color, const Matrix3& matrix);
    // NEAREST sampling is exact (and cheaper) when texels map 1:1 to pixels: integer position, no scaling.
    // `colour`: what the pixels mean (color-management-v1); plain sRGB (the default) takes the ordinary programs
    // unchanged, anything else a conversion program onto the output (renderer_colour.cpp, doc/colour.md).
    bool draw_texture(Texture& texture, FBox source, const Matrix3& matrix, float alpha,
                      Filter filter = Filter::linear, const SurfaceColour& colour = {});
    // Reads from `target` (default: the current, or last, target), top-down coordinates.
    bool read_pixels(uint32_t fourcc, uint32_t stride, Box source, void* data, RenderTarget* target = nullptr);
    // Copies these boxes of a CPU target's framebuffer into its destination (set_destination), after its fence.
    bool read_back(RenderTarget& target, std::span<const Box> boxes);

    // What the target's values mean (the output's description): sRGB until told otherwise. Set before drawing; a
    // non-sRGB output converts every surface, plain sRGB ones included.
    void set_output_colour(const ImageDescription& output);

    // Linear-light composition (renderer_linear.cpp, doc/colour.md). After begin() (and set_output_colour()),
    // begin_linear() sends every draw into an FP16 intermediate of the target's size, in linear light in the
    // output's primaries: each surface decoded and converted into it (plain sRGB ones too), the background and solid
    // rectangles put there so that they come out with the values they are given, blending done there.
    // end_linear(boxes) then encodes the intermediate over `boxes` into the target (blending off) and draws go to
    // the target again. `boxes` must be pixels every one of which was drawn since begin_linear() (the frame's damage:
    // the intermediate outside what was drawn holds another frame's pixels). begin_linear() is false, and draws go
    // to the target as before, where the output's curve cannot be encoded or the driver cannot render into RGBA16F
    // (then `error`, set once: later calls refuse without trying again).
    bool begin_linear(std::string* error = nullptr);
    bool end_linear(std::span<const Box> boxes);
    bool composing_linear() const { return linear_; }

    const RendererStats& stats() const { return stats_; }
    RendererStats& stats() { return stats_; }

    // The programs this driver can use (external textures only where GL_OES_EGL_image_external exists).
    std::vector<ShaderVariant> variants() const;
    // Fetches a program and draws with it once into a scratch target, so the driver's first-draw compile (llvmpipe
    // JITs then, ~30 ms a program) happens now and not in the middle of a frame.
    bool prepare(ShaderVariant variant, std::string& error);
    // Where prepare()'s time went: fetching programs (kiln's work: compile and link, or load from its cache) and
    // their warming draws (the driver's: llvmpipe JIT-compiles its rasteriser then, which no program cache holds).
    struct PrepareTimes {
        double fetch_ms = 0;
        double first_draw_ms = 0;
    };
    const PrepareTimes& prepare_times() const { return prepare_times_; }
    // Fetched and, where a draw is possible without a client's image, drawn once (external programs warm on first
    // real use).
    bool prepared(ShaderVariant variant) const
    {
        const ProgramSlot& slot = programs_[static_cast<size_t>(variant)];
        return slot.program && (slot.warmed || variant == ShaderVariant::external);
    }
    // The same for a colour conversion program a precompile list names: fetched and, for RGB samplings without an
    // ICC table (those need a client's image or a table bound), drawn once. False where it cannot be built.
    bool prepare_colour(ShaderVariant sampling, const ColourKey& key, std::string& error);
    bool colour_prepared(ShaderVariant sampling, const ColourKey& key) const
    {
        auto it = colour_programs_.find({sampling, key});
        return it != colour_programs_.end() && it->second.program;
    }

private:
    struct ProgramSlot {
        Program program;
        GLint proj = -1;
        GLint tex_proj = -1;
        GLint tex = -1;
        GLint alpha = -1;
        GLint color = -1;
        // Programs sampling YUV plane by plane (renderer_yuv.cpp).
        GLint chroma_tex[2] = {-1, -1};
        GLint chroma_scale = -1;
        GLint chroma_offset = -1;
        GLint yuv_matrix = -1;
        GLint yuv_offset = -1;
        // Colour conversion programs (renderer_colour.cpp).
        GLint colour_matrix = -1;
        GLint eetf = -1;
        GLint hlg = -1;
        GLint lut = -1;
        GLint lut_coord = -1;
        GLint clip_max = -1;
        GLint hlg_out_gamma = -1;
        GLint out_lut = -1;
        GLint out_lut_coord = -1;
        // The linear-light encode pass (renderer_linear.cpp).
        GLint composed = -1;
        GLint encode_scale = -1;
        bool failed = false;
        bool warmed = false;
    };

    Renderer(EglDisplay& display, ProgramCache& cache) : display_(display), cache_(cache) {}
    // The slot with its program, fetched on first use; nullptr when it cannot be built.
    ProgramSlot* program(ShaderVariant variant, std::string* error = nullptr);
    // Fetches `source` into `slot` and looks up its uniforms; false (slot marked failed) when it cannot be built.
    bool fetch(ProgramSlot& slot, const ProgramSource& source, std::string* error);
    // The conversion program for `sampling` and `key`, fetched on first use; nullptr when it cannot be built.
    ProgramSlot* colour_program(ShaderVariant sampling, const ColourKey& key);
    // The conversion for `colour` onto the output (kept for the last description drawn); nullptr: draw as is.
    const ColourPipeline* pipeline_for(const SurfaceColour& colour);
    // Sets a conversion program's uniforms and binds its ICC table; false when the table cannot be uploaded.
    bool set_colour(const ProgramSlot& slot, const ColourPipeline& pipeline);
    // The 3D texture holding `table`, uploaded on first use and dropped once no description holds the table.
    GLuint lut_texture(const std::shared_ptr<const IccTable>& table);
    // Binds a 3D table to texture `unit` for the bound program: its sampler and texel-centre uniforms.
    static void bind_table(GLuint texture, GLint unit, GLint sampler, GLint coord, int size);
    void draw_quad(const ProgramSlot& slot, const Matrix3& matrix);
    // A colour the frame gives as output values (background, solid rectangles; `premultiplied` or not) as the
    // intermediate must hold it for the encode pass to give those values back.
    Color linear_of(Color color, bool premultiplied) const;
    // Uploads the program's tex_proj: the unit square to `source` in the texture's coordinates.
    void set_source(const ProgramSlot& slot, const Texture& texture, FBox source);
    bool draw_with(const ProgramSlot& slot, Texture& texture, FBox source, const Matrix3& matrix, float alpha,
                   Filter filter = Filter::linear, const ColourPipeline* colour = nullptr);
    // YUV through planes (renderer_yuv.cpp): bind every plane, set the encoding's conversion, draw.
    bool draw_planes(Texture& texture, FBox source, const Matrix3& matrix, float alpha,
                     const ColourPipeline* colour = nullptr);
    bool draw_planes_with(const ProgramSlot& slot, Texture& texture, FBox source, const Matrix3& matrix, float alpha,
                          const ColourPipeline* colour = nullptr);
    // prepare()'s warming draw into a scratch target, in the state real frames use.
    bool warm(ShaderVariant variant, ProgramSlot& slot, std::string& error);
    // Draws a YUV program once with scratch plane textures of the formats real buffers import as.
    bool prepare_planes(ShaderVariant variant, ProgramSlot& slot, std::string& error);

    EglDisplay& display_;
    ProgramCache& cache_;
    std::array<ProgramSlot, shader_variant_count> programs_{};
    std::map<std::pair<ShaderVariant, ColourKey>, ProgramSlot> colour_programs_;
    struct LutTexture {
        std::weak_ptr<const IccTable> table;
        const IccTable* key = nullptr;
        GlTexture texture;
    };
    std::vector<LutTexture> luts_;
    struct LastPipeline {
        SurfaceColour colour;
        std::optional<ColourPipeline> pipeline;
    };
    std::optional<LastPipeline> last_pipeline_;
    bool last_pipeline_linear_ = false;  // which space last_pipeline_ converts into
    std::unique_ptr<LinearTarget> linear_target_;  // kept across frames while the size matches
    std::map<std::pair<TransferFunction, bool>, ProgramSlot> encode_programs_;  // (curve, ICC table)
    bool linear_ = false;  // drawing into linear_target_
    bool linear_refused_ = false;  // the driver could not make an RGBA16F target: said once, not retried
    ImageDescription output_colour_ = srgb_output();
    bool output_plain_ = true;
    bool has_external_ = false;
    RendererStats scratch_stats_;  // the warm-up texture's, kept out of the client counters (declared first: dies last)
    std::unique_ptr<RenderTarget> scratch_target_;
    std::unique_ptr<Texture> scratch_texture_;
    std::array<std::unique_ptr<Texture>, 2> scratch_yuv_;  // semiplanar, planar
    RenderTarget* target_ = nullptr;
    RenderTarget* last_target_ = nullptr;
    // What this frame changed, so a CPU target reads back only that: the scissor boxes drawn in, or everything.
    void touched();
    std::optional<Box> scissor_;
    std::optional<Box> frame_damage_;
    bool frame_full_ = false;
    bool bgra_read_ = false;
    bool shm_cpu_copies_ = false;
    RendererStats stats_;
    PrepareTimes prepare_times_;
};

}  // namespace kiln::renderer
