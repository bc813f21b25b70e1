// The wlr_renderer vtable over kiln's renderer: render targets cached on their wlr_buffer (wlr_addon), drawing and
// pixel reads. EGL start-up is in lazy_egl.cpp, client buffers as textures in client_textures.cpp.
#include "compositor/bridge/render_bridge.hpp"

#include "compositor/bridge/dmabuf_attributes.hpp"
#include "compositor/log.hpp"
#include "renderer/cpu_compositor.hpp"
#include "renderer/egl_display.hpp"
#include "renderer/formats.hpp"
#include "renderer/renderer.hpp"

#include <drm_fourcc.h>

#include <cstring>

namespace kiln::compositor {

using renderer::Box;
using renderer::Matrix3;

namespace {

Matrix3 to_matrix(const float m[9])
{
    Matrix3 out{};
    std::memcpy(out.data(), m, sizeof(float) * 9);
    return out;
}

}  // namespace

// The wlr structs below are each the first member of their wrapper, so a pointer to one is a pointer to the other.

// A render target living as long as the wlr_buffer it draws into (output swapchain buffers are reused).
struct BufferTarget {
    wlr_addon addon;
    std::unique_ptr<renderer::RenderTarget> target;
};

// Present on an output buffer whose latest frame was composed on the CPU, into its memory.
struct MemoryCurrentMark {
    wlr_addon addon;
};

namespace {

const wlr_addon_interface target_addon_impl{
    "kiln_render_target",
    [](wlr_addon* addon) noexcept {
        auto* target = reinterpret_cast<BufferTarget*>(addon);
        wlr_addon_finish(addon);
        delete target;
    },
};

const wlr_addon_interface memory_current_impl{
    "kiln_memory_current",
    [](wlr_addon* addon) noexcept {
        auto* mark = reinterpret_cast<MemoryCurrentMark*>(addon);
        wlr_addon_finish(addon);
        delete mark;
    },
};

// Whether a buffer's pixels are in memory kiln can map (shm, dumb buffers), as CPU composition draws them.
bool has_memory(wlr_buffer* buffer)
{
    void* data = nullptr;
    uint32_t format = 0;
    size_t stride = 0;
    if (!wlr_buffer_begin_data_ptr_access(buffer, WLR_BUFFER_DATA_PTR_ACCESS_READ, &data, &format, &stride))
        return false;
    wlr_buffer_end_data_ptr_access(buffer);
    return true;
}

RenderBridge& bridge(wlr_renderer* renderer)
{
    return *RenderBridge::from_wlr(renderer);
}

}  // namespace

void destroy_bridge(wlr_renderer* renderer) noexcept
{
    delete RenderBridge::from_wlr(renderer);
}

const wlr_renderer_impl* RenderBridge::vtable()
{
    // Defined in a member, so the entry points may stay private.
    static const wlr_renderer_impl impl{
        .bind_buffer = [](wlr_renderer* r, wlr_buffer* b) noexcept { return bridge(r).bind_buffer(b); },
        .begin = [](wlr_renderer* r, uint32_t w, uint32_t h) noexcept { bridge(r).begin(w, h); },
        .end = [](wlr_renderer* r) noexcept { bridge(r).end(); },
        .clear = [](wlr_renderer* r, const float color[4]) noexcept { bridge(r).clear(color); },
        .scissor = [](wlr_renderer* r, wlr_box* box) noexcept { bridge(r).scissor(box); },
        .render_subtexture_with_matrix = [](wlr_renderer* r, wlr_texture* t, const wlr_fbox* box, const float m[9],
                                            float alpha) noexcept { return bridge(r).render_subtexture(t, box, m, alpha); },
        .render_quad_with_matrix = [](wlr_renderer* r, const float color[4], const float m[9]) noexcept {
            bridge(r).render_quad(color, m);
        },
        .get_shm_texture_formats = [](wlr_renderer* r, size_t* len) noexcept { return bridge(r).shm_formats(len); },
        .get_dmabuf_texture_formats = [](wlr_renderer* r) noexcept { return bridge(r).dmabuf_texture_formats(); },
        .get_render_formats = [](wlr_renderer* r) noexcept { return bridge(r).render_formats(); },
        .preferred_read_format = [](wlr_renderer*) noexcept -> uint32_t { return DRM_FORMAT_XRGB8888; },
        .read_pixels = [](wlr_renderer* r, uint32_t fmt, uint32_t* flags, uint32_t stride, uint32_t w, uint32_t h,
                          uint32_t sx, uint32_t sy, uint32_t dx, uint32_t dy, void* data) noexcept {
            return bridge(r).read_pixels(fmt, flags, stride, w, h, sx, sy, dx, dy, data);
        },
        .destroy = destroy_bridge,
        // kiln serves linux-dmabuf and wl_drm itself (compositor/linux_dmabuf_v1.*, wayland_drm.*), so wlroots must
        // not create its own: no DRM fd is given out.
        .get_drm_fd = [](wlr_renderer*) noexcept { return -1; },
        .get_render_buffer_caps = [](wlr_renderer* r) noexcept { return bridge(r).render_buffer_caps(); },
        .texture_from_buffer = [](wlr_renderer* r, wlr_buffer* b) noexcept {
            return bridge(r).textures_.texture_from_buffer(b);
        },
    };
    return &impl;
}

RenderBridge* RenderBridge::create(int drm_fd, renderer::ProgramCache& programs,
                                   std::optional<renderer::DisplayProfile> lazy, std::string& error)
{
    std::unique_ptr<RenderBridge> self(new RenderBridge(drm_fd, programs));
    if (lazy)
        self->egl_.start_later(std::move(*lazy));
    else if (!self->egl_.start_now(error))
        return nullptr;
    const renderer::DisplayProfile& profile = self->egl_.profile();

    // Everything wlroots asks of a renderer before it draws comes from the profile, so it works before EGL starts.
    for (uint32_t format : renderer::shm_formats())
        self->shm_formats_.push_back(format);
    for (const auto& fm : profile.dmabuf_formats)
        wlr_drm_format_set_add(&self->dmabuf_texture_formats_, fm.fourcc, fm.modifier);
    // Output buffers: dma-bufs the display can render into when there is a device to allocate them from, and CPU
    // memory (read back after each frame) otherwise.
    for (const auto& fm : profile.dmabuf_formats)
        if (!fm.external_only && renderer::format_info(fm.fourcc) && !renderer::format_info(fm.fourcc)->yuv)
            wlr_drm_format_set_add(&self->render_formats_, fm.fourcc, fm.modifier);
    for (uint32_t format : renderer::Renderer::cpu_target_formats()) {
        wlr_drm_format_set_add(&self->render_formats_, format, DRM_FORMAT_MOD_INVALID);
        wlr_drm_format_set_add(&self->render_formats_, format, DRM_FORMAT_MOD_LINEAR);
    }

    wlr_renderer_init(&self->base_.renderer, vtable());
    self->base_.self = self.get();
    return self.release();
}

RenderBridge* RenderBridge::from_wlr(wlr_renderer* renderer)
{
    return reinterpret_cast<Base*>(renderer)->self;
}

RenderBridge::RenderBridge(int drm_fd, renderer::ProgramCache& programs)
    : egl_(drm_fd, programs, [this] { return composition_.cpu(); })
{
}

RenderBridge::~RenderBridge()
{
    if (bound_)
        wlr_buffer_unlock(bound_);
    wlr_drm_format_set_finish(&dmabuf_texture_formats_);
    wlr_drm_format_set_finish(&render_formats_);
    // egl_ goes last of the members: the renderer with its context current, then the display.
}

uint32_t RenderBridge::render_buffer_caps() const
{
    // CPU memory always works (read-back). Output dma-bufs only on a hardware GBM display: a software display draws
    // in CPU memory anyway, and wlroots' GBM allocator exports read-only fds that llvmpipe cannot map for writing,
    // so on KMS it gets mappable dumb buffers (wlroots' DRM dumb allocator) instead.
    const bool hardware = egl_.profile().kind == renderer::DisplayKind::gbm;
    return WLR_BUFFER_CAP_DATA_PTR | (hardware && egl_.profile().can_import_dmabuf() ? WLR_BUFFER_CAP_DMABUF : 0);
}

BufferTarget* RenderBridge::target_for(wlr_buffer* buffer)
{
    if (wlr_addon* addon = wlr_addon_find(&buffer->addons, this, &target_addon_impl))
        return reinterpret_cast<BufferTarget*>(addon);

    std::string error;
    std::unique_ptr<renderer::RenderTarget> target;
    wlr_dmabuf_attributes dmabuf{};
    const bool is_dmabuf = wlr_buffer_get_dmabuf(buffer, &dmabuf);
    void* data = nullptr;
    uint32_t format = 0;
    size_t stride = 0;
    const bool has_memory =
        wlr_buffer_begin_data_ptr_access(buffer, WLR_BUFFER_DATA_PTR_ACCESS_WRITE, &data, &format, &stride);
    if (has_memory)
        wlr_buffer_end_data_ptr_access(buffer);
    // Our own output buffers follow render_buffer_caps(); a client's dma-buf bound here (a screencopy of a frame
    // scanned out directly) can only be a dma-buf target.
    if (is_dmabuf && (!has_memory || (render_buffer_caps() & WLR_BUFFER_CAP_DMABUF)))
        target = egl_.renderer().create_dmabuf_target(to_attributes(dmabuf), error);
    else if (has_memory)
        target = egl_.renderer().create_cpu_target(format, buffer->width, buffer->height, error);
    else
        error = "the buffer is neither CPU memory nor a dma-buf";
    if (!target) {
        log::error("cannot render into buffer: %s", error.c_str());
        return nullptr;
    }
    auto* entry = new BufferTarget{};
    entry->target = std::move(target);
    wlr_addon_init(&entry->addon, &buffer->addons, this, &target_addon_impl);
    return entry;
}

bool RenderBridge::bind_buffer(wlr_buffer* buffer)
{
    if (bound_) {
        wlr_buffer_unlock(bound_);
        bound_ = nullptr;
        target_ = nullptr;
    }
    target_deferred_ = false;
    if (!buffer)
        return true;
    if (composition_.cpu() && has_memory(buffer)) {
        // A buffer bound to be read (screencopy) or only to be committed (each output frame, and wlroots making its
        // swapchain) needs no GL where frames may be composed on the CPU into its memory: its GL target, a
        // full-size render buffer (8 MiB at 1920x1080 on llvmpipe), is made only when GL draws into it or reads it
        // (bound_target). kiln's own GL frames get theirs through render_target().
        bound_ = wlr_buffer_lock(buffer);
        target_deferred_ = true;
        return true;
    }
    if (!egl_.ensure("rendering into a buffer through wlroots"))
        return false;
    BufferTarget* target = target_for(buffer);
    if (!target)
        return false;
    bound_ = wlr_buffer_lock(buffer);
    target_ = target;
    return true;
}

BufferTarget* RenderBridge::bound_target()
{
    if (!target_ && target_deferred_ && bound_ && egl_.started()) {
        target_ = target_for(bound_);
        target_deferred_ = false;
    }
    return target_;
}

void RenderBridge::begin(uint32_t, uint32_t)
{
    if (!bound_target())
        return;
    egl_.renderer().begin(*target_->target);
}

void RenderBridge::end()
{
    if (!target_)
        return;
    // A CPU target copies what this frame drew into the buffer's memory; the renderer tracks that region, so a
    // bind that only reads (screencopy) copies nothing.
    void* data = nullptr;
    uint32_t format = 0;
    size_t stride = 0;
    const bool mapped = target_->target->is_cpu() &&
                        wlr_buffer_begin_data_ptr_access(bound_, WLR_BUFFER_DATA_PTR_ACCESS_WRITE, &data, &format, &stride);
    if (mapped)
        target_->target->set_destination(data, static_cast<uint32_t>(stride));
    egl_.renderer().end();
    if (mapped) {
        target_->target->set_destination(nullptr, 0);
        wlr_buffer_end_data_ptr_access(bound_);
    }
}

void RenderBridge::end_flushed()
{
    if (!target_)
        return;
    egl_.renderer().end(false);
    target_ = nullptr;
    target_deferred_ = false;
}

void RenderBridge::clear(const float color[4])
{
    if (!egl_.started())
        return;
    egl_.renderer().clear({color[0], color[1], color[2], color[3]});
}

void RenderBridge::scissor(wlr_box* box)
{
    if (!egl_.started())
        return;
    if (box)
        egl_.renderer().set_scissor(Box{box->x, box->y, box->width, box->height});
    else
        egl_.renderer().set_scissor(std::nullopt);
}

bool RenderBridge::render_subtexture(wlr_texture* texture, const wlr_fbox* box, const float matrix[9], float alpha)
{
    if (!egl_.started())
        return false;
    return egl_.renderer().draw_texture(ClientTextures::texture(texture), {box->x, box->y, box->width, box->height},
                                   to_matrix(matrix), alpha);
}

void RenderBridge::render_quad(const float color[4], const float matrix[9])
{
    if (!egl_.started())
        return;
    egl_.renderer().draw_solid({color[0], color[1], color[2], color[3]}, to_matrix(matrix));
}

const uint32_t* RenderBridge::shm_formats(size_t* len)
{
    *len = shm_formats_.size();
    return shm_formats_.data();
}

const wlr_drm_format_set* RenderBridge::dmabuf_texture_formats()
{
    return dmabuf_texture_formats_.len > 0 ? &dmabuf_texture_formats_ : nullptr;
}

const wlr_drm_format_set* RenderBridge::render_formats()
{
    return &render_formats_;
}

bool RenderBridge::read_pixels(uint32_t format, uint32_t* flags, uint32_t stride, uint32_t width, uint32_t height,
                               uint32_t src_x, uint32_t src_y, uint32_t dst_x, uint32_t dst_y, void* data)
{
    const auto info = renderer::format_info(format);
    if (!info || info->planes[0].bytes_per_pixel != 4)
        return refuse_read("format " + std::to_string(format) + " is not a 4-byte format");
    if (flags)
        *flags = 0;  // rows come top-down already
    auto* destination = static_cast<uint8_t*>(data) + static_cast<size_t>(dst_y) * stride + static_cast<size_t>(dst_x) * 4;
    const renderer::Box region{static_cast<int32_t>(src_x), static_cast<int32_t>(src_y), static_cast<int32_t>(width),
                               static_cast<int32_t>(height)};
    if (bound_ && (!egl_.started() || wlr_addon_find(&bound_->addons, &memory_current_impl, &memory_current_impl))) {
        void* pixels = nullptr;
        uint32_t pixel_format = 0;
        size_t pixel_stride = 0;
        if (!wlr_buffer_begin_data_ptr_access(bound_, WLR_BUFFER_DATA_PTR_ACCESS_READ, &pixels, &pixel_format,
                                              &pixel_stride))
            return refuse_read("the bound buffer gives no CPU access");
        const bool ok = renderer::read_cpu_image(
            renderer::CpuImage{pixel_format, bound_->width, bound_->height, static_cast<uint32_t>(pixel_stride), pixels},
            region, format, stride, destination);
        wlr_buffer_end_data_ptr_access(bound_);
        if (!ok)
            return refuse_read(std::to_string(width) + "x" + std::to_string(height) + " at " + std::to_string(src_x) +
                               "," + std::to_string(src_y) + " is not inside the bound " + std::to_string(bound_->width) +
                               "x" + std::to_string(bound_->height) + " buffer, or its format cannot be read");
        return true;
    }
    if (!egl_.ensure("reading pixels with GL"))
        return refuse_read("EGL cannot be started");
    // A bound buffer (the output buffer being committed, for screencopy) is read from; else the last target.
    const bool ok = egl_.renderer().read_pixels(format, stride,
                                           Box{static_cast<int32_t>(src_x), static_cast<int32_t>(src_y),
                                               static_cast<int32_t>(width), static_cast<int32_t>(height)},
                                           destination, bound_target() ? target_->target.get() : nullptr);
    return ok || refuse_read(std::string("the GL read from the ") + (target_ ? "bound buffer" : "last frame") + " failed");
}

bool RenderBridge::refuse_read(const std::string& why)
{
    constexpr unsigned logged = 5;
    if (read_refusals_ < logged)
        log::error("a pixel read (screencopy) was refused: %s%s", why.c_str(),
                   read_refusals_ + 1 == logged ? " (further refusals are not logged)" : "");
    ++read_refusals_;
    return false;
}

renderer::RenderTarget* RenderBridge::render_target(wlr_buffer* buffer)
{
    if (!egl_.ensure("a frame drawn with GL"))
        return nullptr;
    BufferTarget* target = target_for(buffer);
    return target ? target->target.get() : nullptr;
}

bool RenderBridge::read_back(wlr_buffer* buffer, std::span<const renderer::Box> boxes)
{
    void* data = nullptr;
    uint32_t format = 0;
    size_t stride = 0;
    renderer::RenderTarget* target = render_target(buffer);
    if (!target || !wlr_buffer_begin_data_ptr_access(buffer, WLR_BUFFER_DATA_PTR_ACCESS_WRITE, &data, &format, &stride))
        return false;
    target->set_destination(data, static_cast<uint32_t>(stride));
    const bool ok = egl_.renderer().read_back(*target, boxes);
    target->set_destination(nullptr, 0);
    wlr_buffer_end_data_ptr_access(buffer);
    return ok;
}

bool RenderBridge::enable_cpu_composition(bool allowed)
{
    const bool cpu = composition_.choose(allowed, egl_.profile().software);
    if (egl_.started())
        egl_.renderer().set_shm_cpu_copies(cpu);
    return cpu;
}

void RenderBridge::set_memory_current(wlr_buffer* buffer, bool current)
{
    wlr_addon* mark = wlr_addon_find(&buffer->addons, &memory_current_impl, &memory_current_impl);
    if (current && !mark) {
        auto* added = new MemoryCurrentMark{};
        wlr_addon_init(&added->addon, &buffer->addons, &memory_current_impl, &memory_current_impl);
    } else if (!current && mark) {
        memory_current_impl.destroy(mark);
    }
}

}  // namespace kiln::compositor
