// CursorImage behaviour: the theme is read on first use, a client's wl_pointer.set_cursor is honoured while it has
// the pointer, and each change of pointer focus starts from the default arrow until the new client sets its own.
#include "compositor/input/cursor.hpp"

#include <cstdlib>
#include <cstring>

namespace kiln::compositor {
namespace {

// XCURSOR_SIZE as clients read it (libwayland-cursor, GTK): a positive size, else 24.
uint32_t cursor_size()
{
    const char* text = std::getenv("XCURSOR_SIZE");
    if (!text || !*text)
        return 24;
    char* end = nullptr;
    const long size = std::strtol(text, &end, 10);
    return (*end == '\0' && size > 0 && size <= 512) ? static_cast<uint32_t>(size) : 24;
}

}  // namespace

CursorImage::CursorImage(wlr_seat* seat, wlr_cursor* cursor, wlr_output_layout* layout)
    : seat_(seat),
      cursor_(cursor),
      layout_(layout),
      // Null XCURSOR_THEME: libxcursor's "default" theme (whatever /usr/share/icons/default inherits).
      xcursor_(wlr_xcursor_manager_create(std::getenv("XCURSOR_THEME"), cursor_size()))
{
    // The theme itself is loaded when a cursor is first shown, not at start-up: reading every cursor of a theme
    // (animated ones frame by frame) was about 250 opens and 1,000 seeks before the first frame, and a seat whose
    // pointer never moves (headless, tests) never needs it.
    request_set_cursor_.connect(&seat_->events.request_set_cursor, [this](void* data) {
        auto* event = static_cast<wlr_seat_pointer_request_set_cursor_event*>(data);
        // Only the client with pointer focus may set the cursor image, and not while a tablet tool's client has
        // set it. A null surface (hide the cursor) is allowed and wlroots takes it; a surface with another role
        // never gets here (wl_pointer.error.role).
        if (event->seat_client != seat_->pointer_state.focused_client || tool_image_)
            return;
        wlr_cursor_set_surface(cursor_, event->surface, event->hotspot_x, event->hotspot_y);
        client_image_ = true;
        theme_image_.clear();
    });
    // A surface that gains the pointer gets the default arrow until its client sets a cursor (as it should on
    // enter); so does the desktop when the pointer leaves every window. The last client's image never lingers.
    focus_change_.connect(&seat_->pointer_state.events.focus_change, [this](void* data) {
        auto* event = static_cast<wlr_seat_pointer_focus_change_event*>(data);
        if (event->new_surface == event->old_surface)
            return;
        client_image_ = false;
        if (shown_ && !tool_image_)
            show_default();
    });
    // wlroots gives an output's cursor only an image loaded at that output's scale: after a scale change (or an
    // output added) the theme's image is loaded at the new scale and set again, so it stays the theme's own pixels.
    layout_change_.connect(&layout_->events.change, [this](void*) {
        // Each output cursor's position in pixels follows the new scale. wlroots 0.15's wlr_output_cursor_move
        // compares the new layout position with the old pixel one before scaling, so a warp to where the pointer
        // is can be taken for no move (at 1 -> 1.5 it always is): a step aside first.
        const double x = cursor_->x;
        const double y = cursor_->y;
        if (!wlr_cursor_warp(cursor_, nullptr, x + 0.5, y))
            wlr_cursor_warp(cursor_, nullptr, x - 0.5, y);
        wlr_cursor_warp(cursor_, nullptr, x, y);
        if (!shown_ || theme_image_.empty())
            return;
        const std::string name = theme_image_;
        const char* const names[] = {name.c_str()};
        show_named(names);
    });
}

CursorImage::~CursorImage()
{
    request_set_cursor_.disconnect();
    focus_change_.disconnect();
    layout_change_.disconnect();
    wlr_xcursor_manager_destroy(xcursor_);
}

void CursorImage::pointer_used()
{
    if (shown_)
        return;
    shown_ = true;
    // A client that set its cursor before the pointer first moved keeps it.
    if (!client_image_)
        show_default();
}

void CursorImage::show_tool_image(wlr_surface* surface, int32_t hotspot_x, int32_t hotspot_y)
{
    wlr_cursor_set_surface(cursor_, surface, hotspot_x, hotspot_y);
    tool_image_ = true;
    theme_image_.clear();
}

void CursorImage::drop_tool_image()
{
    if (!tool_image_)
        return;
    tool_image_ = false;
    client_image_ = false;
    show_default();
}

void CursorImage::client_shape(wl_client* client, uint32_t serial, std::span<const char* const> names)
{
    wlr_seat_client* focused = seat_->pointer_state.focused_client;
    if (!focused || focused->client != client || tool_image_ || !wlr_seat_client_validate_event_serial(focused, serial))
        return;
    if (show_named(names))
        client_image_ = true;
}

void CursorImage::show_tool_shape(std::span<const char* const> names)
{
    if (show_named(names))
        tool_image_ = true;
}

void CursorImage::show_default()
{
    static const char* const arrow[] = {"left_ptr"};
    show_named(arrow);
}

bool CursorImage::show_named(std::span<const char* const> names)
{
    // One image per output scale in use, so a HiDPI output draws the theme's own larger image, not a scaled-up one
    // (loading a scale twice is a no-op).
    wlr_output_layout_output* l_output = nullptr;
    wl_list_for_each(l_output, &layout_->outputs, link)
    {
        wlr_xcursor_manager_load(xcursor_, l_output->output->scale);
    }
    wlr_xcursor_manager_load(xcursor_, 1);
    for (const char* name : names) {
        if (wlr_xcursor_manager_get_xcursor(xcursor_, name, 1)) {
            wlr_xcursor_manager_set_cursor_image(xcursor_, name, cursor_);
            theme_image_ = name;
            return true;
        }
    }
    return false;
}

}  // namespace kiln::compositor
