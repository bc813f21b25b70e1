// Output: one wlr_output in the layout and scene; renders a frame only when the scene has damage on it.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <vector>

namespace kiln::compositor {

class Server;

class Output {
public:
    Output(Server& server, wlr_output* output, wlr_scene_output* scene_output, wlr_presentation* presentation);
    ~Output();
    Output(const Output&) = delete;
    Output& operator=(const Output&) = delete;

    wlr_output* wlr() const { return output_; }

private:
    void render_frame();
    void sample_surfaces();
    void presented(const wlr_output_event_present& event);

    // Presentation feedback waiting for the output commit it was sampled for.
    struct PendingFeedback {
        wlr_presentation_feedback* feedback;
        uint32_t commit_seq;
    };

    Server& server_;
    wlr_output* output_;
    wlr_scene_output* scene_output_;
    wlr_presentation* presentation_;
    std::vector<PendingFeedback> feedback_;

    wl::Listener frame_;
    wl::Listener present_;
    wl::Listener destroy_;
};

}  // namespace kiln::compositor
