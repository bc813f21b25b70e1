// TextInputRelay behaviour: text inputs follow keyboard focus, the input method's state travels both ways.
#include "compositor/input/text_input.hpp"

#include "compositor/input/window_input.hpp"

#include <algorithm>
#include <cstdlib>

namespace kiln::compositor {
namespace {

// wlroots 0.15 overwrites an input method's current state on each commit without freeing its strings
// (types/wlr_input_method_v2.c, im_commit), a leak per commit: once relayed they are freed here. wlroots frees what
// is left at destroy, so null is left behind.
void release_committed_strings(wlr_input_method_v2* input_method)
{
    free(input_method->current.commit_text);
    free(input_method->current.preedit.text);
    input_method->current.commit_text = nullptr;
    input_method->current.preedit.text = nullptr;
}

}  // namespace

// One application's zwp_text_input_v3: entered on the keyboard focus's surface whether or not an input method
// runs (the protocol ties enter and leave to the focus alone); an input method arriving later is put to work at once.
class TextInputRelay::TextInput {
public:
    TextInput(TextInputRelay& relay, wlr_text_input_v3* input) : relay_(relay), input_(input)
    {
        enable_.connect(&input->events.enable, [this](void*) {
            // wlroots reports an enable even from a text input without focus: that one is ignored.
            if (relay_.input_method_ && input_->focused_surface)
                relay_.activate(*this);
        });
        commit_.connect(&input->events.commit, [this](void*) {
            if (!relay_.input_method_ || !input_->focused_surface || !input_->current_enabled)
                return;
            // Enabled before it was entered (the input method came later): this commit is its first with focus.
            if (!relay_.input_method_->active)
                relay_.activate(*this);
            else
                relay_.send_state(*this);
        });
        disable_.connect(&input->events.disable, [this](void*) {
            if (relay_.input_method_ && input_->focused_surface)
                relay_.deactivate();
        });
        destroy_.connect(&input->events.destroy, [this](void*) {
            TextInputRelay& relay = relay_;
            if (relay.input_method_ && input_->focused_surface && input_->current_enabled)
                relay.deactivate();
            relay.text_inputs_.erase(this);
        });
    }

    wlr_text_input_v3* wlr() const { return input_; }
    wl_client* client() const { return wl_resource_get_client(input_->resource); }

private:
    TextInputRelay& relay_;
    wlr_text_input_v3* input_;
    wl::Listener enable_;
    wl::Listener commit_;
    wl::Listener disable_;
    wl::Listener destroy_;
};

// One zwp_input_popup_surface_v2 (the candidate list): drawn in the scene above the windows while mapped.
class TextInputRelay::Popup {
public:
    Popup(TextInputRelay& relay, wlr_input_popup_surface_v2* popup) : relay_(relay), popup_(popup)
    {
        map_.connect(&popup->events.map, [this](void*) {
            node_ = wlr_scene_subsurface_tree_create(&relay_.scene_->node, popup_->surface);
            if (node_)
                node_destroy_.connect(&node_->events.destroy, [this](void*) {
                    node_ = nullptr;
                    node_destroy_.disconnect();
                });
            relay_.place_popups();
        });
        // A candidate list grows and shrinks as the user types: a new size may need a new place.
        commit_.connect(&popup->surface->events.commit, [this](void*) {
            if (node_ && (popup_->surface->current.width != placed_width_ ||
                          popup_->surface->current.height != placed_height_))
                relay_.place_popups();
        });
        unmap_.connect(&popup->events.unmap, [this](void*) { drop_node(); });
        destroy_.connect(&popup->events.destroy, [this](void*) {
            TextInputRelay& relay = relay_;
            relay.popups_.erase(this);
        });
    }
    ~Popup() { drop_node(); }
    Popup(const Popup&) = delete;
    Popup& operator=(const Popup&) = delete;

