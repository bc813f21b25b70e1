// ClientTextures: client buffers as wlr_textures over kiln's textures: dma-buf imports cached on their wlr_buffer
// (wlr_addon) so a buffer is imported once for its whole life (an EGLImage, or a mapping CPU composition reads), shm
// uploads or in-place reads, and who is told of the client buffers read in place (InPlaceReads).
#pragma once

#include "compositor/bridge/in_place_reads.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <sys/types.h>

// Named only: their headers carry GL and EGL, which the compositor outside bridge/ never sees.
namespace kiln::renderer {
class Texture;
struct CpuImage;
}  // namespace kiln::renderer

namespace kiln::compositor {

class CompositionChoice;
class LazyEgl;
struct DmabufTextureCache;

class ClientTextures {
public:
    // `egl` starts when an import needs GL; `composition` says whether shm is read in place and dma-bufs mapped.
    ClientTextures(LazyEgl& egl, const CompositionChoice& composition) : egl_(egl), composition_(composition) {}
    ClientTextures(const ClientTextures&) = delete;
    ClientTextures& operator=(const ClientTextures&) = delete;

    // wlroots' texture_from_buffer: a client's dma-buf (its cached import) or shm buffer as a wlr_texture.
    wlr_texture* texture_from_buffer(wlr_buffer* buffer);
    // Imports a client dma-buf (a wl_buffer from linux-dmabuf or wl_drm) now, so a bad one is refused at creation;
    // the texture stays cached on the buffer and every later commit of it samples the same EGLImage.
    bool import_client_buffer(wlr_buffer* buffer, std::string& error);
    // Imports of memory that was already imported and still is, and commits that reused a cached import.
    uint64_t dmabuf_reimports() const { return dmabuf_reimports_; }
    uint64_t dmabuf_texture_reuses() const { return dmabuf_texture_reuses_; }
    // Told of every texture that reads a client's buffer in place, and of its end: the buffer's release is decided
    // there (output/sync/buffer_releases.hpp). Textures made before keep who was told then; an expired one hears
    // nothing (kiln is going).
    void tell_in_place_reads(std::weak_ptr<InPlaceReads> reads) { in_place_reads_ = std::move(reads); }

    // kiln's texture behind a wlr_texture made here;
    static renderer::Texture& texture(wlr_texture* texture);
    // For CPU composition, no GL: whether CpuCompositor can read a texture made here (kiln's CPU copy of it, or the
    // client's memory where it lies: shm, or a dma-buf kiln mapped, dmabuf_mapping.hpp); and `use` called with its
    // pixels (the client's memory mapped, or synced, for the call), false if it has none or they could not be read.
    static bool has_cpu_image(wlr_texture* texture);
    static bool with_cpu_image(wlr_texture* texture, const std::function<void(const renderer::CpuImage&)>& use);

    struct DmabufIdentity {
        dev_t device = 0;
        ino_t inode = 0;
        uint32_t offset = 0;
        auto operator<=>(const DmabufIdentity&) const = default;
    };

private:
    friend struct DmabufTextureCache;
    // A cached import ended with its buffer.
    void forget_import(const DmabufIdentity& identity);
    // `source`: the client buffer this texture reads in place (a dma-buf, or shm with `shm`), kept until the texture
    // ends, whose start and end in_place_reads_ hears.
    wlr_texture* wrap(std::shared_ptr<renderer::Texture> texture, wlr_buffer* source = nullptr, bool shm = false);
    DmabufTextureCache* cached_dmabuf(wlr_buffer* buffer);
    // A client dma-buf as a texture CPU composition reads through a mapping (dmabuf_mapping.hpp), no EGL: where
    // frames are composed on the CPU and the buffer is one linear plane pixman reads; else nullptr (EGL imports it).
    std::shared_ptr<renderer::Texture> map_for_cpu(const wlr_dmabuf_attributes& dmabuf);

    LazyEgl& egl_;
    const CompositionChoice& composition_;
    unsigned cpu_map_refusals_ = 0;  // dma-bufs map_for_cpu could not map
    uint64_t dmabuf_reimports_ = 0;
    std::map<DmabufIdentity, int> live_imports_;
    uint64_t dmabuf_texture_reuses_ = 0;
    std::weak_ptr<InPlaceReads> in_place_reads_;
};

}  // namespace kiln::compositor
