// CPU composition: kiln's culled visible set (surfaces, scene buffers and solid rectangles) drawn with
// renderer::CpuCompositor, no GL involved.
#include "compositor/output/cpu_composition.hpp"

#include "compositor/bridge/render_bridge.hpp"
#include "renderer/cpu_compositor.hpp"

#include <vector>

namespace kiln::compositor {
namespace {

renderer::Box to_box(const pixman_box32_t& b)
{
    return {b.x1, b.y1, b.x2 - b.x1, b.y2 - b.y1};
}

// kiln's CPU copy of a texture's pixels, if it has one.
bool cpu_image(wlr_texture* texture, renderer::CpuImage& image)
{
    const renderer::Texture& t = RenderBridge::texture(texture);
    if (!t.cpu_pixels())
        return false;
    image = {t.fourcc(), t.width(), t.height(), t.cpu_stride(), const_cast<uint8_t*>(t.cpu_pixels())};
    return true;
}

// The software cursors wlroots would draw into this output's frames (as wlr_output_render_software_cursors does).
template <typename F>
void for_each_software_cursor(wlr_output* output, F&& f)
{
    wlr_output_cursor* cursor;
    wl_list_for_each(cursor, &output->cursors, link) {
        if (!cursor->enabled || !cursor->visible || output->hardware_cursor == cursor)
            continue;
        wlr_texture* texture = cursor->surface ? wlr_surface_get_texture(cursor->surface) : cursor->texture;
        if (!texture)
            continue;
        const wlr_box box{static_cast<int>(cursor->x) - cursor->hotspot_x, static_cast<int>(cursor->y) - cursor->hotspot_y,
                          static_cast<int>(cursor->width), static_cast<int>(cursor->height)};
        f(texture, box);
    }
}

}  // namespace

bool can_compose_on_cpu(const VisibleSet& visible, wlr_output* output, wlr_buffer* target)
{
    if (output->transform != WL_OUTPUT_TRANSFORM_NORMAL)
        return false;
    void* data = nullptr;
    uint32_t format = 0;
    size_t stride = 0;
    if (!wlr_buffer_begin_data_ptr_access(target, WLR_BUFFER_DATA_PTR_ACCESS_WRITE, &data, &format, &stride))
        return false;
    wlr_buffer_end_data_ptr_access(target);
    if (!renderer::cpu_format_supported(format) || stride % 4 != 0)
        return false;
    renderer::CpuImage image;
    // Everything on the output, not only what this frame's damage touches: the path stays the same from frame to
    // frame while the scene does (each switch redraws every slot whole).
    for (const auto& v : visible.on_output())
        if (v.texture && (!v.exact || !cpu_image(v.texture, image)))
            return false;
    bool cursors_ok = true;
    for_each_software_cursor(output, [&](wlr_texture* texture, const wlr_box& box) {
        cursors_ok = cursors_ok && cpu_image(texture, image) && image.width == box.width && image.height == box.height;
    });
    return cursors_ok;
}

bool compose_on_cpu(const VisibleSet& visible, wlr_output* output, wlr_buffer* target, const Region& damage,
                    renderer::Color background)
{
    void* data = nullptr;
    uint32_t format = 0;
    size_t stride = 0;
    if (!wlr_buffer_begin_data_ptr_access(target, WLR_BUFFER_DATA_PTR_ACCESS_WRITE, &data, &format, &stride))
        return false;
    renderer::CpuCompositor compositor(
        renderer::CpuImage{format, target->width, target->height, static_cast<uint32_t>(stride), data});
    if (!compositor.ok()) {
        wlr_buffer_end_data_ptr_access(target);
        return false;
    }
    std::vector<renderer::Box> boxes;
    for (const auto& rect : visible.background().rects())
        boxes.push_back(to_box(rect));
    compositor.fill(boxes, background);
    renderer::CpuImage image;
    for (const auto& v : visible.draws()) {
        if (!v.texture) {
            boxes.clear();
            for (const auto& rect : v.opaque.rects())
                boxes.push_back(to_box(rect));
            compositor.fill_premultiplied(boxes, v.color, false);
            boxes.clear();
            for (const auto& rect : v.blended.rects())
                boxes.push_back(to_box(rect));
            compositor.fill_premultiplied(boxes, v.color, true);
            continue;
        }
        cpu_image(v.texture, image);
        // Texel (source.x + i, source.y + j) lands on pixel (box.x + i, box.y + j): exact, checked above.
        const auto sx = static_cast<int32_t>(v.source.x) - v.box.x;
        const auto sy = static_cast<int32_t>(v.source.y) - v.box.y;
        for (const auto& rect : v.opaque.rects())
            compositor.copy(image, sx + rect.x1, sy + rect.y1, to_box(rect), false);
        for (const auto& rect : v.blended.rects())
            compositor.copy(image, sx + rect.x1, sy + rect.y1, to_box(rect), true, v.alpha);
    }
    for_each_software_cursor(output, [&](wlr_texture* texture, const wlr_box& box) {
        Region over(box.x, box.y, box.width, box.height);
        over.intersect(damage);
        if (!cpu_image(texture, image))
            return;
        for (const auto& rect : over.rects())
            compositor.copy(image, rect.x1 - box.x, rect.y1 - box.y, to_box(rect), true);
    });
    wlr_buffer_end_data_ptr_access(target);
    return true;
}

}  // namespace kiln::compositor
