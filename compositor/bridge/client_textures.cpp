// ClientTextures: the texture vtable over kiln's textures, dma-buf imports cached on their wlr_buffer, shm uploads
// and in-place reads.
#include "compositor/bridge/client_textures.hpp"

#include "compositor/bridge/composition_choice.hpp"
#include "compositor/bridge/dmabuf_attributes.hpp"
#include "compositor/bridge/dmabuf_mapping.hpp"
#include "compositor/bridge/lazy_egl.hpp"
#include "compositor/log.hpp"
#include "renderer/cpu_compositor.hpp"
#include "renderer/egl_display.hpp"
#include "renderer/formats.hpp"
#include "renderer/gl_formats.hpp"
#include "renderer/renderer.hpp"

#include <drm_fourcc.h>
#include <sys/stat.h>

namespace kiln::compositor {

using renderer::Box;

// The wlr structs below are each the first member of their wrapper, so a pointer to one is a pointer to the other.

// The texture of a client dma-buf, kept on the wlr_buffer so every later commit samples the same EGLImage (or reads
// the same mapping).
struct DmabufTextureCache {
    wlr_addon addon;
    std::shared_ptr<renderer::Texture> texture;
    ClientTextures::DmabufIdentity identity;  // which dma-buf it holds, so a second live import of it shows

