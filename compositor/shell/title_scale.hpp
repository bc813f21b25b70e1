// TitleScale: the scale kiln draws a window's title text at, the highest of the outputs its title bar is on, and a
// watch that looks again whenever that may have changed, so the text is drawn again at the new scale.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <functional>
#include <list>

namespace kiln::compositor {

// The highest scale of the outputs in `layout` that `box` (layout coordinates) is on; off every output, the highest
// of all, so the text is sharp wherever the window goes (as wp_fractional_scale_v1 tells clients); 1 with none.
float title_scale(wlr_output_layout* layout, const wlr_box& box);

// Calls `look` on every change of the layout (an output added, removed, moved or given another scale) and on each
// output's frame, which follows any move of a window (the scene tells no one when a node moves onto another output).
class TitleScaleWatch {
public:
    TitleScaleWatch(wlr_output_layout* layout, std::function<void()> look);
    TitleScaleWatch(const TitleScaleWatch&) = delete;
    TitleScaleWatch& operator=(const TitleScaleWatch&) = delete;

private:
    void watch_outputs();

    wlr_output_layout* layout_;
    std::function<void()> look_;
    std::list<wl::Listener> output_frames_;  // one per output in the layout
    wl::Listener layout_change_;
};

}  // namespace kiln::compositor
