// ext_image_copy_capture_cursor_session_v1: the pointer's cursor over an output or a window, as its own capture
// session (the cursor image) with enter, leave, position (of the hotspot, in the source's buffer pixels) and hotspot.
// The cursor is the one wlroots places on outputs (wlr_output_cursor): kiln has one seat and one pointer. Position
// follows output frames, as a moving cursor is drawn in them; a cursor on a hardware plane that moves over a
// still screen is seen at the next frame.
#include "compositor/protocols/capture/ext_image_copy_capture_v1.hpp"

#include "compositor/output/capture_renderer.hpp"
#include "compositor/protocols/capture/capture_cursor.hpp"
#include "compositor/shell/toplevel.hpp"
#include "compositor/shell/toplevels.hpp"

#include "ext-image-copy-capture-v1-protocol.h"

#include <cmath>
#include <memory>

namespace kiln::compositor {
namespace {

// A source's output or window, forgotten when it goes.
class TargetWatch {
public:
    TargetWatch(Toplevels& toplevels, CaptureTarget target) : target_(target)
    {
        if (target_.output)
            output_destroyed_.connect(&target_.output->events.destroy, [this](void*) { forget(); });
        if (target_.toplevel) {
            unmapped_.connect(&target_.toplevel->events.unmap, [this](void*) { forget(); });
            removed_.connect(&toplevels.events.remove, [this](void* data) {
                if (data == target_.toplevel)
                    forget();
            });
        }
    }
    const CaptureTarget& target() const { return target_; }

private:
    void forget()
    {
        target_ = {};
        output_destroyed_.disconnect();
        unmapped_.disconnect();
        removed_.disconnect();
    }
    CaptureTarget target_;
    wl::Listener output_destroyed_;
    wl::Listener unmapped_;
    wl::Listener removed_;
};

// The cursor image as a capture session's content: a frame when the image differs from the one the session's client
// has (the last frame it got), drawn whole.
class CursorContent final : public CaptureContent {
public:
    CursorContent(const ExtImageCopyCaptureV1& capture, CaptureTarget target)
        : capture_(capture), watch_(capture.toplevels(), target)
    {
    }
    bool gone() const override { return watch_.target().gone(); }
    void size(int& width, int& height) const override
    {
        const wlr_texture* texture = cursor_texture(locate_cursor(capture_, watch_.target()).cursor);
        width = texture ? static_cast<int>(texture->width) : 1;
        height = texture ? static_cast<int>(texture->height) : 1;
    }
    void output_frame(wlr_output*, const Region&, Region& out) override { unreported(out); }
    void unreported(Region& out) override
    {
        if (locate_cursor(capture_, watch_.target()).image() == delivered_)
            return;
        int width = 0;
        int height = 0;
        size(width, height);
        out.add(Region(0, 0, width, height));
    }
    void delivered() override { delivered_ = drawn_; }
    bool render(wlr_buffer* destination, const Region&) override
    {
        drawn_ = locate_cursor(capture_, watch_.target()).image();
        wlr_texture* texture = cursor_texture(locate_cursor(capture_, watch_.target()).cursor);
        if (!texture) {
            // No cursor image: a transparent pixel.
            const Region all(0, 0, destination->width, destination->height);
            return capture_tree(*capture_.context().bridge, nullptr, {}, 1.0f, {}, nullptr, destination, all);
        }
        return capture_texture(*capture_.context().bridge, texture, destination);
    }

private:
    const ExtImageCopyCaptureV1& capture_;
    TargetWatch watch_;
    CursorState::Image drawn_;      // the image the last frame drew
    CursorState::Image delivered_;  // the image in the last ready frame (none before the first)
};

// One ext_image_copy_capture_cursor_session_v1.
class CursorSession {
public:
    CursorSession(ExtImageCopyCaptureV1& capture, wl_resource* resource, CaptureTarget target)
        : capture_(capture), resource_(resource), watch_(capture.toplevels(), target)
    {
        capture_.add_watcher(this, [this] { update(); });
        update();
    }
    ~CursorSession() { capture_.remove_watcher(this); }
    CursorSession(const CursorSession&) = delete;
    CursorSession& operator=(const CursorSession&) = delete;

    void get_capture_session(uint32_t id)
    {
        if (got_session_) {
            wl_resource_post_error(resource_, EXT_IMAGE_COPY_CAPTURE_CURSOR_SESSION_V1_ERROR_DUPLICATE_SESSION,
                                   "get_capture_session sent twice");
            return;
        }
        got_session_ = true;
        capture_.create_session(resource_, id, std::make_unique<CursorContent>(capture_, watch_.target()));
    }

    // Sends enter or leave, and the hotspot's position and the hotspot when they changed.
    void update()
    {
        const CursorState state = locate_cursor(capture_, watch_.target());
        const bool inside = state.cursor && state.inside;
        if (inside != inside_) {
            inside_ = inside;
            if (inside) {
                ext_image_copy_capture_cursor_session_v1_send_enter(resource_);
                sent_position_ = sent_hotspot_ = false;
            } else {
                ext_image_copy_capture_cursor_session_v1_send_leave(resource_);
            }
        }
        if (!inside)
            return;
        if (!sent_position_ || state.x != x_ || state.y != y_) {
            x_ = state.x;
            y_ = state.y;
            sent_position_ = true;
            ext_image_copy_capture_cursor_session_v1_send_position(resource_, x_, y_);
        }
        if (!sent_hotspot_ || state.cursor->hotspot_x != hotspot_x_ || state.cursor->hotspot_y != hotspot_y_) {
            hotspot_x_ = state.cursor->hotspot_x;
            hotspot_y_ = state.cursor->hotspot_y;
            sent_hotspot_ = true;
            ext_image_copy_capture_cursor_session_v1_send_hotspot(resource_, hotspot_x_, hotspot_y_);
        }
    }

private:
    ExtImageCopyCaptureV1& capture_;
    wl_resource* resource_;
    TargetWatch watch_;
    bool got_session_ = false;
    bool inside_ = false;
    bool sent_position_ = false;
    bool sent_hotspot_ = false;
    int x_ = 0;
    int y_ = 0;
    int hotspot_x_ = 0;
    int hotspot_y_ = 0;
};

}  // namespace

void create_cursor_session(ExtImageCopyCaptureV1& capture, wl_resource* manager, uint32_t id, CaptureTarget target)
{
    wl_resource* resource = wl_resource_create(wl_resource_get_client(manager),
                                               &ext_image_copy_capture_cursor_session_v1_interface,
                                               wl_resource_get_version(manager), id);
    if (!resource) {
        wl_resource_post_no_memory(manager);
        return;
    }
    static const struct ext_image_copy_capture_cursor_session_v1_interface requests = {
        .destroy = [](wl_client*, wl_resource* resource) noexcept { wl_resource_destroy(resource); },
        .get_capture_session = [](wl_client*, wl_resource* resource, uint32_t id) noexcept {
            static_cast<CursorSession*>(wl_resource_get_user_data(resource))->get_capture_session(id);
        },
    };
    auto* session = new CursorSession(capture, resource, target);
    wl_resource_set_implementation(resource, &requests, session, [](wl_resource* resource) noexcept {
        delete static_cast<CursorSession*>(wl_resource_get_user_data(resource));
    });
}

}  // namespace kiln::compositor
