// Output: one wlr_output in the layout and scene; renders a frame only when the scene has damage on it.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

namespace kiln::compositor {

class Server;

class Output {
public:
    Output(Server& server, wlr_output* output, wlr_scene_output* scene_output);
    Output(const Output&) = delete;
    Output& operator=(const Output&) = delete;

    wlr_output* wlr() const { return output_; }

private:
    void render_frame();

    Server& server_;
    wlr_output* output_;
    wlr_scene_output* scene_output_;

    wl::Listener frame_;
    wl::Listener destroy_;
};

}  // namespace kiln::compositor
