// ServerDecoration: the border and title bar (with the title and a close box at its right end) kiln draws around a
// window whose client lets kiln decorate it: solid scene rectangles and a text buffer in the window's tree, fitted to
// its geometry, coloured by focus, hidden while the window is fullscreen.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/shell/title_scale.hpp"
#include "compositor/wlr.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>

namespace kiln::compositor {

struct TitleIcon;

class ServerDecoration {
public:
    // Sizes in layout pixels. The title bar's top `border` pixels are its top edge for resizing.
    static constexpr int border = 4;
    static constexpr int title_height = 24;
    static constexpr int close_margin = 4;  // between the close box and the title bar's edges
    // 0xRRGGBB: the focused window's border and title, an unfocused one's, and the close box.
    static constexpr uint32_t active_rgb = 0x285577;
    static constexpr uint32_t inactive_rgb = 0x4c4c4c;
    static constexpr uint32_t close_rgb = 0xd03c3c;

    // What pressing a point of the decoration does.
    enum class Action { none, move, resize, close };
    struct Part {
        Action action = Action::none;
        uint32_t edges = 0;  // wlr_edges, for resize
    };

    // How far the decoration reaches beyond the window geometry on each side.
    struct Insets {
        int left;
        int top;
        int right;
        int bottom;
    };
    static constexpr Insets insets{border, title_height, border, border};
    // The part of `area` (x, y, width, height) a decorated window's geometry may fill so that its title bar and
    // borders stay inside: at least 1 x 1.
    template <typename Box>
    static Box inside(const Box& area)
    {
        return {area.x + insets.left, area.y + insets.top, std::max(1, area.width - insets.left - insets.right),
                std::max(1, area.height - insets.top - insets.bottom)};
    }

    // Rectangles in `parent`, whose origin is the window geometry's top-left corner; hidden until update(). The
    // title text is drawn at the scale of the outputs in `layout` its title bar is on, again when that changes.
    ServerDecoration(wlr_scene_node* parent, wlr_output_layout* layout);
    ~ServerDecoration();
    ServerDecoration(const ServerDecoration&) = delete;
    ServerDecoration& operator=(const ServerDecoration&) = delete;

    // Fits the rectangles around a window of width × height, in the focused or unfocused colours, with `icon` (if
    // any) and `title` on the title bar (where kiln has Pango), or hides them.
    void update(int width, int height, bool active, bool shown, const std::string& title,
                std::shared_ptr<const TitleIcon> icon = nullptr);
    // The part at (x, y), relative to the window geometry's top-left; none outside the decoration or when hidden.
    Part part_at(double x, double y) const;

private:
    // The title's box in layout coordinates, and the text drawn anew there (at that box's scale).
    wlr_box title_box() const;
    void draw_title();

    wlr_output_layout* layout_;
    wlr_scene_tree* tree_;  // null once the scene destroyed it with the window's tree
    // Title bar, left, right and bottom borders, then the close box on the title bar.
    std::array<wlr_scene_rect*, 5> rects_{};
    wlr_scene_buffer* title_ = nullptr;  // the title text, drawn again when it, its width or the focus changes
    std::string title_text_;
    std::shared_ptr<const TitleIcon> title_icon_;
    int title_width_ = 0;
    bool title_active_ = false;
    float title_scale_ = 0.0f;  // the scale its text was drawn at
    int width_ = 0;
    int height_ = 0;
    bool shown_ = false;

    wl::Listener tree_destroy_;
    TitleScaleWatch title_scale_watch_;  // draws the text again when its title bar's scale changes
};

}  // namespace kiln::compositor
