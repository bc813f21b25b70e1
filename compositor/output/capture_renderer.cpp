// Capture drawing: a visible set (the output's, or one tree's) composed for the client's buffer, damage rectangles
// only: on the CPU where the output's frames may be (shm windows read where they lie; into a scratch image, whose
// damage is then copied into the buffer), else into a GlFrame on it, then read back into its memory.
#include "compositor/output/capture_renderer.hpp"

#include "compositor/bridge/gl_frame.hpp"
#include "compositor/bridge/render_bridge.hpp"
#include "compositor/output/cpu_composition.hpp"
#include "compositor/output/frame_composer.hpp"
#include "compositor/output/frame_factory.hpp"
#include "compositor/output/pixel_grid.hpp"
#include "compositor/output/visible_set.hpp"
#include "renderer/colour/colour_pipeline.hpp"
#include "renderer/cpu_compositor.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
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

// A capture buffer's pixels as composed on the CPU, kept with the client's buffer for its next frames: libwayland lets
// kiln access one client shm pool at a time, and the windows are read in their own pools while a frame is composed,
// so the frame is composed here and its damage copied into the client's buffer after.
struct CaptureScratch {
    wlr_addon addon;
    std::vector<uint8_t> pixels;
    renderer::CpuImage image;
};

const wlr_addon_interface scratch_addon_impl{
    "kiln_capture_scratch",
    [](wlr_addon* addon) noexcept {
        auto* scratch = reinterpret_cast<CaptureScratch*>(addon);
        wlr_addon_finish(addon);
        delete scratch;
    },
};

// `destination`'s scratch image (made on its first CPU capture, its size and format), or nullptr if it has no memory.
CaptureScratch* scratch_of(wlr_buffer* destination)
{
    if (wlr_addon* addon = wlr_addon_find(&destination->addons, &scratch_addon_impl, &scratch_addon_impl))
        return reinterpret_cast<CaptureScratch*>(addon);
    void* data = nullptr;
    uint32_t format = 0;
    size_t stride = 0;
    if (!wlr_buffer_begin_data_ptr_access(destination, WLR_BUFFER_DATA_PTR_ACCESS_READ, &data, &format, &stride))
        return nullptr;
    wlr_buffer_end_data_ptr_access(destination);
    auto* scratch = new CaptureScratch{};
    const uint32_t row = static_cast<uint32_t>(destination->width) * 4;  // every capture format is 32-bit
    scratch->pixels.resize(static_cast<size_t>(row) * static_cast<size_t>(destination->height));
    scratch->image = {format, destination->width, destination->height, row, scratch->pixels.data()};
    wlr_addon_init(&scratch->addon, &destination->addons, &scratch_addon_impl, &scratch_addon_impl);
    return scratch;
}

// Copies `damage` of the scratch image into the client's buffer: the only pixels of it a capture writes.
bool copy_damage(const CaptureScratch& scratch, wlr_buffer* destination, const Region& damage)
{
    void* data = nullptr;
    uint32_t format = 0;
    size_t stride = 0;
    if (!wlr_buffer_begin_data_ptr_access(destination, WLR_BUFFER_DATA_PTR_ACCESS_WRITE, &data, &format, &stride))
        return false;
    Region inside = damage;
    inside.intersect_rect(0, 0, destination->width, destination->height);
    const auto* from = static_cast<const uint8_t*>(scratch.image.data);
    auto* to = static_cast<uint8_t*>(data);
    for (const auto& r : inside.rects()) {
        const size_t bytes = static_cast<size_t>(r.x2 - r.x1) * 4;
        for (int y = r.y1; y < r.y2; ++y)
            std::memcpy(to + static_cast<size_t>(y) * stride + static_cast<size_t>(r.x1) * 4,
                        from + static_cast<size_t>(y) * scratch.image.stride + static_cast<size_t>(r.x1) * 4, bytes);
    }
    wlr_buffer_end_data_ptr_access(destination);
    return true;
}

