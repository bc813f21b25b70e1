// TitleScale: which outputs a title bar is on, and the layout and frame signals that may move it to others.
#include "compositor/shell/title_scale.hpp"

#include <algorithm>
#include <utility>

namespace kiln::compositor {

float title_scale(wlr_output_layout* layout, const wlr_box& box)
{
    float on = 0.0f;
    float any = 0.0f;
    wlr_output_layout_output* placed = nullptr;
    wl_list_for_each(placed, &layout->outputs, link)
    {
        any = std::max(any, placed->output->scale);
        const wlr_box* output = wlr_output_layout_get_box(layout, placed->output);
        wlr_box overlap{};
        if (output && wlr_box_intersection(&overlap, output, &box))
            on = std::max(on, placed->output->scale);
    }
    if (on > 0.0f)
        return on;
    return any > 0.0f ? any : 1.0f;
}

TitleScaleWatch::TitleScaleWatch(wlr_output_layout* layout, std::function<void()> look)
    : layout_(layout), look_(std::move(look))
{
    watch_outputs();
    layout_change_.connect(&layout->events.change, [this](void*) {
        watch_outputs();
        look_();
    });
}

void TitleScaleWatch::watch_outputs()
{
    output_frames_.clear();
    wlr_output_layout_output* placed = nullptr;
    wl_list_for_each(placed, &layout_->outputs, link)
        output_frames_.emplace_back(&placed->output->events.frame, [this](void*) { look_(); });
}

}  // namespace kiln::compositor
