// CaptureDmabuf: the dma-buf formats a capture can be drawn into, from the EGL display's import list.
#include "compositor/bridge/capture_target.hpp"

#include "compositor/bridge/render_bridge.hpp"
#include "renderer/egl_display.hpp"
#include "renderer/render_fence.hpp"

#include <GLES2/gl2.h>
#include <algorithm>
#include <drm_fourcc.h>

namespace kiln::compositor {
namespace {

// What kiln's GL renderer draws captures as (the shm formats too, and their byte-swapped twins).
constexpr uint32_t renderable[] = {DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888, DRM_FORMAT_XBGR8888,
                                   DRM_FORMAT_ABGR8888};

}  // namespace

std::optional<CaptureDmabuf> CaptureDmabuf::of(RenderBridge& bridge, dev_t device)
{
    const renderer::DisplayProfile& profile = bridge.egl().profile();
    if (!profile.can_import_dmabuf())
        return std::nullopt;
    CaptureDmabuf out;
    out.device = device;
    for (uint32_t fourcc : renderable) {
        std::vector<uint64_t> modifiers;
        bool imported = false;
        for (const renderer::FormatModifier& fm : profile.dmabuf_formats) {
            if (fm.fourcc != fourcc || fm.through_planes)
                continue;
            imported = true;
            // External-only images are sampled through samplerExternalOES; they cannot be a framebuffer.
            if (fm.external_only || fm.modifier == DRM_FORMAT_MOD_INVALID)
                continue;
            if (std::find(modifiers.begin(), modifiers.end(), fm.modifier) == modifiers.end())
                modifiers.push_back(fm.modifier);
        }
        // Linear is what every allocator can make and every driver that imports the format renders into.
        if (imported && std::find(modifiers.begin(), modifiers.end(), DRM_FORMAT_MOD_LINEAR) == modifiers.end())
            modifiers.insert(modifiers.begin(), DRM_FORMAT_MOD_LINEAR);
        if (!modifiers.empty())
            out.formats.emplace_back(fourcc, std::move(modifiers));
    }
    if (out.formats.empty())
        return std::nullopt;
    return out;
}

bool CaptureDmabuf::fits(wlr_buffer* buffer, int width, int height) const
{
    wlr_dmabuf_attributes dmabuf{};
    if (!buffer || !wlr_buffer_get_dmabuf(buffer, &dmabuf) || dmabuf.width != width || dmabuf.height != height)
        return false;
    for (const auto& [fourcc, modifiers] : formats)
        if (fourcc == dmabuf.format)
            return std::find(modifiers.begin(), modifiers.end(), dmabuf.modifier) != modifiers.end();
    return false;
}

std::shared_ptr<renderer::RenderFence> capture_fence(RenderBridge& bridge)
{
    if (!bridge.egl().started())
        return nullptr;
    bridge.egl().display().make_current();
    std::shared_ptr<renderer::RenderFence> fence = renderer::RenderFence::create(bridge.egl().display());
    if (!fence)
        glFinish();  // no fence extension: the only way to know the capture is drawn
    return fence;
}

}  // namespace kiln::compositor