    // Below the text cursor rectangle `cursor` (layout coordinates), or above it where the output ends below, and
    // moved left where it would leave the output on the right; told where the cursor is relative to itself. Hidden
    // when no text input has focus.
    void place(const wlr_box* cursor)
    {
        if (!node_)
            return;
        wlr_scene_node_set_enabled(node_, cursor != nullptr);
        if (!cursor)
            return;
        const int width = popup_->surface->current.width;
        const int height = popup_->surface->current.height;
        int x = cursor->x;
        int y = cursor->y + cursor->height;
        wlr_output* output = wlr_output_layout_output_at(relay_.layout_, cursor->x, cursor->y);
        if (const wlr_box* area = output ? wlr_output_layout_get_box(relay_.layout_, output) : nullptr) {
            if (y + height > area->y + area->height && cursor->y - height >= area->y)
                y = cursor->y - height;
            if (x + width > area->x + area->width)
                x = std::max(area->x, area->x + area->width - width);
        }
        wlr_scene_node_set_position(node_, x, y);
        wlr_scene_node_raise_to_top(node_);
        placed_width_ = width;
        placed_height_ = height;
        // Told only on a change: an input method may redraw (and commit) on each one.
        wlr_box relative{cursor->x - x, cursor->y - y, cursor->width, cursor->height};
        const bool same = told_ && relative.x == told_relative_.x && relative.y == told_relative_.y &&
                          relative.width == told_relative_.width && relative.height == told_relative_.height;
        if (!same)
            wlr_input_popup_surface_v2_send_text_input_rectangle(popup_, &relative);
        told_ = true;
        told_relative_ = relative;
    }

private:
    void drop_node()
    {
        node_destroy_.disconnect();
        if (node_)
            wlr_scene_node_destroy(node_);
        node_ = nullptr;
    }

