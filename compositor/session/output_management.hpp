// OutputManagement: wlr-output-management-v1 (wlr-randr, kanshi): clients read every output's mode, position,
// transform, scale and enabled state, and test or apply a new configuration, all of it or none.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/session/settings.hpp"
#include "compositor/wlr.hpp"

#include <functional>
#include <list>
#include <memory>
#include <optional>

namespace kiln::compositor {

// The largest side a custom mode may have: past 8K a frame buffer alone is hundreds of MiB.
inline constexpr int32_t max_output_side = 8192;

class OutputManagement {
public:
    // Puts an enabled output in the layout at a position, giving it kiln's frame pipeline if it has none yet.
    using ShowOutput = std::function<void(wlr_output* output, std::optional<OutputPosition> position)>;

    // `layout` is the output layout (the Core's), which outlives this; session/ sits below the Core, so it gets
    // the display, the layout and the backend themselves.
    OutputManagement(wl_display* display, wlr_output_layout* layout, ShowOutput show_output, wlr_backend* backend);
    ~OutputManagement();
    OutputManagement(const OutputManagement&) = delete;
    OutputManagement& operator=(const OutputManagement&) = delete;

    const wl_global* global() const { return manager_->global; }

private:
    struct Tracked;

    void track(wlr_output* output);
    // Tells clients the current state of every output.
    void publish();
    // Tests (or tests and commits) the configuration; on any failure nothing changes.
    bool configure(wlr_output_configuration_v1* config, bool test_only);

    wlr_output_layout* layout_;
    ShowOutput show_output_;
    wlr_output_manager_v1* manager_;
    std::list<std::unique_ptr<Tracked>> outputs_;

    wl::Listener new_output_;
    wl::Listener layout_change_;
    wl::Listener apply_;
    wl::Listener test_;
};

}  // namespace kiln::compositor
