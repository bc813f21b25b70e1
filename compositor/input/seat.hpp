// Seat: keyboards, the pointer and cursor, touch, focus on click and Super+drag moves, through one wlr_seat.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <functional>
#include <list>
#include <memory>

namespace kiln::compositor {

class Bindings;
class CursorImage;
class PointerFocus;
class Server;
class ShortcutsInhibit;
class Touch;
class View;

class Seat {
public:
    // The compositor and xdg-shell are watched for surfaces that change what lies under the pointer.
    Seat(Server& server, wlr_backend* backend, wlr_compositor* compositor, wlr_xdg_shell* xdg_shell);
    ~Seat();
    Seat(const Seat&) = delete;
    Seat& operator=(const Seat&) = delete;

    wlr_seat* wlr() const { return seat_; }
    wlr_cursor* cursor() const { return cursor_; }
    // A keyboard, pointer or touchscreen joins the seat: from the backend, or from a client (virtual-keyboard,
    // virtual-pointer).
    void add_input(wlr_input_device* device);
    // The scene changed under the pointer (a view mapped, unmapped, moved, was raised or resized): the surface under
    // it is found again once this turn of the event loop is done, and told as a real move would tell it.
    void scene_changed();
    // The headless backend's touch device, which --test-input drives; null elsewhere.
    wlr_input_device* headless_touch() const;
    // Called on every key, pointer move, button and scroll (idle timers start over).
    void on_activity(std::function<void()> activity) { activity_ = std::move(activity); }
    void focus_keyboard(wlr_surface* surface);
    void begin_move(View* view);
    void view_unmapped(View* view);
    // kiln.ini was read again: keyboards (not virtual ones, whose keymap is their client's) take the new keymap
    // and repeat, which wlroots sends to clients; libinput devices take the new [input] settings.
    void reload();

private:
    class Keyboard;
    class Pointer;

    void add_keyboard(wlr_input_device* device);
    void update_capabilities();
    void notify_activity()
    {
        if (activity_)
            activity_();
    }
    void pointer_moved(uint32_t time_msec);
    void pointer_used();
    void pointer_button(wlr_event_pointer_button* event);

    Server& server_;
    wlr_seat* seat_;
    wlr_cursor* cursor_;
    std::list<std::unique_ptr<Keyboard>> keyboards_;
    bool keymap_reported_ = false;  // a [keyboard] xkbcommon refused is reported once, not per keyboard
    std::list<std::unique_ptr<Pointer>> pointers_;

    std::function<void()> activity_;
    std::unique_ptr<ShortcutsInhibit> shortcuts_inhibit_;
    std::unique_ptr<Bindings> bindings_;
    std::unique_ptr<CursorImage> cursor_image_;
    std::unique_ptr<PointerFocus> pointer_focus_;
    std::unique_ptr<Touch> touch_;

    bool pointer_used_ = false;  // a pointer device has moved, clicked or scrolled
    View* grabbed_ = nullptr;  // the view being moved, if any
    double grab_x_ = 0;
    double grab_y_ = 0;

    wl::Listener new_input_;
    wl::Listener cursor_motion_;
    wl::Listener cursor_motion_absolute_;
    wl::Listener cursor_button_;
    wl::Listener cursor_axis_;
    wl::Listener cursor_frame_;
    wl::Listener request_selection_;
    wl::Listener request_start_drag_;
};

}  // namespace kiln::compositor
