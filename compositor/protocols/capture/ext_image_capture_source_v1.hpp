// ExtImageCaptureSourceV1: ext_output_image_capture_source_manager_v1 and
// ext_foreign_toplevel_image_capture_source_manager_v1, the two globals that name what ext-image-copy-capture
// captures: an output (by wl_output) or one window (by its ext_foreign_toplevel_handle_v1). A source names its output
// or window until that goes (output destroyed; window unmapped or removed), and nothing afterwards.
//
// They only name things, but they are the way into image-copy-capture, so they are guarded with it (privileged).
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <memory>
#include <vector>

namespace kiln::compositor {

class Toplevel;
class Toplevels;

// What a source names now: an output, a window, or (both null) nothing.
struct CaptureTarget {
    wlr_output* output = nullptr;
    Toplevel* toplevel = nullptr;
    bool gone() const { return !output && !toplevel; }
};

class ExtImageCaptureSourceV1 {
public:
    ExtImageCaptureSourceV1(wl_display* display, Toplevels& toplevels);
    ~ExtImageCaptureSourceV1();
    ExtImageCaptureSourceV1(const ExtImageCaptureSourceV1&) = delete;
    ExtImageCaptureSourceV1& operator=(const ExtImageCaptureSourceV1&) = delete;

    const wl_global* output_global() const { return output_global_; }
    const wl_global* toplevel_global() const { return toplevel_global_; }

    // The target of an ext_image_capture_source_v1 resource (one of ours): empty once its output or window went.
    static CaptureTarget target(wl_resource* source);

    class Source;

private:
    static void bind_output(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept;
    static void bind_toplevel(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept;
    void create_source(wl_resource* manager, uint32_t id, CaptureTarget target);

    wl_global* output_global_;
    wl_global* toplevel_global_;
    std::vector<Source*> sources_;  // live sources, so a window's removal reaches them
    wl::Listener toplevel_removed_;
};

}  // namespace kiln::compositor
