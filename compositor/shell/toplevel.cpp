// Toplevel behaviour both kinds of window share: minimizing, the geometry a maximized or fullscreen window goes
// back to, a resize's anchored edges, and where kiln's decoration sits.
#include "compositor/shell/toplevel.hpp"

#include "compositor/shell/toplevels.hpp"

namespace kiln::compositor {

Toplevel::~Toplevel() = default;

void Toplevel::set_minimized(bool minimized)
{
    if (minimized == minimized_)
        return;
    minimized_ = minimized;
    show_minimized(minimized || off_workspace_);
    if (minimized) {
        set_activated(false);
        toplevels_.hidden(*this);
    }
    wl_signal_emit(&events.state, this);
}

void Toplevel::set_off_workspace(bool off)
{
    if (off == off_workspace_)
        return;
    off_workspace_ = off;
    show_minimized(minimized_ || off);
}

void Toplevel::save_geometry()
{
    if (!maximized_ && !fullscreen_)
        saved_ = mapped() ? geometry() : wlr_box{};
}

std::optional<wlr_box> Toplevel::take_saved_geometry()
{
    if (saved_.width <= 0 || saved_.height <= 0)
        return std::nullopt;
    const wlr_box saved = saved_;
    saved_ = {};
    return saved;
}

void Toplevel::anchor_resize(uint32_t edges)
{
    resize_edges_ = edges;
    if (edges)
        resize_start_ = geometry();
}

wlr_box Toplevel::anchored(int width, int height) const
{
    const wlr_box box = geometry();
    const placement::Point corner = placement::resize_corner(
        {resize_start_.x, resize_start_.y, resize_start_.width, resize_start_.height}, {box.x, box.y}, width, height,
        resize_edges_ & WLR_EDGE_LEFT, resize_edges_ & WLR_EDGE_TOP);
    return {corner.x, corner.y, width, height};
}

wlr_output* Toplevel::output_in(wlr_output_layout* layout) const
{
    const wlr_box box = geometry();
    wlr_output* output = wlr_output_layout_output_at(layout, box.x + box.width / 2.0, box.y + box.height / 2.0);
    return output ? output : wlr_output_layout_get_center_output(layout);
}

void Toplevel::update_decoration_frame(int width, int height, const char* title,
                                       std::shared_ptr<const TitleIcon> icon)
{
    if (decoration_)
        decoration_->update(width, height, activated_, !fullscreen_, title ? title : "", std::move(icon));
}

ServerDecoration::Part Toplevel::decoration_at(double lx, double ly) const
{
    if (!decoration_)
        return {};
    const wlr_box box = geometry();
    return decoration_->part_at(lx - box.x, ly - box.y);
}

}  // namespace kiln::compositor