// Whether the output's capture into `destination` (memory pixman can write) can be composed on the CPU: frames may
// be (llvmpipe), the scene passes what the output's own CPU frames need, and each cursor the capture draws is a CPU
// image placed 1:1. Then the capture reads the clients' shm where it lies, as the output's frames do: GL would have to
// be given every commit's buffer whole first (an in-place texture is one commit's, so each gets GL storage of its own).
bool capture_on_cpu(RenderBridge& bridge, const VisibleSet& visible, wlr_output* output,
                    const renderer::ImageDescription* colour, bool cursors, wlr_buffer* destination)
{
    if (!bridge.composition().cpu() || !can_compose_on_cpu(visible, output, colour, destination))
        return false;
    if (!cursors)
        return true;
    wlr_output_cursor* cursor = nullptr;
    wl_list_for_each(cursor, &output->cursors, link)
    {
        if (!cursor->enabled || !cursor->visible)
            continue;
        wlr_texture* texture = cursor->surface ? wlr_surface_get_texture(cursor->surface) : cursor->texture;
        if (texture && (!ClientTextures::has_cpu_image(texture) || texture->width != cursor->width ||
                        texture->height != cursor->height))
            return false;
    }
    return true;
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
    if (capture_on_cpu(bridge, visible, output, colour.get(), cursors, destination)) {
        CaptureScratch* scratch = scratch_of(destination);
        if (std::unique_ptr<renderer::Frame> frame = scratch ? begin_cpu_frame(scratch->image, damage) : nullptr) {
            compose_frame(visible, {output->transform_matrix, background, false}, *frame);
            if (cursors)
                draw_cursors(*frame, output, damage);
            frame->finish();
            return copy_damage(*scratch, destination, damage);
        }
    }
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

namespace {

// One thing a window's capture draws, in the capture buffer's pixels: a texture (`source` of it onto `box`), or a
// solid rectangle.
struct TreeDraw {
    wlr_texture* texture = nullptr;
    wlr_fbox source{};
    wl_output_transform transform = WL_OUTPUT_TRANSFORM_NORMAL;
    float alpha = 1.0f;
    renderer::YuvEncoding yuv{};
    renderer::SurfaceColour colour{};
    const wlr_scene_rect* rect = nullptr;
    wlr_box box{};
};

// The tree's own nodes bottom to top, each at its layout position inside `area` at `scale`: nothing outside the tree
// is drawn, so a window covered by another is captured as it is.
std::vector<TreeDraw> tree_draws(wlr_scene_node* root, const wlr_box& area, float scale, const SurfaceLooks& looks)
{
    std::vector<TreeDraw> out;
    if (!root)
        return out;
    int x = 0;
    int y = 0;
    wlr_scene_node_coords(root, &x, &y);
    // Placed as an output frame places them (pixel_grid.hpp), from the area's corner: each node at its parent's pixel
    // plus its own offset rounded once, round(size x scale) pixels, so a fractional-scale client's buffer is 1:1.
    auto place = [&](int px, int py, int width, int height) {
        return wlr_box{px, py, to_pixels(width, scale), to_pixels(height, scale)};
    };
    auto visit = [&](auto& self, wlr_scene_node* node, int px, int py) -> void {
        if (!node->state.enabled)
            return;
        if (node->type == WLR_SCENE_NODE_SURFACE) {
            wlr_surface* surface = wlr_scene_surface_from_node(node)->surface;
            if (wlr_texture* texture = surface ? wlr_surface_get_texture(surface) : nullptr) {
                TreeDraw draw;
                draw.texture = texture;
                wlr_surface_get_buffer_source_box(surface, &draw.source);
                draw.box = place(px, py, surface->current.width, surface->current.height);
                draw.transform = wlr_output_transform_invert(surface->current.transform);
                draw.alpha = looks.alpha ? looks.alpha(surface) : 1.0f;
                draw.yuv = looks.yuv ? looks.yuv(surface) : renderer::YuvEncoding{};
                draw.colour = looks.colour ? looks.colour(surface) : renderer::SurfaceColour{};
                out.push_back(draw);
            }
        } else if (node->type == WLR_SCENE_NODE_RECT) {
            const wlr_scene_rect* rect = scene_rect_from_node(node);
            TreeDraw draw;
            draw.rect = rect;
            draw.box = place(px, py, rect->width, rect->height);
            out.push_back(draw);
        } else if (wlr_scene_buffer* buffer = scene_buffer_from_node(node); buffer && buffer->buffer) {
            if (wlr_texture* texture = buffer->texture) {  // made by prepare_textures, before the frame began
                const bool whole = buffer->src_box.width <= 0 || buffer->src_box.height <= 0;
                TreeDraw draw;
                draw.texture = texture;
                draw.source = whole ? wlr_fbox{0, 0, static_cast<double>(texture->width),
                                               static_cast<double>(texture->height)}
                                    : buffer->src_box;
                const bool turned = buffer->transform & WL_OUTPUT_TRANSFORM_90;
                const int width = buffer->dst_width > 0 ? buffer->dst_width
                                                        : (turned ? buffer->buffer->height : buffer->buffer->width);
                const int height = buffer->dst_height > 0 ? buffer->dst_height
                                                          : (turned ? buffer->buffer->width : buffer->buffer->height);
                draw.box = place(px, py, width, height);
                draw.transform = wlr_output_transform_invert(buffer->transform);
                out.push_back(draw);
            }
        }
        wlr_scene_node* child = nullptr;
        wl_list_for_each(child, &node->state.children, state.link)
            self(self, child, px + to_pixels(child->state.x, scale), py + to_pixels(child->state.y, scale));
    };
    visit(visit, root, to_pixels(x - area.x, scale), to_pixels(y - area.y, scale));
    return out;
}

// Whether CPU composition draws `draw` as GL would: a rectangle, or a texture with a CPU image whose texels map 1:1
// onto the capture's pixels and whose pixels need none of GL's programs (as can_compose_on_cpu asks of an output).
bool cpu_draws(const TreeDraw& draw)
{
    if (!draw.texture)
        return true;
    return ClientTextures::has_cpu_image(draw.texture) && draw.transform == WL_OUTPUT_TRANSFORM_NORMAL &&
           draw.source.x == std::floor(draw.source.x) && draw.source.y == std::floor(draw.source.y) &&
           draw.source.width == draw.box.width && draw.source.height == draw.box.height &&
           renderer::is_plain(draw.colour) && draw.yuv.alpha == renderer::AlphaMode::premultiplied_electrical;
}

}  // namespace

bool capture_tree(RenderBridge& bridge, wlr_scene_node* root, const wlr_box& area, float scale,
                  const SurfaceLooks& looks, const CaptureCursor* cursor, wlr_buffer* destination,
                  const Region& damage)
{
    prepare_textures(bridge, root);
    const std::vector<TreeDraw> draws = tree_draws(root, area, scale, looks);
    const bool with_cursor = cursor && cursor->texture;
    // On the CPU where every draw allows it, as capture_output does: the window's shm is read where it lies, nothing
    // is uploaded or read back.
    bool on_cpu = bridge.composition().cpu() && can_compose_into(destination) &&
                  std::all_of(draws.begin(), draws.end(), cpu_draws);
    if (on_cpu && with_cursor)
        on_cpu = ClientTextures::has_cpu_image(cursor->texture) &&
                 static_cast<int>(cursor->texture->width) == cursor->box.width &&
                 static_cast<int>(cursor->texture->height) == cursor->box.height;
    CaptureScratch* scratch = on_cpu ? scratch_of(destination) : nullptr;
    std::unique_ptr<renderer::Frame> cpu_frame = scratch ? begin_cpu_frame(scratch->image, damage) : nullptr;
    // A window alone is captured in sRGB, whatever output it is on.
    std::unique_ptr<GlFrame> gl_frame = cpu_frame ? nullptr : GlFrame::begin(bridge, destination, nullptr, damage,
                                                                              nullptr);
    if (!cpu_frame && !gl_frame)
        return false;
    renderer::Frame& frame = cpu_frame ? *cpu_frame : static_cast<renderer::Frame&>(*gl_frame);
    // Boxes are the buffer's own pixels, as an untransformed output's are (the renderer projects them itself).
    float projection[9];
    wlr_matrix_identity(projection);
    frame.clear(to_boxes(damage), {0, 0, 0, 0});  // transparent where the tree draws nothing
    for (const TreeDraw& draw : draws) {
        if (draw.texture) {
            draw_blended(frame, draw.texture, draw.source, draw.box, draw.transform, projection, damage, draw.alpha,
                         draw.yuv, draw.colour);
            continue;
        }
        Region inside(draw.box.x, draw.box.y, draw.box.width, draw.box.height);
        inside.intersect(damage);
        const std::vector<renderer::Box> blended = to_boxes(inside);
        const float* color = draw.rect->color;
        if (!blended.empty())
            frame.draw_solid({{color[0], color[1], color[2], color[3]},
                              {draw.box.x, draw.box.y, draw.box.width, draw.box.height},
                              project(draw.box, WL_OUTPUT_TRANSFORM_NORMAL, projection),
                              {},
                              blended});
    }
    if (with_cursor) {
        const wlr_fbox source{0, 0, static_cast<double>(cursor->texture->width),
                              static_cast<double>(cursor->texture->height)};
        draw_blended(frame, cursor->texture, source, cursor->box, WL_OUTPUT_TRANSFORM_NORMAL, projection, damage);
    }
    if (cpu_frame) {
        cpu_frame->finish();
        return copy_damage(*scratch, destination, damage);
    }
    return finish(bridge, *gl_frame, destination, damage);
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