    // The buffer is gone: its import with it (the addon's owner is the ClientTextures that made it).
    static void end(wlr_addon* addon) noexcept
    {
        auto* cache = reinterpret_cast<DmabufTextureCache*>(addon);
        static_cast<ClientTextures*>(const_cast<void*>(addon->owner))->forget_import(cache->identity);
        wlr_addon_finish(addon);
        delete cache;
    }
};

// wlr_texture handed to wlroots; several may share one imported dma-buf texture.
//
// wlroots 0.15 unlocks a client's buffer right after wrapping it in a wlr_client_buffer, which sends
// wl_buffer.release at commit, before any frame sampled it. A dma-buf is sampled in place, so its texture keeps the
// client's buffer (`source`) while it reads it and tells InPlaceReads, which decides the release; the texture lives
// as long as the wlr_client_buffer (one per commit), which the surface, the frames that sample it and an output
// showing it keep. An shm buffer composed on the CPU is read in place the same way (Texture::over_shm). (Other shm
// textures are copies: the upload is the last read of the client's memory, so wlroots may release those at commit.)
struct BridgeTexture {
    wlr_texture base;
    std::shared_ptr<renderer::Texture> texture;
    wlr_buffer* source = nullptr;  // locked while set
    std::weak_ptr<InPlaceReads> reads;
};

namespace {

const wlr_addon_interface texture_addon_impl{"kiln_dmabuf_texture", DmabufTextureCache::end};

renderer::Texture& texture_of(wlr_texture* texture)
{
    return *reinterpret_cast<BridgeTexture*>(texture)->texture;
}

const wlr_texture_impl texture_impl{
    [](wlr_texture* texture) noexcept -> bool { return texture_of(texture).opaque(); },
    [](wlr_texture* texture, uint32_t stride, uint32_t width, uint32_t height, uint32_t src_x, uint32_t src_y,
       uint32_t dst_x, uint32_t dst_y, const void* data) noexcept -> bool {
        // wlroots uploads damage with src == dst; other offsets are served by moving the data pointer.
        const auto info = renderer::format_info(texture_of(texture).fourcc());
        if (!info || src_x < dst_x || src_y < dst_y)
            return false;
        const auto* base = static_cast<const uint8_t*>(data) + static_cast<size_t>(src_y - dst_y) * stride +
                           static_cast<size_t>(src_x - dst_x) * info->planes[0].bytes_per_pixel;
        // wlroots hands the start of the client's buffer, of texture-height rows; libwayland checked that much lies
        // inside the pool, so rows reaching past it are refused by the texture.
        const size_t span = static_cast<size_t>(stride) * static_cast<size_t>(texture_of(texture).height()) -
                            static_cast<size_t>(base - static_cast<const uint8_t*>(data));
        return texture_of(texture).write_pixels(stride,
                                                Box{static_cast<int32_t>(dst_x), static_cast<int32_t>(dst_y),
                                                    static_cast<int32_t>(width), static_cast<int32_t>(height)},
                                                base, span);
    },
    [](wlr_texture* texture) noexcept {
        auto* wrapper = reinterpret_cast<BridgeTexture*>(texture);
        // The wlr_client_buffer is gone: every holder of the commit's buffer has let go. Told first, so a release
        // that holds the buffer longer (with frame callbacks) still has it when this texture's own read ends.
        if (wrapper->source) {
            if (auto reads = wrapper->reads.lock())
                reads->ended(texture);
            wlr_buffer_unlock(wrapper->source);
        }
        delete wrapper;
    },
};

}  // namespace

wlr_texture* ClientTextures::wrap(std::shared_ptr<renderer::Texture> texture, wlr_buffer* source, bool shm)
{
    auto* wrapper = new BridgeTexture{};
    wlr_texture_init(&wrapper->base, &texture_impl, static_cast<uint32_t>(texture->width()),
                     static_cast<uint32_t>(texture->height()));
    wrapper->texture = std::move(texture);
    if (source) {
        wrapper->source = wlr_buffer_lock(source);
        wrapper->reads = in_place_reads_;
        if (auto reads = wrapper->reads.lock())
            reads->began(&wrapper->base, source, shm);
    }
    return &wrapper->base;
}

renderer::Texture& ClientTextures::texture(wlr_texture* texture)
{
    return texture_of(texture);
}

bool ClientTextures::has_cpu_image(wlr_texture* texture)
{
    const renderer::Texture& t = ClientTextures::texture(texture);
    // A format pixman has no code for (half floats) has pixels in memory but no CPU image: GL draws that frame.
    return (t.cpu_pixels() || t.in_place()) && renderer::cpu_format_supported(t.fourcc());
}

bool ClientTextures::with_cpu_image(wlr_texture* texture, const std::function<void(const renderer::CpuImage&)>& use)
{
    const renderer::Texture& t = ClientTextures::texture(texture);
    if (t.cpu_pixels()) {
        use(renderer::CpuImage{t.fourcc(), t.width(), t.height(), t.cpu_stride(), const_cast<uint8_t*>(t.cpu_pixels())});
        return true;
    }
    return t.read_in_place([&](const void* data, uint32_t stride) {
        use(renderer::CpuImage{t.fourcc(), t.width(), t.height(), stride, const_cast<void*>(data)});
    });
}

DmabufTextureCache* ClientTextures::cached_dmabuf(wlr_buffer* buffer)
{
    wlr_addon* addon = wlr_addon_find(&buffer->addons, this, &texture_addon_impl);
    return addon ? reinterpret_cast<DmabufTextureCache*>(addon) : nullptr;
}

bool ClientTextures::import_client_buffer(wlr_buffer* buffer, std::string& error)
{
    if (cached_dmabuf(buffer))
        return true;
    wlr_dmabuf_attributes dmabuf{};
    if (!wlr_buffer_get_dmabuf(buffer, &dmabuf)) {
        error = "not a dma-buf";
        return false;
    }
    std::shared_ptr<renderer::Texture> texture = map_for_cpu(dmabuf);
    if (!texture) {
        if (!egl_.ensure("a dma-buf import")) {
            error = "EGL cannot start";
            return false;
        }
        texture = egl_.renderer().import_dmabuf(to_attributes(dmabuf), error);
        if (!texture)
            return false;
    }
    auto* cache = new DmabufTextureCache{};
    cache->texture = std::move(texture);
    // A dma-buf is identified by its file (device, inode) and plane offset: a client that wraps the same memory
    // in a new wl_buffer while the old one is still imported makes the GPU import it twice.
    struct stat st {};
    if (dmabuf.n_planes > 0 && fstat(dmabuf.fd[0], &st) == 0)
        cache->identity = {st.st_dev, st.st_ino, dmabuf.offset[0]};
    if (live_imports_[cache->identity]++ > 0)
        ++dmabuf_reimports_;
    wlr_addon_init(&cache->addon, &buffer->addons, this, &texture_addon_impl);
    return true;
}

namespace {

// Whether CPU composition can read a dma-buf as it reads shm: one linear plane in a format pixman reads, which GL
// could also be given (whole, if a GL frame samples it).
bool cpu_readable(const wlr_dmabuf_attributes& dmabuf)
{
    const auto info = renderer::format_info(dmabuf.format);
    return dmabuf.n_planes == 1 && dmabuf.modifier == DRM_FORMAT_MOD_LINEAR && info && !info->yuv &&
           info->plane_count == 1 && renderer::gl_upload(dmabuf.format) && renderer::cpu_format_supported(dmabuf.format);
}

}  // namespace

std::shared_ptr<renderer::Texture> ClientTextures::map_for_cpu(const wlr_dmabuf_attributes& dmabuf)
{
    // Where GL is llvmpipe an EGLImage of a linear dma-buf is a CPU mapping too, and EGL brings LLVM and Mesa
    // (~70 MiB resident) with it; a hardware display, or anything pixman cannot read, keeps the EGL import.
    if (!composition_.cpu() || !cpu_readable(dmabuf))
        return nullptr;
    const uint32_t bpp = renderer::format_info(dmabuf.format)->planes[0].bytes_per_pixel;
    const uint32_t row = static_cast<uint32_t>(dmabuf.width) * bpp;
    std::string error;
    std::shared_ptr<const DmabufMapping> mapping = DmabufMapping::map(
        dmabuf.fd[0], dmabuf.offset[0], dmabuf.stride[0], row, static_cast<uint32_t>(dmabuf.height), error);
    std::shared_ptr<renderer::Texture> texture;
    if (mapping) {
        error = "its first read failed";
        const size_t span = static_cast<size_t>(dmabuf.stride[0]) * static_cast<size_t>(dmabuf.height - 1) + row;
        auto reader = [mapping](const std::function<void(const void*, uint32_t)>& use) { return mapping->read(use); };
        // For a GL frame that samples it: the same plane through the mapping's fd, which lives as long as the reader.
        renderer::DmabufAttributes attributes = to_attributes(dmabuf);
        attributes.planes[0].fd = mapping->fd();
        bool external_only = false;
        for (const auto& fm : egl_.profile().dmabuf_formats)
            if (fm.fourcc == dmabuf.format && fm.modifier == dmabuf.modifier)
                external_only = fm.external_only;
        mapping->read([&](const void* data, uint32_t stride) {
            texture = renderer::Texture::over_dmabuf_mapping(
                {dmabuf.format, dmabuf.width, dmabuf.height, stride, data, span}, reader, attributes, external_only,
                egl_.texture_stats(), error);
        });
    }
    // Said the first few times: a client making buffer after buffer must not flood the log.
    constexpr unsigned logged = 5;
    if (!texture && cpu_map_refusals_++ < logged)
        log::info("a dma-buf is not read on the CPU (%s); it is imported with EGL%s", error.c_str(),
                  cpu_map_refusals_ == logged ? " (further ones are not logged)" : "");
    return texture;
}

void ClientTextures::forget_import(const DmabufIdentity& identity)
{
    auto it = live_imports_.find(identity);
    if (it != live_imports_.end() && --it->second <= 0)
        live_imports_.erase(it);
}

namespace {

// Maps `buffer` (a client's wl_shm buffer, kept by the texture while it reads it) for one read. wlroots guards the
// access against a client that shrinks its pool (SIGBUS) and keeps the memory if the client destroys the wl_buffer.
renderer::Texture::ShmReader shm_reader(wlr_buffer* buffer)
{
    return [buffer](const std::function<void(const void*, uint32_t)>& use) {
        void* data = nullptr;
        uint32_t format = 0;
        size_t stride = 0;
        if (!wlr_buffer_begin_data_ptr_access(buffer, WLR_BUFFER_DATA_PTR_ACCESS_READ, &data, &format, &stride))
            return false;
        use(data, static_cast<uint32_t>(stride));
        wlr_buffer_end_data_ptr_access(buffer);
        return true;
    };
}

}  // namespace

wlr_texture* ClientTextures::texture_from_buffer(wlr_buffer* buffer)
{
    egl_.make_current_if_started();
    std::string error;
    wlr_dmabuf_attributes dmabuf{};
    if (wlr_buffer_get_dmabuf(buffer, &dmabuf)) {
        if (DmabufTextureCache* cache = cached_dmabuf(buffer)) {
            ++dmabuf_texture_reuses_;
            // A commit of the buffer: the client may have drawn into it since (a mapped one's GL copy is stale).
            cache->texture->contents_changed();
            return wrap(cache->texture, buffer);
        }
        if (!import_client_buffer(buffer, error)) {
            log::error("dma-buf import failed: %s", error.c_str());
            return nullptr;
        }
        return wrap(cached_dmabuf(buffer)->texture, buffer);
    }

    void* data = nullptr;
    uint32_t format = 0;
    size_t stride = 0;
    if (!wlr_buffer_begin_data_ptr_access(buffer, WLR_BUFFER_DATA_PTR_ACCESS_READ, &data, &format, &stride)) {
        log::error("client buffer is neither shm nor a dma-buf");
        return nullptr;
    }
    const renderer::ShmDescription description{format, buffer->width, buffer->height, static_cast<uint32_t>(stride),
                                               data, stride * static_cast<size_t>(buffer->height)};
    std::unique_ptr<renderer::Texture> texture;
    if (composition_.shm_in_place()) {
        // Frames are composed on the CPU: it reads the client's memory where it lies each frame (no copy; the
        // texture keeps the client's buffer, so wl_buffer.release comes once the frames that read it are done and a
        // newer commit replaced it); GL gets it whole if a GL frame samples it.
        texture = renderer::Texture::over_shm(description, shm_reader(buffer),
                                              egl_.texture_stats(), error);
        // Its last byte read while wlroots guards the access: a client that shrank its pool under the buffer gets
        // its protocol error at this commit, as a copy would give it (and a later shrink, at the frame that reads).
        if (texture)
            static_cast<void>(*(static_cast<const volatile uint8_t*>(data) + description.span - 1));
        wlr_buffer_end_data_ptr_access(buffer);
        if (!texture) {
            wlr_log(WLR_ERROR, "kiln: shm buffer refused: %s", error.c_str());
            return nullptr;
        }
        // Its release may go out with the client's next frame callbacks (BufferReleases::before_commit).
        return wrap(std::move(texture), buffer, true);
    }
    if (egl_.started())
        texture = egl_.renderer().create_shm_texture(description, error);
    else if (composition_.cpu())
        // Before EGL: a CPU copy only, which CPU composition draws; GL gets it when a GL frame first samples it.
        texture = renderer::Texture::from_shm(description, egl_.texture_stats(), error, true);
    else if (egl_.ensure("an shm texture"))
        texture = egl_.renderer().create_shm_texture(description, error);
    wlr_buffer_end_data_ptr_access(buffer);
    if (!texture) {
        log::error("shm upload failed: %s", error.c_str());
        return nullptr;
    }
    return wrap(std::move(texture));
}

}  // namespace kiln::compositor
