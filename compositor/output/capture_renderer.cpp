// Capture drawing: a visible set (the output's, or one tree's) composed into a GlFrame on the client's buffer, then
// read back into its memory, damage rectangles only.
#include "compositor/output/capture_renderer.hpp"

#include "compositor/bridge/gl_frame.hpp"
#include "compositor/bridge/render_bridge.hpp"
#include "compositor/output/frame_composer.hpp"
#include "compositor/output/frame_factory.hpp"
#include "compositor/output/pixel_grid.hpp"
#include "compositor/output/visible_set.hpp"

#include <cmath>
#include <cstring>
#include <vector>

namespace kiln::compositor {
namespace {

std::vector<renderer::Box> to_boxes(const Region& region)
{
    std::vector<renderer::Box> boxes;
    for (const auto& b : region.rects())
        boxes.push_back({b.x1, b.y1, b.x2 - b.x1, b.y2 - b.y1});
    return boxes;
}

renderer::Matrix3 project(const wlr_box& box, wl_output_transform transform, const float* projection)
{
    float m[9];
    wlr_matrix_project_box(m, &box, transform, 0, projection);
    renderer::Matrix3 matrix{};
    std::memcpy(matrix.data(), m, sizeof(m));
    return matrix;
}

// Ends the frame and copies `damage` into the buffer's memory where GL drew into a copy of it (shm).
bool finish(RenderBridge& bridge, GlFrame& frame, wlr_buffer* destination, const Region& damage)
{
    const bool cpu = frame.target_is_cpu();
    frame.finish();  // a read-back waits for GL's commands itself
    return !cpu || bridge.read_back(destination, to_boxes(damage));
}

// Draws `texture` onto `box` (target pixels) inside `damage`, blended.
void draw_blended(renderer::Frame& frame, wlr_texture* texture, const wlr_fbox& source, const wlr_box& box,
                  wl_output_transform transform, const float* projection, const Region& damage, float alpha = 1.0f,
                  renderer::YuvEncoding yuv = {}, const renderer::SurfaceColour& colour = {})
{
    Region inside(box.x, box.y, box.width, box.height);
    inside.intersect(damage);
    if (inside.empty())
        return;
    const std::vector<renderer::Box> blended = to_boxes(inside);
    renderer::TextureDraw draw;
    draw.texture = texture_handle(texture);
    draw.source = {source.x, source.y, source.width, source.height};
    draw.box = {box.x, box.y, box.width, box.height};
    draw.matrix = project(box, transform, projection);
    draw.blended = blended;
    draw.alpha = alpha;
    draw.yuv = yuv;
    draw.colour = colour;
    draw.filter = source.width == box.width && source.height == box.height ? renderer::Filter::nearest
                                                                           : renderer::Filter::linear;
    frame.draw_texture(draw);
}

// The output's cursors (hardware or software) as wlroots places them: the hotspot at (x, y), buffer pixels.
void draw_cursors(renderer::Frame& frame, wlr_output* output, const Region& damage)
{
    wlr_output_cursor* cursor = nullptr;
    wl_list_for_each(cursor, &output->cursors, link)
    {
        if (!cursor->enabled || !cursor->visible)
            continue;
        // A client's cursor surface wins over an image set before it (wlroots keeps that texture).
        wlr_texture* texture = cursor->surface ? wlr_surface_get_texture(cursor->surface) : cursor->texture;
        if (!texture)
            continue;
        const wlr_box box{static_cast<int>(std::lround(cursor->x)) - cursor->hotspot_x,
                          static_cast<int>(std::lround(cursor->y)) - cursor->hotspot_y,
                          static_cast<int>(cursor->width), static_cast<int>(cursor->height)};
        const wlr_fbox source{0, 0, static_cast<double>(texture->width), static_cast<double>(texture->height)};
        draw_blended(frame, texture, source, box, WL_OUTPUT_TRANSFORM_NORMAL, output->transform_matrix, damage);
    }
}

}  // namespace

bool capture_output(RenderBridge& bridge, wlr_scene_output* scene_output, renderer::Color background,
                    const SurfaceLooks& looks, bool cursors, wlr_buffer* destination, const Region& damage)
{
    wlr_output* output = scene_output->output;
    VisibleSet visible;
    visible.set_surface_alpha(looks.alpha);
    visible.set_surface_yuv(looks.yuv);
    visible.set_surface_colour(looks.colour);
    visible.build(scene_output->scene, output, bridge.wlr(), scene_output->x, scene_output->y, damage);
    // No output given to the frame: it draws no software cursor itself; the option decides below.
    const std::shared_ptr<const renderer::ImageDescription> colour = looks.output ? looks.output(output) : nullptr;
    // Composed as the output composes it (linear light or not), so the capture holds what the output shows.
    std::unique_ptr<GlFrame> frame =
        GlFrame::begin(bridge, destination, nullptr, damage, colour.get(), linear_light_frame(visible, colour.get()));
    if (!frame)
        return false;
    compose_frame(visible, {output->transform_matrix, background, false}, *frame);
    if (cursors)
        draw_cursors(*frame, output, damage);
    return finish(bridge, *frame, destination, damage);
}

namespace {

// Makes the textures of the tree's enabled buffer nodes that have none yet (a server-side decoration's title, before
// the output first drew it): wlroots refuses to make a texture while a frame is being rendered.
void prepare_textures(RenderBridge& bridge, wlr_scene_node* node)
{
    if (!node || !node->state.enabled)
        return;
    if (wlr_scene_buffer* buffer = scene_buffer_from_node(node); buffer && buffer->buffer && !buffer->texture)
        buffer->texture = wlr_texture_from_buffer(bridge.wlr(), buffer->buffer);
    wlr_scene_node* child = nullptr;
    wl_list_for_each(child, &node->state.children, state.link)
        prepare_textures(bridge, child);
}

}  // namespace

bool capture_tree(RenderBridge& bridge, wlr_scene_node* root, const wlr_box& area, float scale,
                  const SurfaceLooks& looks, const CaptureCursor* cursor, wlr_buffer* destination,
                  const Region& damage)
{
    prepare_textures(bridge, root);
    // A window alone is captured in sRGB, whatever output it is on.
    std::unique_ptr<GlFrame> frame = GlFrame::begin(bridge, destination, nullptr, damage, nullptr);
    if (!frame)
        return false;
    // Boxes are the buffer's own pixels, as an untransformed output's are (the renderer projects them itself).
    float projection[9];
    wlr_matrix_identity(projection);
    const std::vector<renderer::Box> all = to_boxes(damage);
    frame->clear(all, {0, 0, 0, 0});

    // The tree's own nodes bottom to top, each at its layout position: nothing outside the tree is drawn, so a
    // window covered by another is captured as it is.
    if (!root)
        return finish(bridge, *frame, destination, damage);  // nothing to draw: transparent
    int x = 0;
    int y = 0;
    wlr_scene_node_coords(root, &x, &y);
    // Placed as an output frame places them (pixel_grid.hpp), from the area's corner: each node at its parent's pixel
    // plus its own offset rounded once, round(size x scale) pixels, so a fractional-scale client's buffer is 1:1.
    auto place = [&](int px, int py, int width, int height) {
        return wlr_box{px, py, to_pixels(width, scale), to_pixels(height, scale)};
    };
    auto draw = [&](auto& self, wlr_scene_node* node, int px, int py) -> void {
        if (!node->state.enabled)
            return;
        if (node->type == WLR_SCENE_NODE_SURFACE) {
            wlr_surface* surface = wlr_scene_surface_from_node(node)->surface;
            if (wlr_texture* texture = surface ? wlr_surface_get_texture(surface) : nullptr) {
                wlr_fbox source{};
                wlr_surface_get_buffer_source_box(surface, &source);
                draw_blended(*frame, texture, source, place(px, py, surface->current.width, surface->current.height),
                             wlr_output_transform_invert(surface->current.transform), projection, damage,
                             looks.alpha ? looks.alpha(surface) : 1.0f,
                             looks.yuv ? looks.yuv(surface) : renderer::YuvEncoding{},
                             looks.colour ? looks.colour(surface) : renderer::SurfaceColour{});
            }
        } else if (node->type == WLR_SCENE_NODE_RECT) {
            const wlr_scene_rect* rect = scene_rect_from_node(node);
            const wlr_box box = place(px, py, rect->width, rect->height);
            Region inside(box.x, box.y, box.width, box.height);
            inside.intersect(damage);
            const std::vector<renderer::Box> blended = to_boxes(inside);
            if (!blended.empty())
                frame->draw_solid({{rect->color[0], rect->color[1], rect->color[2], rect->color[3]},
                                   {box.x, box.y, box.width, box.height},
                                   project(box, WL_OUTPUT_TRANSFORM_NORMAL, projection),
                                   {},
                                   blended});
        } else if (wlr_scene_buffer* buffer = scene_buffer_from_node(node); buffer && buffer->buffer) {
            if (wlr_texture* texture = buffer->texture) {  // made by prepare_textures, before the frame began
                const bool whole = buffer->src_box.width <= 0 || buffer->src_box.height <= 0;
                const wlr_fbox source = whole ? wlr_fbox{0, 0, static_cast<double>(texture->width),
                                                         static_cast<double>(texture->height)}
                                              : buffer->src_box;
                const bool turned = buffer->transform & WL_OUTPUT_TRANSFORM_90;
                const int width = buffer->dst_width > 0 ? buffer->dst_width
                                                        : (turned ? buffer->buffer->height : buffer->buffer->width);
                const int height = buffer->dst_height > 0 ? buffer->dst_height
                                                          : (turned ? buffer->buffer->width : buffer->buffer->height);
                draw_blended(*frame, texture, source, place(px, py, width, height),
                             wlr_output_transform_invert(buffer->transform), projection, damage);
            }
        }
        wlr_scene_node* child = nullptr;
        wl_list_for_each(child, &node->state.children, state.link)
            self(self, child, px + to_pixels(child->state.x, scale), py + to_pixels(child->state.y, scale));
    };
    draw(draw, root, to_pixels(x - area.x, scale), to_pixels(y - area.y, scale));
    if (cursor && cursor->texture) {
        const wlr_fbox source{0, 0, static_cast<double>(cursor->texture->width),
                              static_cast<double>(cursor->texture->height)};
        draw_blended(*frame, cursor->texture, source, cursor->box, WL_OUTPUT_TRANSFORM_NORMAL, projection, damage);
    }
    return finish(bridge, *frame, destination, damage);
}

bool capture_texture(RenderBridge& bridge, wlr_texture* texture, wlr_buffer* destination)
{
    const Region all(0, 0, destination->width, destination->height);
    std::unique_ptr<GlFrame> frame = GlFrame::begin(bridge, destination, nullptr, all, nullptr);
    if (!frame)
        return false;
    // Boxes are the buffer's own pixels, as an untransformed output's are (the renderer projects them itself).
    float projection[9];
    wlr_matrix_identity(projection);
    frame->clear(to_boxes(all), {0, 0, 0, 0});
    const wlr_fbox source{0, 0, static_cast<double>(texture->width), static_cast<double>(texture->height)};
    draw_blended(*frame, texture, source, {0, 0, static_cast<int>(texture->width), static_cast<int>(texture->height)},
                 WL_OUTPUT_TRANSFORM_NORMAL, projection, all);
    return finish(bridge, *frame, destination, all);
}

}  // namespace kiln::compositor
