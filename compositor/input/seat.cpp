// Seat behaviour: input devices join the seat, pointer presses go to the shell first and then to clients, keys go to
// the focused view.
#include "compositor/input/seat.hpp"

#include "compositor/input/bindings.hpp"
#include "compositor/input/cursor.hpp"
#include "compositor/input/drag_icon.hpp"
#include "compositor/input/framed_pointer.hpp"
#include "compositor/input/input_inhibit.hpp"
#include "compositor/input/keymap.hpp"
#include "compositor/input/libinput_config.hpp"
#include "compositor/input/pointer_focus.hpp"
#include "compositor/input/pointer_grab.hpp"
#include "compositor/input/pointer_implicit_grab.hpp"
#include "compositor/input/scene_hit.hpp"
#include "compositor/input/shortcuts_inhibit.hpp"
#include "compositor/input/tablet.hpp"
#include "compositor/input/text_input.hpp"
#include "compositor/input/touch.hpp"
#include "compositor/core.hpp"
#include "compositor/log.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <vector>

namespace kiln::compositor {

// One keyboard device: xkb keymap, repeat info, and forwarding to the seat.
class Seat::Keyboard {
public:
    Keyboard(Seat& seat, wlr_input_device* device) : seat_(seat), device_(device)
    {
        apply(seat.core_.options.keyboard);
        modifiers_.connect(&device->keyboard->events.modifiers, [this](void*) {
            // While input is inhibited keys go to the inhibiting client alone, not through an input method.
            if (!seat_.input_inhibited() && seat_.text_input_->grab_modifiers(device_))
                return;
            wlr_seat_set_keyboard(seat_.seat_, device_);
            wlr_seat_keyboard_notify_modifiers(seat_.seat_, &device_->keyboard->modifiers);
        });
        key_.connect(&device->keyboard->events.key, [this](void* data) {
            auto* event = static_cast<wlr_event_keyboard_key*>(data);
            seat_.notify_activity();
            if (event->state == WL_KEYBOARD_KEY_STATE_PRESSED) {
                // Marked before the action runs: one that moves focus must not list this key as held.
                bound_keys_.insert(event->keycode);
                // While the session is locked or input inhibited only VT switching is kiln's: keys are the
                // locker's.
                if (seat_.bindings_->key_pressed(device_->keyboard, event->keycode,
                                                 seat_.shortcuts_inhibit_->inhibited() || seat_.windows_.locked() ||
                                                     seat_.input_inhibited()))
                    return;
                bound_keys_.erase(event->keycode);
            } else if (bound_keys_.erase(event->keycode)) {
                return;
            }
            // An input method's keyboard grab hears keys before the window (it types back what it does not use).
            if (!seat_.input_inhibited() && seat_.text_input_->grab_key(device_, event))
                return;
            wlr_seat_set_keyboard(seat_.seat_, device_);
            wlr_seat_keyboard_notify_key(seat_.seat_, event->time_msec, event->keycode, event->state);
        });
        destroy_.connect(&device->events.destroy, [this](void*) {
            Seat& seat = seat_;
            wlr_keyboard* gone = device_->keyboard;
            seat.keyboards_.erase(this);
            // Another keyboard takes over, so clients keep a keymap (wlroots would leave the seat with none).
            if (wlr_seat_get_keyboard(seat.seat_) == gone)
                wlr_seat_set_keyboard(seat.seat_, seat.keyboards_.empty() ? nullptr : seat.keyboards_.front()->device());
            seat.update_capabilities();
        });
    }

    wlr_input_device* device() const { return device_; }
    // Whether this key is down because of a binding: its release is kiln's too, and no window hears of it.
    bool bound(uint32_t keycode) const { return bound_keys_.contains(keycode); }
    // A virtual keyboard's keymap is its client's: kiln.ini's [keyboard] is not forced on it after creation.
    bool is_virtual() const { return wlr_input_device_get_virtual_keyboard(device_) != nullptr; }

