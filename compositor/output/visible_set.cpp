// VisibleSet::build: collect surfaces, buffers and solid rectangles in stacking order, then cull from the top down.
#include "compositor/output/visible_set.hpp"

#include "compositor/output/opaque_pixels.hpp"
#include "compositor/output/pixel_grid.hpp"

#include <cmath>

namespace kiln::compositor {
namespace {

// Each node at its parent's pixel plus its own offset rounded once (pixel_grid.hpp).
template <typename Stacked>
void collect(wlr_scene_node* node, int x, int y, float scale, std::vector<Stacked>& out)
{
    if (!node->state.enabled)
        return;
    x += to_pixels(node->state.x, scale);
    y += to_pixels(node->state.y, scale);
    if (node->type == WLR_SCENE_NODE_SURFACE) {
        wlr_scene_surface* scene_surface = wlr_scene_surface_from_node(node);
        wlr_surface* surface = scene_surface->surface;
        if (surface && wlr_surface_has_buffer(surface))
            out.push_back({node, wlr_box{x, y, surface->current.width, surface->current.height}});
    } else if (node->type == WLR_SCENE_NODE_RECT) {
        const wlr_scene_rect* rect = scene_rect_from_node(node);
        const bool invisible = rect->color[0] == 0 && rect->color[1] == 0 && rect->color[2] == 0 && rect->color[3] == 0;
        if (rect->width > 0 && rect->height > 0 && !invisible)
            out.push_back({node, wlr_box{x, y, rect->width, rect->height}});
    } else if (node->type == WLR_SCENE_NODE_BUFFER) {
        const wlr_scene_buffer* buffer = scene_buffer_from_node(node);
        if (buffer->buffer) {
            int width = buffer->dst_width;
            int height = buffer->dst_height;
            if (width <= 0 || height <= 0) {
                const bool turned = buffer->transform & WL_OUTPUT_TRANSFORM_90;
                width = turned ? buffer->buffer->height : buffer->buffer->width;
                height = turned ? buffer->buffer->width : buffer->buffer->height;
            }
            out.push_back({node, wlr_box{x, y, width, height}});
        }
    }
    wlr_scene_node* child = nullptr;
    // Children are listed bottom to top.
    wl_list_for_each(child, &node->state.children, state.link)
        collect(child, x, y, scale, out);
}

}  // namespace

void VisibleSet::build(wlr_scene* scene, wlr_output* output, wlr_renderer* renderer, int ox, int oy,
                       const Region& damage, bool cull)
{
    on_output_.clear();
    draws_.clear();
    culled_ = 0;

    const float scale = output->scale;
    stack_.clear();
    collect(&scene->node, -to_pixels(ox, scale), -to_pixels(oy, scale), scale, stack_);

    Region covered;  // opaque area of the surfaces above, output buffer coordinates
    top_down_.clear();
    for (auto it = stack_.rbegin(); it != stack_.rend(); ++it) {
        VisibleNode v;
        const wlr_box layout = it->layout;
        v.box = wlr_box{layout.x, layout.y, to_pixels(layout.width, scale), to_pixels(layout.height, scale)};
        wlr_surface* surface = nullptr;
        if (it->node->type == WLR_SCENE_NODE_SURFACE) {
            surface = wlr_scene_surface_from_node(it->node)->surface;
            v.texture = wlr_surface_get_texture(surface);
            if (!v.texture)
                continue;
            v.surface = surface;
            v.alpha = surface_alpha_ ? surface_alpha_(surface) : 1.0f;
            v.yuv = surface_yuv_ ? surface_yuv_(surface) : renderer::YuvEncoding{};
            if (surface_colour_)
                v.colour = surface_colour_(surface);
            wlr_surface_get_buffer_source_box(surface, &v.source);
            v.transform = wlr_output_transform_invert(surface->current.transform);
        } else if (wlr_scene_buffer* buffer = scene_buffer_from_node(it->node)) {
            // Kept in the node, which destroys it with itself (as wlroots' own scene rendering does).
            if (!buffer->texture)
                buffer->texture = wlr_texture_from_buffer(renderer, buffer->buffer);
            v.texture = buffer->texture;
            if (!v.texture)
                continue;
            const bool whole = buffer->src_box.width <= 0 || buffer->src_box.height <= 0;
            v.source = whole ? wlr_fbox{0, 0, static_cast<double>(v.texture->width),
                                        static_cast<double>(v.texture->height)}
                             : buffer->src_box;
            v.transform = wlr_output_transform_invert(buffer->transform);
        } else {
            const float* c = scene_rect_from_node(it->node)->color;
            v.color = {c[0], c[1], c[2], c[3]};
            v.source = {0, 0, static_cast<double>(v.box.width), static_cast<double>(v.box.height)};
        }

        Region on_screen(v.box.x, v.box.y, v.box.width, v.box.height);
        on_screen.intersect_rect(0, 0, output->width, output->height);
        if (cull)
            on_screen.subtract(covered);
        if (on_screen.empty()) {
            Region in_damage(v.box.x, v.box.y, v.box.width, v.box.height);
            in_damage.intersect(damage);
            culled_ += in_damage.empty() ? 0 : 1;
            continue;
        }

        // Opaque: a rectangle of alpha 1 or an opaque format covers the box; otherwise the client's opaque region
        // (surface coordinates). A surface faded by an alpha factor covers nothing.
        Region opaque_area;
        if (v.alpha < 1.0f) {
            // blended whole, and what is under it is drawn
        } else if (v.texture ? wlr_texture_is_opaque(v.texture) : v.color.a >= 1.0f) {
            opaque_area = Region(v.box.x, v.box.y, v.box.width, v.box.height);
            v.fully_opaque = true;
        } else if (surface && pixman_region32_not_empty(&surface->opaque_region)) {
            opaque_area = opaque_pixels(&surface->opaque_region, layout.width, layout.height, v.box);
            v.fully_opaque = opaque_area.area() == static_cast<uint64_t>(v.box.width) * v.box.height;
        }

        if (!cull)
            opaque_area.clear();  // everything blended, like a compositor that knows nothing of opacity
        Region to_draw = on_screen;
        to_draw.intersect(damage);
        v.opaque = to_draw;
        v.opaque.intersect(opaque_area);
        v.blended = to_draw;
        v.blended.subtract(opaque_area);
        v.exact = v.transform == WL_OUTPUT_TRANSFORM_NORMAL && v.source.x == std::floor(v.source.x) &&
                  v.source.y == std::floor(v.source.y) && v.source.width == v.box.width &&
                  v.source.height == v.box.height;

        covered.add(opaque_area);
        top_down_.push_back(std::move(v));
    }

    background_ = damage;
    if (cull)
        background_.subtract(covered);
    for (auto it = top_down_.rbegin(); it != top_down_.rend(); ++it) {
        if (!it->opaque.empty() || !it->blended.empty())
            draws_.push_back(*it);
        on_output_.push_back(std::move(*it));
    }
}

}  // namespace kiln::compositor
