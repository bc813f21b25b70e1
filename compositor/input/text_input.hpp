// TextInputRelay: relays between applications' text inputs (text-input-v3) and the one input method (input-method-v2,
// fcitx5 or IBus) on the seat, as sway 1.7 does: activation follows keyboard focus, text state goes to the input
// method, its commit, preedit and deletions come back, its keyboard grab sees keys first, its popup sits at the cursor.
#pragma once

#include "compositor/indexed_list.hpp"
#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <list>
#include <memory>
#include <optional>
#include <set>

namespace kiln::compositor {

class WindowInput;

class TextInputRelay {
public:
    // The managers' globals live as long as the display; popups are placed in `scene`, above the windows, and kept
    // on the output of `layout` that the text cursor is on.
    // `windows` says where a window's surface lies, for input-method popups.
    TextInputRelay(wl_display* display, wlr_seat* seat, wlr_scene* scene, wlr_output_layout* layout,
                   const WindowInput& windows);
    ~TextInputRelay();
    TextInputRelay(const TextInputRelay&) = delete;
    TextInputRelay& operator=(const TextInputRelay&) = delete;

    // zwp_input_method_manager_v2's global, for PrivilegedGlobals to hide.
    const wl_global* input_method_global() const;
    // A key or modifier change from `device` goes to the input method's keyboard grab if there is one (unless the
    // device is the input method's own virtual keyboard, through which it sends keys back): true when taken.
    bool grab_key(wlr_input_device* device, const wlr_event_keyboard_key* event);
    bool grab_modifiers(wlr_input_device* device);

private:
    class TextInput;
    class Popup;

    void set_focus(wlr_surface* surface);
    void add_text_input(wlr_text_input_v3* input);
    void add_input_method(wlr_input_method_v2* input_method);
    void input_method_committed();
    // The committed commit string, preedit and deletion to the focused text input, with done.
    void relay_commit();
    void input_method_gone();
    wlr_input_method_keyboard_grab_v2* grab_for(wlr_input_device* device) const;
    // The text input on the focused surface, the enabled one where its client has several; null when none.
    TextInput* focused() const;
    // Activates the input method for `input` and sends its state, ending with done; deactivate ends that.
    void activate(TextInput& input);
    void deactivate();
    void send_state(const TextInput& input);
    // Every input-method popup to the focused text input's cursor rectangle.
    void place_popups();

    wlr_seat* seat_;
    wlr_scene* scene_;
    wlr_output_layout* layout_;
    const WindowInput& windows_;
    wlr_text_input_manager_v3* text_input_manager_;
    wlr_input_method_manager_v2* input_method_manager_;
    wlr_input_method_v2* input_method_ = nullptr;
    IndexedList<std::unique_ptr<TextInput>> text_inputs_;
    IndexedList<std::unique_ptr<Popup>> popups_;
    std::set<uint32_t> grabbed_keys_;  // pressed while the keyboard grab held them: their releases are its too

    wl::Listener new_text_input_;
    wl::Listener new_input_method_;
    wl::Listener focus_change_;
    wl::Listener im_commit_;
    wl::Listener im_grab_keyboard_;
    wl::Listener im_grab_destroy_;
    wl::Listener im_new_popup_;
    wl::Listener im_destroy_;
};

}  // namespace kiln::compositor
