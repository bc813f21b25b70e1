// Title text: Pango lays the title out in one ellipsized line, cairo draws it into memory a wlr_buffer hands out.
#include "compositor/shell/title_text.hpp"

#include <drm_fourcc.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#if KILN_HAVE_PANGO
#include <pango/pangocairo.h>
#endif

namespace kiln::compositor {

int title_pixels(int length, float scale)
{
    return static_cast<int>(std::lround(length * static_cast<double>(scale)));
}

#if KILN_HAVE_PANGO
namespace {

// A cairo image surface (ARGB32: XRGB8888 in memory, opaque here) as a read-only wlr_buffer.
struct TextBuffer {
    wlr_buffer base;  // first: wlroots hands this pointer back
    cairo_surface_t* surface;
};

void buffer_destroy(wlr_buffer* buffer) noexcept
{
    auto* self = reinterpret_cast<TextBuffer*>(buffer);
    cairo_surface_destroy(self->surface);
    delete self;
}

bool begin_access(wlr_buffer* buffer, uint32_t flags, void** data, uint32_t* format, size_t* stride) noexcept
{
    if (flags & WLR_BUFFER_DATA_PTR_ACCESS_WRITE)
        return false;
    auto* self = reinterpret_cast<TextBuffer*>(buffer);
    *data = cairo_image_surface_get_data(self->surface);
    *format = DRM_FORMAT_XRGB8888;
    *stride = static_cast<size_t>(cairo_image_surface_get_stride(self->surface));
    return true;
}

void end_access(wlr_buffer*) noexcept {}

const wlr_buffer_impl buffer_impl = {
    .destroy = buffer_destroy,
    .get_dmabuf = nullptr,
    .get_shm = nullptr,
    .begin_data_ptr_access = begin_access,
    .end_data_ptr_access = end_access,
};

double channel(uint32_t rgb, int shift)
{
    return static_cast<double>((rgb >> shift) & 0xff) / 255.0;
}

// How many characters of UTF-8 `text` are not white space: the ones that need a glyph. Text that is not UTF-8 (an X
// client's Latin-1 title) counts every byte, so its boxes still show.
int visible_characters(const std::string& text)
{
    if (!g_utf8_validate(text.c_str(), static_cast<gssize>(text.size()), nullptr))
        return static_cast<int>(text.size());
    int count = 0;
    for (const char* c = text.c_str(); *c; c = g_utf8_next_char(c))
        count += g_unichar_isspace(g_utf8_get_char(c)) ? 0 : 1;
    return count;
}

// Draws `icon` at (x, y), scaled to `side` pixels square, over what is there.
void draw_icon(cairo_t* cr, const TitleIcon& icon, double x, double y, int side)
{
    // cairo's ARGB32 is premultiplied ARGB in native-endian words: the layout of wl_shm's argb8888.
    const int stride = cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, icon.size);
    cairo_surface_t* image = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, icon.size, icon.size);
    if (cairo_surface_status(image) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(image);
        return;
    }
    cairo_surface_flush(image);
    unsigned char* data = cairo_image_surface_get_data(image);
    for (int row = 0; row < icon.size; ++row)
        std::memcpy(data + static_cast<size_t>(row) * static_cast<size_t>(stride),
                    icon.argb.data() + static_cast<size_t>(row) * static_cast<size_t>(icon.size),
                    static_cast<size_t>(icon.size) * 4);
    cairo_surface_mark_dirty(image);
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_scale(cr, static_cast<double>(side) / icon.size, static_cast<double>(side) / icon.size);
    cairo_set_source_surface(cr, image, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD);
    cairo_paint(cr);
    cairo_restore(cr);
    cairo_surface_destroy(image);
}

}  // namespace

wlr_buffer* render_title(const std::string& title, int logical_width, int logical_height, uint32_t background_rgb,
                         const TitleIcon* icon, float scale)
{
    if (icon && (icon->size <= 0 || icon->argb.size() != static_cast<size_t>(icon->size) * icon->size))
        icon = nullptr;
    if (!(scale > 0.0f))
        scale = 1.0f;
    // Everything below is in the buffer's own pixels.
    const int width = title_pixels(logical_width, scale);
    const int height = title_pixels(logical_height, scale);
    if ((title.empty() && !icon) || width <= 0 || height <= 0)
        return nullptr;
    cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(surface);
        return nullptr;
    }
    cairo_t* cr = cairo_create(surface);
    cairo_set_source_rgb(cr, channel(background_rgb, 16), channel(background_rgb, 8), channel(background_rgb, 0));
    cairo_paint(cr);
    int text_x = 0;
    const int icon_side = title_pixels(icon_size(logical_height), scale);
    if (icon && icon_side > 0) {
        draw_icon(cr, *icon, 0, (height - icon_side) / 2.0, icon_side);
        text_x = icon_side + title_pixels(4, scale);
    }
    PangoLayout* layout = pango_cairo_create_layout(cr);
    // 10 points at 1x; the font itself grows with the scale (a layout drawn through a scaled cairo matrix would be
    // hinted for 1x and land between pixels).
    PangoFontDescription* font = pango_font_description_from_string("Sans");
    pango_font_description_set_size(font, static_cast<int>(std::lround(10.0 * scale * PANGO_SCALE)));
    pango_layout_set_font_description(layout, font);
    pango_font_description_free(font);
    pango_layout_set_text(layout, title.c_str(), static_cast<int>(title.size()));
    pango_layout_set_width(layout, std::max(0, width - text_x) * PANGO_SCALE);
    pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END);
    pango_layout_set_single_paragraph_mode(layout, true);
    int text_width = 0;
    int text_height = 0;
    pango_layout_get_pixel_size(layout, &text_width, &text_height);
    // With no font for any of its characters (a system with no fonts at all) Pango would draw a box per character:
    // the title bar stays plain instead.
    if (pango_layout_get_unknown_glyphs_count(layout) < visible_characters(title)) {
        cairo_set_source_rgb(cr, 0.93, 0.93, 0.93);
        cairo_move_to(cr, text_x, (height - text_height) / 2.0);
        pango_cairo_show_layout(cr, layout);
    }
    g_object_unref(layout);
    cairo_destroy(cr);
    cairo_surface_flush(surface);

    auto* buffer = new TextBuffer{{}, surface};
    wlr_buffer_init(&buffer->base, &buffer_impl, width, height);
    return &buffer->base;
}

#else

wlr_buffer* render_title(const std::string&, int, int, uint32_t, const TitleIcon*, float)
{
    return nullptr;
}

#endif

}  // namespace kiln::compositor
