// Renderer: textures from client buffers, render targets, and the drawing passes of a frame.
#pragma once

#include "renderer/dmabuf_validation.hpp"
#include "renderer/egl_display.hpp"
#include "renderer/program_cache.hpp"
#include "renderer/render_target.hpp"
#include "renderer/renderer_stats.hpp"
#include "renderer/shaders.hpp"
#include "renderer/texture.hpp"
#include "renderer/types.hpp"

#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>

namespace kiln::renderer {

class Renderer {
public:
    // Builds every program through `programs` (so a warm cache makes this cheap). Both must outlive the Renderer.
    static std::unique_ptr<Renderer> create(EglDisplay& display, ProgramCache& programs, std::string& error);
    Renderer(const Renderer&) = delete;
    Renderer& operator=(const Renderer&) = delete;

    EglDisplay& display() { return display_; }
    std::span<const uint32_t> shm_formats() const;
    // Formats a render target may use, for CPU targets (dma-buf targets use the display's dmabuf_formats()).
    std::span<const uint32_t> cpu_target_formats() const;

    std::unique_ptr<Texture> create_shm_texture(const ShmDescription& desc, std::string& error);
    // Validates first (validate_dmabuf): a bad description never reaches EGL. `check` (optional) gets the result.
    std::unique_ptr<Texture> import_dmabuf(const DmabufAttributes& attributes, std::string& error,
                                           DmabufCheck* check = nullptr);
    std::unique_ptr<RenderTarget> create_dmabuf_target(const DmabufAttributes& attributes, std::string& error);
    std::unique_ptr<RenderTarget> create_cpu_target(uint32_t fourcc, int32_t width, int32_t height,
                                                    std::string& error);

    void begin(RenderTarget& target);
    // Finishes the frame: CPU targets are read back into their destination, dma-buf targets are flushed.
    bool end();
    void clear(Color color);
    void set_scissor(std::optional<Box> box);
    void draw_solid(Color color, const Matrix3& matrix);
    bool draw_texture(Texture& texture, FBox source, const Matrix3& matrix, float alpha);
    // Reads from the current (or last) target, top-down coordinates.
    bool read_pixels(uint32_t fourcc, uint32_t stride, Box source, void* data);

    const RendererStats& stats() const { return stats_; }
    RendererStats& stats() { return stats_; }
    uint32_t programs_linked_from_source() const { return programs_compiled_; }

private:
    struct ProgramSlot {
        Program program;
        GLint proj = -1;
        GLint tex_proj = -1;
        GLint tex = -1;
        GLint alpha = -1;
        GLint color = -1;
    };

    Renderer(EglDisplay& display) : display_(display) {}
    bool load_programs(ProgramCache& programs, std::string& error);
    void draw_quad(const ProgramSlot& slot, const Matrix3& matrix);

    EglDisplay& display_;
    std::array<ProgramSlot, shader_variant_count> programs_{};
    RenderTarget* target_ = nullptr;
    RenderTarget* last_target_ = nullptr;
    bool bgra_read_ = false;
    uint32_t programs_compiled_ = 0;
    RendererStats stats_;
};

}  // namespace kiln::renderer
