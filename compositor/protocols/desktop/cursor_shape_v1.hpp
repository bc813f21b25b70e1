// CursorShapeV1: wp_cursor_shape_manager_v1 (v2; wlroots 0.15 lacks it): a client names a cursor shape ("text",
// "pointer", "ew-resize", ...) for its wl_pointer or tablet tool instead of drawing a cursor surface, and kiln draws
// that shape from its xcursor theme at each output's scale, as it draws its own arrow.
//
// Whether a client may set the image now (it has the pointer's focus, the serial is one it was sent; for a tool,
// the tool is over its surface and the serial is the tool's proximity) is the seat's question, asked through the
// two callbacks; this file keeps only the objects, the shapes' names and the protocol's errors.
#pragma once

#include "compositor/wlr.hpp"

#include <cstdint>
#include <functional>
#include <span>
#include <string_view>

namespace kiln::compositor {

class CursorShapeV1 {
public:
    // The xcursor names for a shape, best first (the CSS name, then older X11 names themes still carry); empty for
    // a value the protocol does not define at `version`.
    static std::span<const char* const> names(uint32_t shape, uint32_t version);

    struct Seat {
        // `client` asks for the pointer's image with `serial`.
        std::function<void(wl_client* client, uint32_t serial, std::span<const char* const> names)> pointer_shape;
        // `client` asks for the image of the tablet tool its `tool` resource stands for, with `serial`.
        std::function<void(wl_client* client, uint32_t serial, std::span<const char* const> names)> tool_shape;
    };

    CursorShapeV1(wl_display* display, Seat seat);
    ~CursorShapeV1();
    CursorShapeV1(const CursorShapeV1&) = delete;
    CursorShapeV1& operator=(const CursorShapeV1&) = delete;

private:
    static void bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept;
    static void get_device(wl_client* client, wl_resource* manager, uint32_t id, bool tool) noexcept;
    static void set_shape(wl_client* client, wl_resource* device, uint32_t serial, uint32_t shape) noexcept;

    wl_global* global_;
    Seat seat_;
};

}  // namespace kiln::compositor
