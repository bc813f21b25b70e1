// Checks every wl_shm_pool.create_buffer before libwayland runs it: a row of `width` pixels must fit in `stride`.
//
// libwayland has no hook inside create_buffer, so the check sits in kiln's request table (a protocol logger), which sees each request with
// its arguments before it is dispatched. (A resource-created listener fires inside create_buffer, before the
// wl_shm_buffer holds its stride, so it would have to defer the check and let the buffer exist meanwhile.) Posting
// the error from there sets the client's error flag: libwayland still runs this one request, which only creates
// the wl_buffer, then dispatches nothing more from that client and disconnects it, so the buffer is never attached.
#include "compositor/protocols/buffers/wl_shm_validation.hpp"

#include "renderer/formats.hpp"

namespace kiln::compositor {
namespace {

// Bytes per pixel of a wl_shm format code (0 and 1 are ARGB/XRGB8888, the rest DRM fourccs); 0 when unknown.
uint32_t shm_bytes_per_pixel(uint32_t wl_shm_format)
{
    uint32_t fourcc = wl_shm_format;
    if (wl_shm_format == WL_SHM_FORMAT_ARGB8888)
        fourcc = renderer::fourcc::argb8888;
    else if (wl_shm_format == WL_SHM_FORMAT_XRGB8888)
        fourcc = renderer::fourcc::xrgb8888;
    const auto info = renderer::format_info(fourcc);
    return info && info->plane_count == 1 ? info->planes[0].bytes_per_pixel : 0;
}

}  // namespace

WlShmValidation::WlShmValidation(RequestHooks& hooks)
    : hook_(hooks.add(wl_shm_pool_interface, "create_buffer", HookOrder::shm_validation, &WlShmValidation::check))
{
}

void WlShmValidation::check(const wl_protocol_logger_message& message)
{
    if (message.arguments_count != 6)
        return;
    // create_buffer(id, offset, width, height, stride, format)
    const int32_t width = message.arguments[2].i;
    const int32_t stride = message.arguments[4].i;
    const uint32_t bpp = shm_bytes_per_pixel(message.arguments[5].u);
    // Negative sizes, unknown formats: libwayland's own checks answer those.
    if (width <= 0 || stride <= 0 || bpp == 0)
        return;
    if (static_cast<int64_t>(width) * bpp <= stride)
        return;
    wl_resource_post_error(message.resource, WL_SHM_ERROR_INVALID_STRIDE,
                           "stride %d is shorter than a row of %d pixels of %u bytes", stride, width, bpp);
}

}  // namespace kiln::compositor