    // [keyboard]'s keymap (XKB_DEFAULT_* fill the names it leaves empty; a default when xkbcommon refuses them,
    // reported once) and repeat. Should the keymap files go while kiln runs (the package removed before a reload or
    // a new keyboard), the keyboard keeps the keymap it has; the start-up made sure there was one to begin with.
    void apply(const KeyboardSettings& settings)
    {
        std::string problem;
        xkb_keymap* keymap = keyboard_keymap(settings, problem);
        if (!problem.empty()) {
            if (!seat_.keymap_reported_)
                log::error("%s%s", problem.c_str(), keymap ? "" : "; keeping the keymap it has");
            seat_.keymap_reported_ = true;
        }
        if (keymap)
            wlr_keyboard_set_keymap(device_->keyboard, keymap);
        xkb_keymap_unref(keymap);
        wlr_keyboard_set_repeat_info(device_->keyboard, settings.repeat_rate, settings.repeat_delay);
    }

private:
    Seat& seat_;
    wlr_input_device* device_;
    std::set<uint32_t> bound_keys_;
    wl::Listener modifiers_;
    wl::Listener key_;
    wl::Listener destroy_;
};

// One pointer device on the cursor; it leaves the seat's capabilities when it goes.
class Seat::Pointer {
public:
    Pointer(Seat& seat, wlr_input_device* device, bool framed) : seat_(seat), device_(device)
    {
        apply(seat.core_.options);
        if (framed)
            framed_ = std::make_unique<FramedPointer>(device, seat.cursor_);
        else
            wlr_cursor_attach_input_device(seat.cursor_, device);
        // wlr_cursor detaches the device itself on destroy.
        destroy_.connect(&device->events.destroy, [this](void*) {
            Seat& seat = seat_;
            const wlr_input_device* gone = device_;  // this lambda goes with this Pointer: copied first
            seat.pointers_.erase(this);
            seat.update_capabilities();
            // A pointer that goes while a grab lasts may be the one holding its button (a virtual pointer's client
            // quit mid-drag): no release would come, so the grab ends here; a client's hold as well.
            if (seat.held_->device_gone(gone))
                seat.scene_changed();
            if (seat.grab_) {
                PointerGrab* grab = seat.grab_;
                seat.grab_ = nullptr;
                grab->released();
                seat.scene_changed();
            }
        });
    }

    // [input] and [input NAME] for a libinput device (touchpads, mice); other pointers have no such settings.
    void apply(const Options& options)
    {
        if (!wlr_input_device_is_libinput(device_))
            return;
        LibinputConfig config(wlr_libinput_get_device_handle(device_));
        apply_input_settings(options.input_for(device_->name ? device_->name : ""), config);
    }

