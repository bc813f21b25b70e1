// compose_frame: one draw per damage rectangle, split by opacity, in stacking order.
#include "compositor/output/frame_composer.hpp"

#include <cstring>
#include <vector>

namespace kiln::compositor {
namespace {

void to_boxes(const Region& region, std::vector<renderer::Box>& out)
{
    out.clear();
    for (const auto& b : region.rects())
        out.push_back({b.x1, b.y1, b.x2 - b.x1, b.y2 - b.y1});
}

}  // namespace

void compose_frame(const VisibleSet& visible, const ComposeParams& params, renderer::Frame& frame)
{
    std::vector<renderer::Box> opaque;
    std::vector<renderer::Box> blended;
    // Only what no opaque surface covers is cleared.
    to_boxes(visible.background(), opaque);
    if (!opaque.empty())
        frame.clear(opaque, params.background);
    for (const auto& v : visible.draws()) {
        float m[9];
        wlr_matrix_project_box(m, &v.box, v.transform, 0, params.output_matrix);
        renderer::Matrix3 matrix{};
        std::memcpy(matrix.data(), m, sizeof(m));
        const renderer::Box box{v.box.x, v.box.y, v.box.width, v.box.height};
        to_boxes(v.opaque, opaque);
        to_boxes(v.blended, blended);
        if (!v.texture) {
            // A solid rectangle (a decoration's border or title bar).
            frame.draw_solid({v.color, box, matrix, opaque, blended});
            continue;
        }
        renderer::TextureDraw draw;
        draw.texture = texture_handle(v.texture);
        draw.source = {v.source.x, v.source.y, v.source.width, v.source.height};
        draw.box = box;
        draw.matrix = matrix;
        draw.opaque = opaque;
        draw.blended = blended;
        draw.filter = v.exact && !params.full_redraw ? renderer::Filter::nearest : renderer::Filter::linear;
        draw.alpha = v.alpha;  // alpha-modifier's factor (1 unless a client set one)
        draw.yuv = v.yuv;      // color-representation's coefficients and range (the default unless set)
        draw.colour = v.colour;  // color-management's description (null, sRGB, unless set)
        frame.draw_texture(draw);
    }
}

}  // namespace kiln::compositor
