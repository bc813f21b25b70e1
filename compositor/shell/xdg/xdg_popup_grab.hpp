// PopupGrabs: the seat grab of a chain of xdg_popups (xdg_popup.grab): input goes to the grabbing client's surfaces
// only, and a click anywhere else dismisses the popups, topmost first.
#pragma once

#include "compositor/indexed_list.hpp"
#include "compositor/wlr.hpp"

namespace kiln::compositor::xdg {

class Popup;

class PopupGrabs {
public:
    explicit PopupGrabs(wlr_seat* seat);
    ~PopupGrabs();
    PopupGrabs(const PopupGrabs&) = delete;
    PopupGrabs& operator=(const PopupGrabs&) = delete;

    wlr_seat* seat() const { return seat_; }
    // The popup that would be the topmost grabbing one (the last added), or null.
    Popup* topmost() const { return popups_.empty() ? nullptr : popups_.back(); }
    bool holds(const Popup* popup) const;
    void add(Popup* popup);
    // The popup is gone or dismissed; the seat's grabs end with the last one.
    void remove(Popup* popup);
    // Every grabbing popup gets popup_done, topmost first.
    void dismiss_all();
    wl_client* client() const;

private:
    void start();
    void end();

    wlr_seat* seat_;
    IndexedList<Popup*> popups_;  // the grab's chain, topmost last
    wlr_seat_pointer_grab pointer_grab_{};
    wlr_seat_keyboard_grab keyboard_grab_{};
    wlr_seat_touch_grab touch_grab_{};
    bool active_ = false;
};

}  // namespace kiln::compositor::xdg
