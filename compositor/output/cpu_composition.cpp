// CPU composition: kiln's culled visible set (surfaces, scene buffers and solid rectangles) drawn with
// renderer::CpuCompositor, no GL involved.
#include "compositor/output/cpu_composition.hpp"

#include "compositor/bridge/render_bridge.hpp"
#include "compositor/output/frame_composer.hpp"
#include "renderer/colour/colour_pipeline.hpp"
#include "renderer/cpu_compositor.hpp"
#include "renderer/formats.hpp"

#include <vector>

namespace kiln::compositor {
namespace {

renderer::Box to_box(const pixman_box32_t& b)
{
    return {b.x1, b.y1, b.x2 - b.x1, b.y2 - b.y1};
}

// The software cursors wlroots would draw into this output's frames (as wlr_output_render_software_cursors does).
template <typename F>
void for_each_software_cursor(wlr_output* output, F&& f)
{
    if (!output)
        return;  // a capture's frame: its cursors are drawn by the capture, as it was asked
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

bool can_compose_into(wlr_buffer* target)
{
    void* data = nullptr;
    uint32_t format = 0;
    size_t stride = 0;
    if (!wlr_buffer_begin_data_ptr_access(target, WLR_BUFFER_DATA_PTR_ACCESS_WRITE, &data, &format, &stride))
        return false;
    wlr_buffer_end_data_ptr_access(target);
    return renderer::cpu_format_supported(format) && stride % 4 == 0;
}

bool can_compose_on_cpu(const VisibleSet& visible, wlr_output* output, const renderer::ImageDescription* output_colour,
                        wlr_buffer* target)
{
    if (output->transform != WL_OUTPUT_TRANSFORM_NORMAL)
        return false;
    if (output_colour && !output_colour->is_plain_srgb())
        return false;  // every surface, sRGB ones too, must be converted onto the output: GL's programs
    if (!can_compose_into(target))
        return false;
    // Everything on the output, not only what this frame's damage touches: the path stays the same from frame to
    // frame while the scene does (each switch redraws every slot whole).
    // A surface with a colour description other than sRGB, or alpha that is not premultiplied electrically
    // (color-representation), needs GL's programs: pixman copies pixels as they are.
    for (const auto& v : visible.on_output())
        if (v.texture && (!v.exact || !ClientTextures::has_cpu_image(v.texture) || !renderer::is_plain(v.colour) ||
                          v.yuv.alpha != renderer::AlphaMode::premultiplied_electrical))
            return false;
    bool cursors_ok = true;
    for_each_software_cursor(output, [&](wlr_texture* texture, const wlr_box& box) {
        // The bridge's wlr_texture has its renderer texture's size.
        cursors_ok = cursors_ok && ClientTextures::has_cpu_image(texture) &&
                     static_cast<int>(texture->width) == box.width && static_cast<int>(texture->height) == box.height;
    });
    return cursors_ok;
}

namespace {

std::vector<renderer::Box> boxes_of(const Region& region)
{
    std::vector<renderer::Box> boxes;
    for (const auto& rect : region.rects())
        boxes.push_back(to_box(rect));
    return boxes;
}

Region region_of(std::span<const renderer::Box> boxes)
{
    Region region;
    for (const renderer::Box& b : boxes) {
        Region one(b.x, b.y, b.width, b.height);
        region.add(one);
    }
    return region;
}

// Composes a frame with pixman. An opaque black background (kiln's default) is owed rather than filled: a
// translucent layer composed source-over onto opaque black is its premultiplied pixels themselves (in a target with
// no alpha channel to keep), so where a layer is the first to cover the background it is copied, not blended, and
// the background is filled at finish only where nothing covered it. The same pixels, one pass fewer over the damage
// and one blend fewer (16 windows stacked on one spot: the fill and the bottom window's blend of 17 passes).
class CpuFrame final : public renderer::Frame {
public:
    CpuFrame(wlr_output* output, wlr_buffer* target, const Region& damage, const renderer::CpuImage& image)
        : output_(output),
          target_(target),
          damage_(damage),
          compositor_(image),
          target_has_alpha_(!renderer::format_info(image.fourcc) || renderer::format_info(image.fourcc)->has_alpha)
    {
    }
    ~CpuFrame() override { unmap(); }
    CpuFrame(const CpuFrame&) = delete;
    CpuFrame& operator=(const CpuFrame&) = delete;

    bool ok() const { return compositor_.ok(); }

    void clear(std::span<const renderer::Box> boxes, renderer::Color color) override
    {
        const bool opaque_black = color.r == 0.0f && color.g == 0.0f && color.b == 0.0f && color.a >= 1.0f;
        if (opaque_black && !target_has_alpha_)
            owed_black_.add(region_of(boxes));
        else
            compositor_.fill(boxes, color);
    }

    void draw_solid(const renderer::SolidDraw& draw) override
    {
        settle_black_under(draw.blended);
        if (!owed_black_.empty())
            owed_black_.subtract(region_of(draw.opaque));
        compositor_.fill_premultiplied(draw.opaque, draw.color, false);
        compositor_.fill_premultiplied(draw.blended, draw.color, true);
    }

    void draw_texture(const renderer::TextureDraw& draw) override
    {
        // Texel (source.x + i, source.y + j) lands on pixel (box.x + i, box.y + j): exact, checked by
        // can_compose_on_cpu.
        const auto sx = static_cast<int32_t>(draw.source.x) - draw.box.x;
        const auto sy = static_cast<int32_t>(draw.source.y) - draw.box.y;
        std::vector<renderer::Box> over_black;
        std::vector<renderer::Box> blended(draw.blended.begin(), draw.blended.end());
        if (draw.alpha < 1.0f)
            settle_black_under(draw.blended);  // (a factor would need a masked copy: filled and blended instead)
        if (!owed_black_.empty()) {
            // pixman writes nothing outside the source image: only pixels inside it count as covered.
            const wlr_texture* t = from_handle(draw.texture);
            Region covered = region_of(draw.opaque);
            const Region blend_region = region_of(draw.blended);
            covered.add(blend_region);
            covered.intersect_rect(-sx, -sy, static_cast<int32_t>(t->width), static_cast<int32_t>(t->height));
            // Where this layer is the first on the owed black, source-over it is the source itself: copied.
            Region first = blend_region;
            first.intersect(owed_black_);
            first.intersect(covered);
            Region rest = blend_region;
            rest.subtract(first);
            over_black = boxes_of(first);
            blended = boxes_of(rest);
            owed_black_.subtract(covered);
        }
        const bool drawn = ClientTextures::with_cpu_image(from_handle(draw.texture), [&](const renderer::CpuImage& image) {
            compositor_.copy_boxes(image, sx, sy, draw.opaque, false);
            compositor_.copy_boxes(image, sx, sy, over_black, false);
            compositor_.copy_boxes(image, sx, sy, blended, true, draw.alpha);
        });
        if (!drawn)
            compositor_.fill(over_black, {0.0f, 0.0f, 0.0f, 1.0f});  // the background it was owed
    }

    std::shared_ptr<renderer::RenderFence> finish() override
    {
        compositor_.fill(boxes_of(owed_black_), {0.0f, 0.0f, 0.0f, 1.0f});
        owed_black_.clear();
        for_each_software_cursor(output_, [&](wlr_texture* texture, const wlr_box& box) {
            Region over(box.x, box.y, box.width, box.height);
            over.intersect(damage_);
            ClientTextures::with_cpu_image(texture, [&](const renderer::CpuImage& image) {
                for (const auto& rect : over.rects())
                    compositor_.copy(image, rect.x1 - box.x, rect.y1 - box.y, to_box(rect), true);
            });
        });
        unmap();
        return nullptr;  // the pixels are in the buffer's memory already
    }

private:
    // A solid colour is blended over the owed background where it lies on it: that part is filled first.
    void settle_black_under(std::span<const renderer::Box> blended)
    {
        if (owed_black_.empty() || blended.empty())
            return;
        Region under = region_of(blended);
        under.intersect(owed_black_);
        compositor_.fill(boxes_of(under), {0.0f, 0.0f, 0.0f, 1.0f});
        owed_black_.subtract(under);
    }

    void unmap()
    {
        if (target_)
            wlr_buffer_end_data_ptr_access(target_);
        target_ = nullptr;
    }

    wlr_output* output_;
    wlr_buffer* target_;
    Region damage_;
    renderer::CpuCompositor compositor_;
    bool target_has_alpha_;
    Region owed_black_;  // background not yet filled: opaque black that no layer has covered
};

}  // namespace

std::unique_ptr<renderer::Frame> begin_cpu_frame(wlr_output* output, wlr_buffer* target, const Region& damage)
{
    void* data = nullptr;
    uint32_t format = 0;
    size_t stride = 0;
    if (!wlr_buffer_begin_data_ptr_access(target, WLR_BUFFER_DATA_PTR_ACCESS_WRITE, &data, &format, &stride))
        return nullptr;
    auto frame = std::make_unique<CpuFrame>(
        output, target, damage,
        renderer::CpuImage{format, target->width, target->height, static_cast<uint32_t>(stride), data});
    if (!frame->ok())
        return nullptr;  // unmaps
    return frame;
}

std::unique_ptr<renderer::Frame> begin_cpu_frame(const renderer::CpuImage& image, const Region& damage)
{
    auto frame = std::make_unique<CpuFrame>(nullptr, nullptr, damage, image);
    if (!frame->ok())
        return nullptr;
    return frame;
}

}  // namespace kiln::compositor
