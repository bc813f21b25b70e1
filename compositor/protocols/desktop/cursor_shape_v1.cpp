// wp_cursor_shape_manager_v1 and wp_cursor_shape_device_v1: the shapes' xcursor names and the protocol's errors.
#include "compositor/protocols/desktop/cursor_shape_v1.hpp"

#include "compositor/protocol_kit/resource_object.hpp"
#include "cursor-shape-v1-protocol.h"

#include <array>
#include <new>
#include <utility>

namespace kiln::compositor {
namespace {

constexpr uint32_t manager_version = 2;

// Indexed by the protocol's shape value; each list ends in a name every common theme has.
using Names = std::array<const char*, 4>;
constexpr std::array<Names, 37> shape_names = {{
    {},                                                    // 0: not a shape
    {"default", "left_ptr"},                               // default
    {"context-menu", "left_ptr"},                          // context_menu
    {"help", "question_arrow", "left_ptr"},                // help
    {"pointer", "hand2", "hand1", "left_ptr"},             // pointer
    {"progress", "left_ptr_watch", "watch"},               // progress
    {"wait", "watch"},                                     // wait
    {"cell", "plus", "crosshair"},                         // cell
    {"crosshair", "cross"},                                // crosshair
    {"text", "xterm"},                                     // text
    {"vertical-text", "text", "xterm"},                    // vertical_text
    {"alias", "dnd-link", "left_ptr"},                     // alias
    {"copy", "dnd-copy", "left_ptr"},                      // copy
    {"move", "dnd-move", "fleur"},                         // move
    {"no-drop", "dnd-no-drop", "not-allowed", "left_ptr"}, // no_drop
    {"not-allowed", "crossed_circle", "left_ptr"},         // not_allowed
    {"grab", "openhand", "hand1"},                         // grab
    {"grabbing", "closedhand", "fleur"},                   // grabbing
    {"e-resize", "right_side"},                            // e_resize
    {"n-resize", "top_side"},                              // n_resize
    {"ne-resize", "top_right_corner"},                     // ne_resize
    {"nw-resize", "top_left_corner"},                      // nw_resize
    {"s-resize", "bottom_side"},                           // s_resize
    {"se-resize", "bottom_right_corner"},                  // se_resize
    {"sw-resize", "bottom_left_corner"},                   // sw_resize
    {"w-resize", "left_side"},                             // w_resize
    {"ew-resize", "sb_h_double_arrow", "left_ptr"},        // ew_resize
    {"ns-resize", "sb_v_double_arrow", "left_ptr"},        // ns_resize
    {"nesw-resize", "fd_double_arrow", "left_ptr"},        // nesw_resize
    {"nwse-resize", "bd_double_arrow", "left_ptr"},        // nwse_resize
    {"col-resize", "sb_h_double_arrow", "left_ptr"},       // col_resize
    {"row-resize", "sb_v_double_arrow", "left_ptr"},       // row_resize
    {"all-scroll", "fleur", "left_ptr"},                   // all_scroll
    {"zoom-in", "left_ptr"},                               // zoom_in
    {"zoom-out", "left_ptr"},                              // zoom_out
    {"dnd-ask", "dnd-copy", "left_ptr"},                   // dnd_ask (v2)
    {"all-resize", "fleur", "left_ptr"},                   // all_resize (v2)
}};

constexpr uint32_t last_v1_shape = WP_CURSOR_SHAPE_DEVICE_V1_SHAPE_ZOOM_OUT;

void destroy_request(wl_client*, wl_resource* resource) noexcept
{
    wl_resource_destroy(resource);
}

// A device's user data: whether it stands for a tablet tool (else a wl_pointer). The manager is reached through
// the global's data, kept in the device's resource by its implementation's data pointer below.
struct Device {
    CursorShapeV1* owner;
    bool tool;
};

}  // namespace

std::span<const char* const> CursorShapeV1::names(uint32_t shape, uint32_t version)
{
    if (shape == 0 || shape >= shape_names.size() || (version < 2 && shape > last_v1_shape))
        return {};
    const Names& list = shape_names[shape];
    size_t count = 0;
    while (count < list.size() && list[count])
        ++count;
    return {list.data(), count};
}

CursorShapeV1::CursorShapeV1(wl_display* display, Seat seat)
    : global_(wl_global_create(display, &wp_cursor_shape_manager_v1_interface, manager_version, this,
                               &CursorShapeV1::bind)),
      seat_(std::move(seat))
{
}

CursorShapeV1::~CursorShapeV1()
{
    wl_global_destroy(global_);
}

void CursorShapeV1::bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
{
    static const struct wp_cursor_shape_manager_v1_interface requests = {
        .destroy = destroy_request,
        .get_pointer = [](wl_client* client, wl_resource* manager, uint32_t id, wl_resource*) noexcept {
            get_device(client, manager, id, false);
        },
        .get_tablet_tool_v2 = [](wl_client* client, wl_resource* manager, uint32_t id, wl_resource*) noexcept {
            get_device(client, manager, id, true);
        },
    };
    wl_resource* resource = wl_resource_create(client, &wp_cursor_shape_manager_v1_interface,
                                               static_cast<int>(version), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    wl_resource_set_implementation(resource, &requests, data, nullptr);
}

void CursorShapeV1::get_device(wl_client* client, wl_resource* manager, uint32_t id, bool tool) noexcept
{
    static const struct wp_cursor_shape_device_v1_interface requests = {
        .destroy = destroy_request,
        .set_shape = &CursorShapeV1::set_shape,
    };
    // The device needs nothing of its wl_pointer or tool but the client, which it has: whether that client may set
    // the image is decided when it asks, from the seat's state then. An inert pointer or tool is no error.
    create_resource_object<Device>(client, &wp_cursor_shape_device_v1_interface, wl_resource_get_version(manager), id,
                                   &requests, static_cast<CursorShapeV1*>(wl_resource_get_user_data(manager)), tool);
}

void CursorShapeV1::set_shape(wl_client* client, wl_resource* resource, uint32_t serial, uint32_t shape) noexcept
{
    const auto* device = static_cast<const Device*>(wl_resource_get_user_data(resource));
    const auto list = names(shape, static_cast<uint32_t>(wl_resource_get_version(resource)));
    if (list.empty()) {
        wl_resource_post_error(resource, WP_CURSOR_SHAPE_DEVICE_V1_ERROR_INVALID_SHAPE,
                               "%u is not a cursor shape of wp_cursor_shape_device_v1 version %d", shape,
                               wl_resource_get_version(resource));
        return;
    }
    const Seat& seat = device->owner->seat_;
    const auto& apply = device->tool ? seat.tool_shape : seat.pointer_shape;
    if (apply)
        apply(client, serial, list);
}

}  // namespace kiln::compositor
