// CursorImage: what the pointer looks like — the focused client's cursor surface with its hotspot, or the xcursor
// theme's arrow (XCURSOR_THEME, XCURSOR_SIZE, default 24) over no window and over one that set none.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <span>
#include <string>

namespace kiln::compositor {

class CursorImage {
public:
    CursorImage(wlr_seat* seat, wlr_cursor* cursor, wlr_output_layout* layout);
    ~CursorImage();
    CursorImage(const CursorImage&) = delete;
    CursorImage& operator=(const CursorImage&) = delete;

    // A pointer device moved or clicked: the pointer is in use, so it is shown from now on. Until then (headless
    // tests, a touch-only session) nothing is drawn where nobody points.
    void pointer_used();
    // A tablet tool's client set the image over its surface (tablet-v2 set_cursor; a null surface hides it). It
    // stays while the pointer's focus follows the tool, until drop_tool_image().
    void show_tool_image(wlr_surface* surface, int32_t hotspot_x, int32_t hotspot_y);
    // A client names a shape for the pointer (cursor-shape-v1): honoured as wl_pointer.set_cursor is, only from the
    // client with the pointer's focus, with a serial it was sent, and not while a tool's client has set the image.
    // `names`: xcursor names, best first; the first the theme has is drawn.
    void client_shape(wl_client* client, uint32_t serial, std::span<const char* const> names);
    // A tablet tool's client named a shape for the tool (the tablet checked that it may).
    void show_tool_shape(std::span<const char* const> names);
    // The tool left the surface whose client set the image, or a mouse moved: the theme's arrow again (the
    // pointer's client sets its own on its next enter).
    void drop_tool_image();

private:
    void show_default();
    // The first of `names` the theme has, loaded at every output's scale; false when it has none of them.
    bool show_named(std::span<const char* const> names);

    wlr_seat* seat_;
    wlr_cursor* cursor_;
    wlr_output_layout* layout_;
    wlr_xcursor_manager* xcursor_;
    bool shown_ = false;
    bool client_image_ = false;  // the focused client set the image (or hid it)
    bool tool_image_ = false;    // a tablet tool's client set it
    std::string theme_image_;    // the theme's cursor shown now (empty while a surface is), drawn again on a change
                                 // of any output's scale, mode or place

    wl::Listener request_set_cursor_;
    wl::Listener focus_change_;
    wl::Listener layout_change_;
};

}  // namespace kiln::compositor
