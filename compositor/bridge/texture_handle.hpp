// texture_handle / from_handle: the opaque key a renderer::Frame gets for a wlroots texture, and back (for the frame
// composer in output/ and the frames that draw it: GlFrame here, CPU composition and capture in output/).
#pragma once

#include "compositor/wlr.hpp"
#include "renderer/frame.hpp"

namespace kiln::compositor {

inline renderer::TextureHandle texture_handle(wlr_texture* texture)
{
    return {texture};
}
inline wlr_texture* from_handle(renderer::TextureHandle handle)
{
    return static_cast<wlr_texture*>(const_cast<void*>(handle.id));
}

}  // namespace kiln::compositor
