// locate_cursor: where the pointer's cursor (as wlroots places it on outputs) is relative to an image capture source
// and which image it shows, for cursor sessions and for frames that paint the cursor.
#pragma once

#include "compositor/protocols/capture/ext_image_capture_source_v1.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>
#include <tuple>

namespace kiln::compositor {

class ExtImageCopyCaptureV1;

struct CursorState {
    wlr_output_cursor* cursor = nullptr;  // null: no cursor image anywhere
    bool inside = false;                  // the image overlaps the source
    int x = 0;                            // the hotspot, source buffer pixels
    int y = 0;
    double scale = 1.0;                   // source buffer pixels per cursor image pixel
    using Image = std::tuple<const void*, const void*, uint32_t, uint32_t, uint32_t, int32_t, int32_t>;
    // What identifies the image: a change is a new cursor frame.
    Image image() const;
};

// The texture a cursor shows: a client's cursor surface wins over an image set before it (wlroots keeps that
// texture), as when wlroots draws it. Null: none.
wlr_texture* cursor_texture(const wlr_output_cursor* cursor);

CursorState locate_cursor(const ExtImageCopyCaptureV1& capture, const CaptureTarget& target);

}  // namespace kiln::compositor
