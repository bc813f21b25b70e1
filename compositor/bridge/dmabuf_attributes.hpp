// to_attributes: a wlroots dma-buf description in the renderer's plain terms, for the bridge's imports and targets.
#pragma once

#include "compositor/wlr.hpp"
#include "renderer/types.hpp"

namespace kiln::compositor {

inline renderer::DmabufAttributes to_attributes(const wlr_dmabuf_attributes& in)
{
    renderer::DmabufAttributes out;
    out.width = in.width;
    out.height = in.height;
    out.fourcc = in.format;
    out.modifier = in.modifier;
    out.plane_count = static_cast<uint32_t>(in.n_planes > 0 ? in.n_planes : 0);
    for (uint32_t i = 0; i < out.plane_count && i < renderer::max_planes; ++i)
        out.planes[i] = {in.fd[i], in.offset[i], in.stride[i]};
    return out;
}

}  // namespace kiln::compositor