    wlr_input_device* device() const { return device_; }

private:
    Seat& seat_;
    wlr_input_device* device_;
    std::unique_ptr<FramedPointer> framed_;
    wl::Listener destroy_;
};

Seat::Seat(const Core& core, WindowInput& windows, SessionActions session, wlr_backend* backend,
           wlr_compositor* compositor)
    : core_(core), windows_(windows), seat_(wlr_seat_create(core.display, "seat0")),
      cursor_(wlr_cursor_create())
{
    shortcuts_inhibit_ = std::make_unique<ShortcutsInhibit>(core.display, seat_);
    input_inhibit_ = std::make_unique<InputInhibit>(core.display,
                                                    [this](wl_client* client) { set_exclusive_client(client); });
    bindings_ = std::make_unique<Bindings>(core.options, windows, std::move(session));
    wlr_cursor_attach_output_layout(cursor_, core.layout);
    cursor_image_ = std::make_unique<CursorImage>(seat_, cursor_, core.layout);
    drag_icons_ = std::make_unique<DragIcons>(seat_, cursor_, core.layers.drag_icons);
    held_ = std::make_unique<PointerImplicitGrab>(seat_, [this]() { scene_changed(); });
    pointer_focus_ = std::make_unique<PointerFocus>(
        wl_display_get_event_loop(core.display), compositor, [this](uint32_t time_msec) {
            // While a window is moved or resized the pointer stays with it (no client has it). A pointer no device
            // has moved points nowhere (wlroots parks it at 100,100): it enters nothing until it is used.
            if (!grab_ && pointer_used_)
                pointer_follow(time_msec, true);
        });
    touch_ = std::make_unique<Touch>(
        core, windows, *input_inhibit_, seat_, cursor_, [this]() { update_capabilities(); }, [this]() { notify_activity(); });
    // A tool over a surface that speaks no tablet-v2 works the pointer, through the same path as a mouse.
    Tablet::PointerEmulation emulation{
        [this](uint32_t time_msec) { pointer_moved(time_msec); },
        [this](uint32_t time_msec, uint32_t button, wlr_button_state state) {
            wlr_event_pointer_button event{};
            event.time_msec = time_msec;
            event.button = button;
            event.state = state;
            pointer_button(&event);
        },
        [this]() { wlr_seat_pointer_notify_frame(seat_); },
    };
    tablet_ = std::make_unique<Tablet>(core, windows, *input_inhibit_, seat_, cursor_, *cursor_image_, std::move(emulation),
                                       [this]() { notify_activity(); });
    text_input_ = std::make_unique<TextInputRelay>(core.display, seat_, core.scene, core.layout, windows);

    new_input_.connect(&backend->events.new_input,
                       [this](void* data) { add_input(static_cast<wlr_input_device*>(data)); });
    cursor_motion_.connect(&cursor_->events.motion, [this](void* data) {
        auto* event = static_cast<wlr_event_pointer_motion*>(data);
        double dx = event->delta_x;
        double dy = event->delta_y;
        if (constrain_)
            constrain_(dx, dy);
        wlr_cursor_move(cursor_, event->device, dx, dy);
        cursor_image_->drop_tool_image();  // a mouse moved: the pointer's image, not a tablet tool's
        pointer_moved(event->time_msec);
    });
    cursor_motion_absolute_.connect(&cursor_->events.motion_absolute, [this](void* data) {
        auto* event = static_cast<wlr_event_pointer_motion_absolute*>(data);
        // As a move from where the cursor is, so a pointer constraint applies to it too.
        double lx = 0;
        double ly = 0;
        wlr_cursor_absolute_to_layout_coords(cursor_, event->device, event->x, event->y, &lx, &ly);
        double dx = lx - cursor_->x;
        double dy = ly - cursor_->y;
        if (constrain_)
            constrain_(dx, dy);
        wlr_cursor_move(cursor_, event->device, dx, dy);
        cursor_image_->drop_tool_image();
        pointer_moved(event->time_msec);
    });
    cursor_button_.connect(&cursor_->events.button,
                           [this](void* data) { pointer_button(static_cast<wlr_event_pointer_button*>(data)); });
    cursor_axis_.connect(&cursor_->events.axis, [this](void* data) {
        auto* event = static_cast<wlr_event_pointer_axis*>(data);
        pointer_used();
        wlr_seat_pointer_notify_axis(seat_, event->time_msec, event->orientation, event->delta,
                                     event->delta_discrete, event->source);
    });
    cursor_frame_.connect(&cursor_->events.frame, [this](void*) { wlr_seat_pointer_notify_frame(seat_); });
    request_selection_.connect(&seat_->events.request_set_selection, [this](void* data) {
        auto* event = static_cast<wlr_seat_request_set_selection_event*>(data);
        // A null source clears the selection, which wlroots takes.
        wlr_seat_set_selection(seat_, event->source, event->serial);
    });
    // A pointer drag from a press the client holds, on the surface that has the pointer, is started (wlroots' drag
    // grab routes the pointer until the button is up; xdg-toplevel-drag moves a window with it). Any other drag
    // (touch, keyboard, a stale serial) is refused: wlroots 0.15 leaves freeing a requested drag to the compositor.
    // With a data source, destroying the source frees the drag (and tells the client); without one the only way is
    // to start it and end its keyboard grab at once, which destroys it before anything sees it.
    request_start_drag_.connect(&seat_->events.request_start_drag, [this](void* data) {
        auto* event = static_cast<wlr_seat_request_start_drag_event*>(data);
        wlr_drag* drag = event->drag;
        if (wlr_seat_validate_pointer_grab_serial(seat_, event->origin, event->serial)) {
            wlr_seat_start_pointer_drag(seat_, drag, event->serial);
        } else if (drag->source) {
            wlr_data_source_destroy(drag->source);
        } else {
            wlr_seat_start_drag(seat_, drag, 0);
            wlr_seat_keyboard_end_grab(seat_);
        }
    });
    update_capabilities();
}

Seat::~Seat()
{
    // The cursor owns the signals most listeners hang on: let go of them before it is freed.
    for (wl::Listener* listener : {&new_input_, &cursor_motion_, &cursor_motion_absolute_, &cursor_button_,
                                   &cursor_axis_, &cursor_frame_, &request_selection_, &request_start_drag_})
        listener->disconnect();
    text_input_.reset();
    keyboards_.clear();
    pointers_.clear();
    bindings_.reset();
    tablet_.reset();
    touch_.reset();
    pointer_focus_.reset();
    held_.reset();
    drag_icons_.reset();
    cursor_image_.reset();
    input_inhibit_.reset();
    shortcuts_inhibit_.reset();
    wlr_cursor_destroy(cursor_);
}

void Seat::add_input(wlr_input_device* device, bool framed)
{
    switch (device->type) {
    case WLR_INPUT_DEVICE_KEYBOARD:
        keyboards_.push_back(std::make_unique<Keyboard>(*this, device));
        // The seat's keyboard from the start, not only after its first key: a client that asks for a wl_keyboard
        // gets this keymap (and repeat info) at once (wev crashes on modifiers that come with no keymap).
        if (!wlr_seat_get_keyboard(seat_))
            wlr_seat_set_keyboard(seat_, device);
        break;
    case WLR_INPUT_DEVICE_POINTER:
        pointers_.push_back(std::make_unique<Pointer>(*this, device, framed));
        break;
    case WLR_INPUT_DEVICE_TOUCH:
        touch_->add_device(device);
        break;
    case WLR_INPUT_DEVICE_TABLET_TOOL:
        tablet_->add_device(device);
        break;
    default:
        break;
    }
    update_capabilities();
}

void Seat::update_capabilities()
{
    uint32_t caps = 0;
    if (!pointers_.empty())
        caps |= WL_SEAT_CAPABILITY_POINTER;
    if (!keyboards_.empty())
        caps |= WL_SEAT_CAPABILITY_KEYBOARD;
    if (touch_ && touch_->has_devices())
        caps |= WL_SEAT_CAPABILITY_TOUCH;
    // Only a change is announced: a client that hears wl_seat.capabilities re-creates its wl_pointer and friends,
    // so a second pointer or keyboard coming and going must not be heard.
    if (caps != seat_->capabilities)
        wlr_seat_set_capabilities(seat_, caps);
}

void Seat::scene_changed()
{
    pointer_focus_->scene_changed();
}

wlr_input_device* Seat::headless_pointer() const
{
    for (const auto& pointer : pointers_)
        if (wlr_input_device_is_headless(pointer->device()))
            return pointer->device();
    return nullptr;
}

wlr_input_device* Seat::headless_touch() const
{
    return touch_->headless_device();
}

wlr_input_device* Seat::headless_tablet() const
{
    return tablet_->headless_device();
}

void Seat::reload()
{
    keymap_reported_ = false;
    for (auto& keyboard : keyboards_)
        if (!keyboard->is_virtual())
            keyboard->apply(core_.options.keyboard);
    for (auto& pointer : pointers_)
        pointer->apply(core_.options);
}

void Seat::focus_keyboard(wlr_surface* surface)
{
    if (!input_allowed(surface))
        return;  // another client holds the input inhibitor
    wlr_keyboard* keyboard = wlr_seat_get_keyboard(seat_);
    if (keyboard) {
        // Keys held for a binding (the Tab of Alt+Tab) are kiln's: the window entered never sees them pressed.
        const auto owner = std::find_if(keyboards_.begin(), keyboards_.end(),
                                        [&](const auto& k) { return k->device()->keyboard == keyboard; });
        std::vector<uint32_t> held;
        for (size_t i = 0; i < keyboard->num_keycodes; ++i)
            if (owner == keyboards_.end() || !(*owner)->bound(keyboard->keycodes[i]))
                held.push_back(keyboard->keycodes[i]);
        wlr_seat_keyboard_notify_enter(seat_, surface, held.data(), held.size(), &keyboard->modifiers);
    }
    else
        wlr_seat_keyboard_notify_enter(seat_, surface, nullptr, 0, nullptr);
}

void Seat::start_grab(PointerGrab& grab)
{
    held_->cancel();  // a client's move request comes while its press is held: kiln's grab takes over
    grab_ = &grab;
    wlr_seat_pointer_clear_focus(seat_);
}

void Seat::cancel_grab(PointerGrab& grab)
{
    if (grab_ != &grab)
        return;
    grab_ = nullptr;
    scene_changed();  // the pointer meets whatever is under it now
}

void Seat::pointer_used()
{
    notify_activity();
    pointer_used_ = true;
    cursor_image_->pointer_used();
}

void Seat::pointer_moved(uint32_t time_msec)
{
    pointer_used();
    drag_icons_->pointer_moved();
    if (grab_) {
        grab_->motion(cursor_->x, cursor_->y);
        return;
    }
    pointer_follow(time_msec, false);  // the device's own wl_pointer.frame follows
}

void Seat::pointer_follow(uint32_t time_msec, bool frame)
{
    if (held_->holding())
        held_->motion(cursor_->x, cursor_->y, time_msec, frame);
    else
        PointerFocus::focus_at(seat_, core_.scene, cursor_->x, cursor_->y, time_msec, frame,
                               input_inhibit_->exclusive_client(), passes_through_ ? passes_through_() : nullptr);
}

void Seat::pointer_button(wlr_event_pointer_button* event)
{
    pointer_used();
    if (grab_) {
        if (event->state == WLR_BUTTON_RELEASED) {
            PointerGrab* grab = grab_;
            grab_ = nullptr;
            // The seat's set of held buttons lets go of it too (no client has pointer focus, so none hears it).
            wlr_seat_pointer_notify_button(seat_, event->time_msec, event->button, event->state);
            grab->released();
            scene_changed();  // the pointer meets whatever is under it now
        }
        return;
    }
    const bool held = held_->holding();  // false too once the held surface went
    if (event->state == WLR_BUTTON_RELEASED && held_->swallow(event->button))
        return;  // pressed on a surface that went: the client the pointer is on now never saw that press
    if (event->state == WLR_BUTTON_PRESSED && !held) {
        // What the press does to windows (kiln's decorations, click to focus, Super + drag) is the shell's; a
        // press it takes no client hears. While a button is held, further presses are the held surface's.
        wlr_keyboard* keyboard = wlr_seat_get_keyboard(seat_);
        const ButtonPress press{cursor_->x, cursor_->y, event->button,
                                keyboard ? wlr_keyboard_get_modifiers(keyboard) : 0u,
                                [this]() { return shortcuts_inhibit_->inhibited() || input_inhibited(); },
                                [this](wlr_surface* surface) { return input_allowed(surface); }};
        if (windows_.pressed(press))
            return;
        // The press goes to what is under the pointer now (a scene change may still be on its way), and the hold
        // keeps that.
        PointerFocus::focus_at(seat_, core_.scene, cursor_->x, cursor_->y, event->time_msec, true,
                               input_inhibit_->exclusive_client());
    }
    wlr_seat_pointer_notify_button(seat_, event->time_msec, event->button, event->state);
    if (event->state == WLR_BUTTON_PRESSED) {
        const SceneHit hit = scene_hit(core_.scene, cursor_->x, cursor_->y);
        held_->pressed(event->button,
                       hit.surface && hit.surface == seat_->pointer_state.focused_surface ? hit.node : nullptr,
                       event->device);
    } else if (held_->released()) {
        // The last button is up: the pointer meets what is under it (the wl_pointer.frame is the device's).
        PointerFocus::focus_at(seat_, core_.scene, cursor_->x, cursor_->y, event->time_msec, false,
                               input_inhibit_->exclusive_client());
    }
}

}  // namespace kiln::compositor

