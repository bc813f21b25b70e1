// CursorCapture: the pointer's cursor over a capture source, from an ext-image-copy-capture cursor session: where it
// is, its hotspot and its image.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "output_capture.hpp"

struct ext_image_capture_source_v1;
struct ext_image_copy_capture_cursor_session_v1;

namespace portal {

class WaylandOutputs;

class CursorCapture {
public:
    struct State {
        bool inside = false;   // over the source
        int32_t x = 0, y = 0;  // the hotspot, in the source's pixels
        int32_t hotspot_x = 0, hotspot_y = 0;
        uint64_t image_serial = 0;  // grows when image() holds a new picture
    };

    // Follows the cursor of kiln's (first) seat over `source` (not taken over); `changed` after each change.
    CursorCapture(WaylandOutputs& wayland, ext_image_capture_source_v1* source, std::function<void()> changed);
    ~CursorCapture();
    CursorCapture(const CursorCapture&) = delete;
    CursorCapture& operator=(const CursorCapture&) = delete;

    bool valid() const { return session_ != nullptr; }
    const State& state() const { return state_; }
    // The cursor's picture (ARGB8888 or XRGB8888), or nullptr before kiln sent one.
    const ShmImage* image() const { return image_ && image_->has_frame() ? image_->image() : nullptr; }

private:
    static void on_enter(void* data, ext_image_copy_capture_cursor_session_v1*) noexcept;
    static void on_leave(void* data, ext_image_copy_capture_cursor_session_v1*) noexcept;
    static void on_position(void* data, ext_image_copy_capture_cursor_session_v1*, int32_t x, int32_t y) noexcept;
    static void on_hotspot(void* data, ext_image_copy_capture_cursor_session_v1*, int32_t x, int32_t y) noexcept;

    State state_;
    std::function<void()> changed_;
    ext_image_copy_capture_cursor_session_v1* session_ = nullptr;
    std::unique_ptr<OutputCapture> image_;  // frames of the cursor's picture, taken one after another
};

}  // namespace portal
