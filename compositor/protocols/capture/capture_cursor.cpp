// locate_cursor: the first output cursor with an image, on the source's output (or any, for a window), placed in
// the source's buffer pixels.
#include "compositor/protocols/capture/capture_cursor.hpp"

#include "compositor/protocols/capture/ext_image_copy_capture_v1.hpp"
#include "compositor/shell/toplevel.hpp"

#include <cmath>

namespace kiln::compositor {

CursorState::Image CursorState::image() const
{
    if (!cursor)
        return {};
    return {cursor->texture,  cursor->surface, cursor->surface ? cursor->surface->current.seq : 0u,
            cursor->width,    cursor->height,  cursor->hotspot_x,
            cursor->hotspot_y};
}

wlr_texture* cursor_texture(const wlr_output_cursor* cursor)
{
    if (!cursor)
        return nullptr;
    return cursor->surface ? wlr_surface_get_texture(cursor->surface) : cursor->texture;
}

CursorState locate_cursor(const ExtImageCopyCaptureV1& capture, const CaptureTarget& target)
{
    CursorState state;
    wlr_output_layout* layout = capture.context().layout;
    wlr_output_layout_output* placed = nullptr;
    wl_list_for_each(placed, &layout->outputs, link)
    {
        if (target.output && placed->output != target.output)
            continue;
        wlr_output_cursor* cursor = nullptr;
        wl_list_for_each(cursor, &placed->output->cursors, link)
        {
            if (!cursor->enabled || !cursor->visible || !cursor_texture(cursor))
                continue;
            state.cursor = cursor;
            if (target.output) {
                state.inside = true;  // wlroots counts it visible where its image overlaps the output
                state.x = static_cast<int>(std::lround(cursor->x));
                state.y = static_cast<int>(std::lround(cursor->y));
                return state;
            }
            if (!target.toplevel)
                return state;
            // The hotspot in layout coordinates, then in the window's buffer pixels.
            const double output_scale = placed->output->scale > 0 ? placed->output->scale : 1.0;
            const double lx = placed->x + cursor->x / output_scale;
            const double ly = placed->y + cursor->y / output_scale;
            const wlr_box area = target.toplevel->geometry();
            const double scale = capture.scale_of(area);
            state.scale = scale / output_scale;
            state.x = static_cast<int>(std::lround((lx - area.x) * scale));
            state.y = static_cast<int>(std::lround((ly - area.y) * scale));
            const double left = lx - cursor->hotspot_x / output_scale;
            const double top = ly - cursor->hotspot_y / output_scale;
            state.inside = left < area.x + area.width && top < area.y + area.height &&
                           left + cursor->width / output_scale > area.x && top + cursor->height / output_scale > area.y;
            return state;
        }
    }
    return state;
}

}  // namespace kiln::compositor