    TextInputRelay& relay_;
    wlr_input_popup_surface_v2* popup_;
    wlr_scene_node* node_ = nullptr;
    int placed_width_ = 0;
    int placed_height_ = 0;
    bool told_ = false;
    wlr_box told_relative_{};
    wl::Listener map_;
    wl::Listener commit_;
    wl::Listener unmap_;
    wl::Listener destroy_;
    wl::Listener node_destroy_;
};

TextInputRelay::TextInputRelay(wl_display* display, wlr_seat* seat, wlr_scene* scene, wlr_output_layout* layout,
                               const WindowInput& windows)
    : seat_(seat), scene_(scene), layout_(layout), windows_(windows), text_input_manager_(wlr_text_input_manager_v3_create(display)),
      input_method_manager_(wlr_input_method_manager_v2_create(display))
{
    new_text_input_.connect(&text_input_manager_->events.text_input,
                            [this](void* data) { add_text_input(static_cast<wlr_text_input_v3*>(data)); });
    new_input_method_.connect(&input_method_manager_->events.input_method,
                              [this](void* data) { add_input_method(static_cast<wlr_input_method_v2*>(data)); });
    focus_change_.connect(&seat->keyboard_state.events.focus_change, [this](void* data) {
        set_focus(static_cast<wlr_seat_keyboard_focus_change_event*>(data)->new_surface);
    });
}

TextInputRelay::~TextInputRelay()
{
    popups_.clear();
    text_inputs_.clear();
}

const wl_global* TextInputRelay::input_method_global() const
{
    return input_method_manager_->global;
}

void TextInputRelay::add_text_input(wlr_text_input_v3* input)
{
    if (input->seat != seat_)
        return;
    text_inputs_.push_back(std::make_unique<TextInput>(*this, input));
    // A text input made while its client already has keyboard focus starts out focused.
    wlr_surface* focus = seat_->keyboard_state.focused_surface;
    if (focus && wl_resource_get_client(focus->resource) == text_inputs_.back()->client())
        wlr_text_input_v3_send_enter(input, focus);
}

void TextInputRelay::add_input_method(wlr_input_method_v2* input_method)
{
    if (input_method->seat != seat_)
        return;
    if (input_method_) {
        // One input method per seat: a second is told it cannot work; wlroots frees it then (its resource stays,
        // inert), so nothing may be kept of it.
        wlr_input_method_v2_send_unavailable(input_method);
        return;
    }
    input_method_ = input_method;
    im_commit_.connect(&input_method->events.commit, [this](void*) { input_method_committed(); });
    im_grab_keyboard_.connect(&input_method->events.grab_keyboard, [this](void* data) {
        auto* grab = static_cast<wlr_input_method_keyboard_grab_v2*>(data);
        grabbed_keys_.clear();
        // The grab gets the keymap, repeat info and modifiers of the keyboard in use.
        if (wlr_keyboard* keyboard = wlr_seat_get_keyboard(seat_))
            wlr_input_method_keyboard_grab_v2_set_keyboard(grab, keyboard);
        im_grab_destroy_.connect(&grab->events.destroy, [this](void*) {
            im_grab_destroy_.disconnect();
            // Modifiers changed during the grab went to the input method only: the focused window hears them now.
            if (wlr_keyboard* keyboard = wlr_seat_get_keyboard(seat_))
                wlr_seat_keyboard_notify_modifiers(seat_, &keyboard->modifiers);
        });
    });
    im_new_popup_.connect(&input_method->events.new_popup_surface, [this](void* data) {
        popups_.push_back(std::make_unique<Popup>(*this, static_cast<wlr_input_popup_surface_v2*>(data)));
        place_popups();
    });
    im_destroy_.connect(&input_method->events.destroy, [this](void*) { input_method_gone(); });

    // A text input enabled on the focused surface before the input method came is served from now on.
    TextInput* input = focused();
    if (input && input->wlr()->current_enabled)
        activate(*input);
}

void TextInputRelay::input_method_committed()
{
    relay_commit();
    release_committed_strings(input_method_);
}

void TextInputRelay::relay_commit()
{
    TextInput* input = focused();
    if (!input || !input->wlr()->current_enabled)
        return;
    const wlr_input_method_v2_state& state = input_method_->current;
    wlr_text_input_v3* text_input = input->wlr();
    if (state.preedit.text)
        wlr_text_input_v3_send_preedit_string(text_input, state.preedit.text, state.preedit.cursor_begin,
                                              state.preedit.cursor_end);
    if (state.commit_text)
        wlr_text_input_v3_send_commit_string(text_input, state.commit_text);
    if (state.delete_.before_length || state.delete_.after_length)
        wlr_text_input_v3_send_delete_surrounding_text(text_input, state.delete_.before_length,
                                                       state.delete_.after_length);
    wlr_text_input_v3_send_done(text_input);
}

void TextInputRelay::input_method_gone()
{
    // wlroots has destroyed the popups already; the keyboard grab goes after this signal (its listener stays).
    for (wl::Listener* listener : {&im_commit_, &im_grab_keyboard_, &im_new_popup_, &im_destroy_})
        listener->disconnect();
    input_method_ = nullptr;
    // The text inputs keep their focus (no grab: the application reads its keys itself again); a preedit the input
    // method left on screen is cleared, as the input method would on deactivation.
    TextInput* input = focused();
    if (input && input->wlr()->current_enabled) {
        wlr_text_input_v3_send_preedit_string(input->wlr(), nullptr, 0, 0);
        wlr_text_input_v3_send_done(input->wlr());
    }
}

void TextInputRelay::set_focus(wlr_surface* surface)
{
    for (auto& input : text_inputs_) {
        wlr_text_input_v3* text_input = input->wlr();
        if (surface && text_input->focused_surface == surface)
            continue;
        if (text_input->focused_surface) {
            if (input_method_ && text_input->current_enabled)
                deactivate();
            wlr_text_input_v3_send_leave(text_input);
        }
        if (surface && wl_resource_get_client(surface->resource) == input->client())
            wlr_text_input_v3_send_enter(text_input, surface);
    }
    // The surface an enabled text input was on can vanish before the seat hears of it (wlroots forgets it first):
    // the input method must still stop.
    TextInput* input = focused();
    if (input_method_ && input_method_->active && !(input && input->wlr()->current_enabled))
        deactivate();
    place_popups();
}

TextInputRelay::TextInput* TextInputRelay::focused() const
{
    // A client may have several text inputs on the focused surface; the enabled one is the one typed into.
    TextInput* found = nullptr;
    for (const auto& input : text_inputs_) {
        if (!input->wlr()->focused_surface)
            continue;
        if (input->wlr()->current_enabled)
            return input.get();
        if (!found)
            found = input.get();
    }
    return found;
}

void TextInputRelay::activate(TextInput& input)
{
    wlr_input_method_v2_send_activate(input_method_);
    send_state(input);
}

void TextInputRelay::deactivate()
{
    if (!input_method_->active)
        return;
    wlr_input_method_v2_send_deactivate(input_method_);
    wlr_input_method_v2_send_done(input_method_);
}

void TextInputRelay::send_state(const TextInput& input)
{
    const wlr_text_input_v3* text_input = input.wlr();
    const wlr_text_input_v3_state& state = text_input->current;
    if (text_input->active_features & WLR_TEXT_INPUT_V3_FEATURE_SURROUNDING_TEXT)
        wlr_input_method_v2_send_surrounding_text(input_method_, state.surrounding.text, state.surrounding.cursor,
                                                  state.surrounding.anchor);
    wlr_input_method_v2_send_text_change_cause(input_method_, state.text_change_cause);
    if (text_input->active_features & WLR_TEXT_INPUT_V3_FEATURE_CONTENT_TYPE)
        wlr_input_method_v2_send_content_type(input_method_, state.content_type.hint, state.content_type.purpose);
    wlr_input_method_v2_send_done(input_method_);
    place_popups();
}

void TextInputRelay::place_popups()
{
    if (popups_.empty())
        return;
    TextInput* input = focused();
    std::optional<wlr_box> cursor;
    if (input && input->wlr()->current_enabled) {
        int lx = 0;
        int ly = 0;
        if (windows_.window_origin(input->wlr()->focused_surface, &lx, &ly)) {
            wlr_box box{lx, ly, 0, 0};
            // Without a cursor rectangle from the application, the popup goes to the surface's top-left corner.
            if (input->wlr()->active_features & WLR_TEXT_INPUT_V3_FEATURE_CURSOR_RECTANGLE) {
                const wlr_box& rect = input->wlr()->current.cursor_rectangle;
                box = {lx + rect.x, ly + rect.y, rect.width, rect.height};
            }
            cursor = box;
        }
    }
    for (auto& popup : popups_)
        popup->place(cursor ? &*cursor : nullptr);
}

wlr_input_method_keyboard_grab_v2* TextInputRelay::grab_for(wlr_input_device* device) const
{
    if (!input_method_ || !input_method_->keyboard_grab || !device->keyboard)
        return nullptr;
    wlr_input_method_keyboard_grab_v2* grab = input_method_->keyboard_grab;
    // Keys the input method types back through its own virtual keyboard go to the window, or they would loop.
    wlr_virtual_keyboard_v1* virtual_keyboard = wlr_input_device_get_virtual_keyboard(device);
    if (virtual_keyboard && wl_resource_get_client(virtual_keyboard->resource) == wl_resource_get_client(grab->resource))
        return nullptr;
    return grab;
}

bool TextInputRelay::grab_key(wlr_input_device* device, const wlr_event_keyboard_key* event)
{
    wlr_input_method_keyboard_grab_v2* grab = grab_for(device);
    if (!grab)
        return false;
    // A key held since before the grab is released to the window that saw it pressed, or it would stay down there.
    if (event->state == WL_KEYBOARD_KEY_STATE_PRESSED)
        grabbed_keys_.insert(event->keycode);
    else if (!grabbed_keys_.erase(event->keycode))
        return false;
    wlr_input_method_keyboard_grab_v2_set_keyboard(grab, device->keyboard);
    wlr_input_method_keyboard_grab_v2_send_key(grab, event->time_msec, event->keycode, event->state);
    return true;
}

bool TextInputRelay::grab_modifiers(wlr_input_device* device)
{
    wlr_input_method_keyboard_grab_v2* grab = grab_for(device);
    if (!grab)
        return false;
    wlr_input_method_keyboard_grab_v2_set_keyboard(grab, device->keyboard);
    wlr_input_method_keyboard_grab_v2_send_modifiers(grab, &device->keyboard->modifiers);
    return true;
}

}  // namespace kiln::compositor