namespace kiln::compositor {

bool Seat::input_allowed(wlr_surface* surface) const
{
    return input_inhibit_->allows(surface);
}

bool Seat::input_inhibited() const
{
    return input_inhibit_->exclusive_client() != nullptr;
}

const wl_global* Seat::input_inhibit_global() const
{
    return input_inhibit_->global();
}

const wl_global* Seat::shortcuts_inhibit_global() const
{
    return shortcuts_inhibit_->global();
}

void Seat::pointer_shape(wl_client* client, uint32_t serial, std::span<const char* const> names)
{
    cursor_image_->client_shape(client, serial, names);
}

void Seat::tool_shape(wl_client* client, uint32_t serial, std::span<const char* const> names)
{
    if (tablet_)
        tablet_->set_tool_shape(client, serial, names);
}

void Seat::set_exclusive_client(wl_client* client)
{
    if (!client) {
        // Focus goes back where it was: to the window or panel that had it, unless the inhibiting client's own
        // surface still has it; the pointer enters what is under it.
        if (!seat_->keyboard_state.focused_surface)
            windows_.restore_focus();
        scene_changed();
        return;
    }
    wlr_surface* focused = seat_->keyboard_state.focused_surface;
    if (focused && wl_resource_get_client(focused->resource) != client) {
        windows_.keyboard_taken(focused);
        wlr_seat_keyboard_clear_focus(seat_);
        windows_.restore_focus();  // the inhibiting client's own window or panel, if it has one
    }
    wlr_seat_client* pointed = seat_->pointer_state.focused_client;
    if (pointed && pointed->client != client)
        wlr_seat_pointer_clear_focus(seat_);
    touch_->cancel_except(client);
    tablet_->leave_except(client);
    scene_changed();  // the pointer may be over one of the inhibiting client's surfaces
}

}  // namespace kiln::compositor
