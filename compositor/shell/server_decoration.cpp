// ServerDecoration: the rectangles' layout around the window geometry, and which part of them a point is on.
#include "compositor/shell/server_decoration.hpp"

#include "compositor/shell/title_text.hpp"

namespace kiln::compositor {

namespace {

constexpr int close_size = ServerDecoration::title_height - ServerDecoration::border - 2 * ServerDecoration::close_margin;

// wlr_scene_rect takes premultiplied colour; these are opaque.
std::array<float, 4> color(uint32_t rgb)
{
    return {static_cast<float>((rgb >> 16) & 0xff) / 255.0f, static_cast<float>((rgb >> 8) & 0xff) / 255.0f,
            static_cast<float>(rgb & 0xff) / 255.0f, 1.0f};
}

// The close box's top-left corner, relative to the window geometry's.
int close_x(int width)
{
    return width - ServerDecoration::close_margin - close_size;
}

constexpr int close_y = -ServerDecoration::title_height + ServerDecoration::border + ServerDecoration::close_margin;

}  // namespace

ServerDecoration::ServerDecoration(wlr_scene_node* parent, wlr_output_layout* layout)
    : layout_(layout), tree_(wlr_scene_tree_create(parent)), title_scale_watch_(layout, [this] {
          if (tree_ && shown_ && title_scale(layout_, title_box()) != title_scale_)
              draw_title();
      })
{
    // Below the window's surfaces and popups; the rectangles do not overlap the window anyway.
    wlr_scene_node_lower_to_bottom(&tree_->node);
    wlr_scene_node_set_enabled(&tree_->node, false);
    const auto inactive = color(inactive_rgb);
    for (auto*& rect : rects_)
        rect = wlr_scene_rect_create(&tree_->node, 0, 0, inactive.data());
    const auto close = color(close_rgb);
    wlr_scene_rect_set_color(rects_[4], close.data());
    // The window's tree takes this one with it when the client's surface goes.
    tree_destroy_.connect(&tree_->node.events.destroy, [this](void*) {
        // Unlinked now: the tree's signal is freed with it, and a later disconnect would write into that memory.
        tree_destroy_.disconnect();
        tree_ = nullptr;
        rects_ = {};
        title_ = nullptr;
    });
}

ServerDecoration::~ServerDecoration()
{
    tree_destroy_.disconnect();
    if (tree_)
        wlr_scene_node_destroy(&tree_->node);
}

void ServerDecoration::update(int width, int height, bool active, bool shown, const std::string& title,
                              std::shared_ptr<const TitleIcon> icon)
{
    if (!tree_)
        return;
    width_ = width;
    height_ = height;
    shown_ = shown && width > 0 && height > 0;
    wlr_scene_node_set_enabled(&tree_->node, shown_);
    if (!shown_)
        return;
    const auto frame = color(active ? active_rgb : inactive_rgb);
    struct Placed {
        int x, y, width, height;
    };
    const Placed placed[] = {
        {-border, -title_height, width + 2 * border, title_height},  // title bar, its top rows the top edge
        {-border, 0, border, height},                                // left
        {width, 0, border, height},                                  // right
        {-border, height, width + 2 * border, border},               // bottom
        {close_x(width), close_y, close_size, close_size},           // close box
    };
    for (size_t i = 0; i < rects_.size(); ++i) {
        wlr_scene_node_set_position(&rects_[i]->node, placed[i].x, placed[i].y);
        wlr_scene_rect_set_size(rects_[i], placed[i].width, placed[i].height);
        if (i < 4)
            wlr_scene_rect_set_color(rects_[i], frame.data());
    }

    // The title, left of the close box, on the title bar's colour (an opaque buffer: drawn without blending).
    const int title_width = close_x(width) - 2 * close_margin;
    if (title_ && title == title_text_ && title_width == title_width_ && active == title_active_ &&
        icon == title_icon_ && title_scale(layout_, title_box()) == title_scale_)
        return;
    title_text_ = title;
    title_width_ = title_width;
    title_active_ = active;
    title_icon_ = icon;
    draw_title();
}

wlr_box ServerDecoration::title_box() const
{
    int x = 0;
    int y = 0;
    if (tree_)
        wlr_scene_node_coords(&tree_->node, &x, &y);
    return {x + close_margin, y - title_height + border, title_width_, title_height - border};
}

void ServerDecoration::draw_title()
{
    if (title_)
        wlr_scene_node_destroy(&title_->node);
    title_ = nullptr;
    title_scale_ = title_scale(layout_, title_box());
    wlr_buffer* text = render_title(title_text_, title_width_, title_height - border,
                                    title_active_ ? active_rgb : inactive_rgb, title_icon_.get(), title_scale_);
    if (!text)
        return;
    title_ = wlr_scene_buffer_create(&tree_->node, text);
    wlr_buffer_drop(text);  // the node holds its own lock
    if (!title_)
        return;
    // title_scale_ x its size in pixels, shown as its size in layout pixels: 1:1 on an output of that scale.
    wlr_scene_buffer_set_dest_size(title_, title_width_, title_height - border);
    wlr_scene_node_set_position(&title_->node, close_margin, -title_height + border);
}

ServerDecoration::Part ServerDecoration::part_at(double x, double y) const
{
    if (!tree_ || !shown_ || x < -border || x >= width_ + border || y < -title_height || y >= height_ + border)
        return {};
    uint32_t edges = 0;
    if (x < 0)
        edges |= WLR_EDGE_LEFT;
    else if (x >= width_)
        edges |= WLR_EDGE_RIGHT;
    if (y < -title_height + border)
        edges |= WLR_EDGE_TOP;
    else if (y >= height_)
        edges |= WLR_EDGE_BOTTOM;
    if (edges)
        return {Action::resize, edges};
    const int cx = close_x(width_);
    if (x >= cx && x < cx + close_size && y >= close_y && y < close_y + close_size)
        return {Action::close, 0};
    if (y < 0)
        return {Action::move, 0};
    return {};
}

}  // namespace kiln::compositor
