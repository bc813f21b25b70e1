// Seat: keyboards, the pointer and cursor, touch and tablets, through one wlr_seat; what a click does to windows is
// the shell's (WindowInput), and the shell sees the seat only as SeatFocus.
#pragma once

#include "compositor/indexed_list.hpp"
#include "compositor/input/bindings.hpp"
#include "compositor/input/seat_focus.hpp"
#include "compositor/input/window_input.hpp"
#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <functional>
#include <list>
#include <memory>
#include <span>

namespace kiln::compositor {

struct Core;
class CursorImage;
class DragIcons;
class InputInhibit;
class PointerFocus;
class PointerGrab;
class PointerImplicitGrab;
class ShortcutsInhibit;
class Tablet;
class TextInputRelay;
class Touch;

class Seat final : public SeatFocus {
public:
    // The compositor is watched for surfaces that change what lies under the pointer (the shell tells the rest
    // through scene_changed). `windows` hears each button pressed where no grab has the pointer, and decides what it
    // does to windows, hears which surface an input inhibitor takes the keyboard from, and does the bindings' window
    // actions; `session` what bindings ask of the session.
    Seat(const Core& core, WindowInput& windows, SessionActions session, wlr_backend* backend,
         wlr_compositor* compositor);
    ~Seat();
    Seat(const Seat&) = delete;
    Seat& operator=(const Seat&) = delete;

    wlr_seat* wlr() const override { return seat_; }
    wlr_cursor* cursor() const override { return cursor_; }
    // A keyboard, pointer, touchscreen or tablet joins the seat: from the backend, or from a client (virtual-keyboard,
    // virtual-pointer).
    // `framed`: a pointer whose events wait for its frame (a virtual pointer; see FramedPointer).
    void add_input(wlr_input_device* device, bool framed = false);
    // The scene changed under the pointer (a view mapped, unmapped, moved, was raised or resized): the surface under
    // it is found again once this turn of the event loop is done, and told as a real move would tell it.
    void scene_changed() override;
    // The headless backend's pointer, whose touchpad gestures --test-input drives; null elsewhere.
    wlr_input_device* headless_pointer() const;
    // The headless backend's touch device, which --test-input drives; null elsewhere.
    wlr_input_device* headless_touch() const;
    // The headless backend's tablet, which --test-input drives; null elsewhere.
    wlr_input_device* headless_tablet() const;
    // Called on every key, pointer move, button and scroll (idle timers start over).
    void on_activity(std::function<void()> activity) { activity_ = std::move(activity); }
    // Trims each pointer move before the cursor makes it (pointer constraints: locked or confined).
    void constrain_motion(std::function<void(double& dx, double& dy)> constrain) { constrain_ = std::move(constrain); }
    // The window the pointer passes through as it moves (null: none): the one an xdg-toplevel-drag carries, which
    // takes no part in choosing the drop target.
    void pointer_passes_through(std::function<wlr_scene_node*()> node) { passes_through_ = std::move(node); }
    void focus_keyboard(wlr_surface* surface) override;
    // Pointer motion and buttons go to `grab` (not to clients) until a button is released or it is cancelled.
    // The client under the pointer gets a leave, as the protocol asks when the compositor takes the pointer.
    void start_grab(PointerGrab& grab) override;
    // Ends `grab` without a release (its window went away); pointer focus goes back to what is under the pointer.
    void cancel_grab(PointerGrab& grab) override;
    bool grabbed() const { return grab_ != nullptr; }
    // kiln.ini was read again: keyboards (not virtual ones, whose keymap is their client's) take the new keymap
    // and repeat, which wlroots sends to clients; libinput devices take the new [input] settings.
    void reload();
    // text-input-v3 and input-method-v2, which follow this seat's keyboard focus.
    TextInputRelay& text_input() { return *text_input_; }
    // Whether `surface` may have input: every surface, except while a client holds the input inhibitor (a lock
    // screen), when only that client's do.
    bool input_allowed(wlr_surface* surface) const override;
    // A client holds the input inhibitor: kiln's bindings but VT switching and Super + drag stand aside too.
    bool input_inhibited() const;
    // cursor-shape-v1: `client` names the pointer's shape, or a tablet tool's, with `serial` (checked as
    // wl_pointer.set_cursor and tablet-v2 set_cursor are).
    void pointer_shape(wl_client* client, uint32_t serial, std::span<const char* const> names);
    void tool_shape(wl_client* client, uint32_t serial, std::span<const char* const> names);
    // wlr-input-inhibitor's global, privileged (hidden where [security] restricts it).
    const wl_global* input_inhibit_global() const;
    // keyboard-shortcuts-inhibit's global, hidden from sandboxes.
    const wl_global* shortcuts_inhibit_global() const;

private:
    class Keyboard;
    class Pointer;

    void add_keyboard(wlr_input_device* device);
    void update_capabilities();
    // A client took the input inhibitor (`client`) or let go of it (null): others lose keyboard, pointer, touch
    // and tablet tools at once; when it ends, focus goes back to where it was before.
    void set_exclusive_client(wl_client* client);
    void notify_activity()
    {
        if (activity_)
            activity_();
    }
    void pointer_moved(uint32_t time_msec);
    // The pointer meets the surface under it now (none while a client's press is held; see PointerImplicitGrab).
    void pointer_follow(uint32_t time_msec, bool frame);
    void pointer_used();
    void pointer_button(wlr_event_pointer_button* event);

    const Core& core_;
    WindowInput& windows_;
    wlr_seat* seat_;
    wlr_cursor* cursor_;
    IndexedList<std::unique_ptr<Keyboard>> keyboards_;
    bool keymap_reported_ = false;  // a [keyboard] xkbcommon refused is reported once, not per keyboard
    IndexedList<std::unique_ptr<Pointer>> pointers_;

    std::function<void()> activity_;
    std::function<void(double& dx, double& dy)> constrain_;
    std::function<wlr_scene_node*()> passes_through_;
    std::unique_ptr<ShortcutsInhibit> shortcuts_inhibit_;
    std::unique_ptr<InputInhibit> input_inhibit_;
    std::unique_ptr<Bindings> bindings_;
    std::unique_ptr<CursorImage> cursor_image_;
    std::unique_ptr<DragIcons> drag_icons_;  // a pointer drag's icon, at the pointer
    std::unique_ptr<PointerFocus> pointer_focus_;
    std::unique_ptr<PointerImplicitGrab> held_;  // a button pressed for a client keeps the pointer on its surface
    std::unique_ptr<Touch> touch_;
    std::unique_ptr<Tablet> tablet_;
    std::unique_ptr<TextInputRelay> text_input_;

    bool pointer_used_ = false;  // a pointer device has moved, clicked or scrolled
    PointerGrab* grab_ = nullptr;  // an interactive move or resize, owned by the shell

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
