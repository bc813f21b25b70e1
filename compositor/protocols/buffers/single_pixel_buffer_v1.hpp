// SinglePixelBufferV1: wp_single_pixel_buffer_manager_v1 (wlroots 0.15 lacks it), wl_buffers of one pixel of one
// colour that clients scale with wp_viewporter: backgrounds, dimming and letterboxing without an shm pool.
//
// Each buffer is a wlr_buffer whose one ARGB8888 pixel is read through wlroots' data-pointer access, so the render
// bridge uploads it as it does wl_shm memory and kiln's frame pipeline draws it like any client surface.
#pragma once

#include "compositor/wlr.hpp"

namespace kiln::compositor {

class SinglePixelBufferV1 {
public:
    explicit SinglePixelBufferV1(wl_display* display);
    ~SinglePixelBufferV1();
    SinglePixelBufferV1(const SinglePixelBufferV1&) = delete;
    SinglePixelBufferV1& operator=(const SinglePixelBufferV1&) = delete;

private:
    wl_global* global_;
};

}  // namespace kiln::compositor
