// LazyEgl: EGL and the renderer, opened at start or on first need, and the profile told before.
#include "compositor/bridge/lazy_egl.hpp"

#include "compositor/log.hpp"
#include "renderer/egl_display.hpp"
#include "renderer/renderer.hpp"

namespace kiln::compositor {

LazyEgl::LazyEgl(int drm_fd, renderer::ProgramCache& programs, std::function<bool()> shm_cpu_copies)
    : drm_fd_(drm_fd), programs_(programs), shm_cpu_copies_(std::move(shm_cpu_copies))
{
}

LazyEgl::~LazyEgl()
{
    make_current_if_started();
    renderer_.reset();
}

bool LazyEgl::start_now(std::string& error)
{
    if (!open(error))
        return false;
    profile_ = renderer::DisplayProfile::of(*display_);
    return true;
}

bool LazyEgl::open(std::string& error)
{
    display_ = renderer::EglDisplay::open(renderer::DisplayOptions{drm_fd_, true}, error);
    if (!display_)
        return false;
    ready_at_ = std::chrono::steady_clock::now();
    renderer_ = renderer::Renderer::create(*display_, programs_, error);
    if (!renderer_) {
        display_.reset();
        return false;
    }
    renderer_->set_shm_cpu_copies(shm_cpu_copies_());
    programs_ready_at_ = std::chrono::steady_clock::now();
    return true;
}

void LazyEgl::make_current_if_started()
{
    if (display_)
        display_->make_current();
}

bool LazyEgl::ensure(const char* reason)
{
    if (display_)
        return display_->make_current();
    if (failed_)
        return false;
    std::string error;
    if (!open(error)) {
        failed_ = true;
        log::error("cannot start EGL for %s: %s; nothing that needs GL can be shown", reason, error.c_str());
        return false;
    }
    started_by_ = reason;
    log::info("EGL started for %s", reason);
    const renderer::DisplayProfile live = renderer::DisplayProfile::of(*display_);
    if (!live.same_as(profile_))
        // Clients already bound were told the cached formats; imports are checked against the live ones.
        log::error("the cached display profile (%s, %s, %zu formats) differs from the display EGL opened "
                   "(%s, %s, %zu formats); using the live one",
                   profile_.kind_name(), profile_.driver_name.c_str(), profile_.dmabuf_formats.size(), live.kind_name(),
                   live.driver_name.c_str(), live.dmabuf_formats.size());
    profile_ = live;
    if (on_started_)
        on_started_();
    return display_->make_current();
}

renderer::RendererStats& LazyEgl::texture_stats()
{
    return renderer_ ? renderer_->stats() : early_stats_;
}

renderer::RendererStats LazyEgl::stats() const
{
    renderer::RendererStats out = early_stats_;
    if (renderer_) {
        const auto& r = renderer_->stats();
        out.shm_upload_bytes += r.shm_upload_bytes;
        out.shm_textures += r.shm_textures;
        out.shm_gl_textures += r.shm_gl_textures;
        out.dmabuf_imports += r.dmabuf_imports;
        out.dmabuf_mapped += r.dmabuf_mapped;
        out.dmabuf_rejected += r.dmabuf_rejected;
        out.dmabuf_targets += r.dmabuf_targets;
        out.cpu_targets += r.cpu_targets;
        out.readback_bytes += r.readback_bytes;
        out.frames += r.frames;
        out.linear_frames += r.linear_frames;
        out.linear_targets += r.linear_targets;
    }
    return out;
}

}  // namespace kiln::compositor
