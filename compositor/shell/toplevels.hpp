// Toplevels: every window kiln manages, xdg and X11 alike, in the order they appeared and in the order they had
// focus: keyboard focus among them, Alt+Tab, and the interactive move or resize of one.
#pragma once

#include "compositor/indexed_list.hpp"
#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <functional>
#include <memory>

namespace kiln::compositor {

struct Core;
class Desktop;
class InteractiveGrab;
class SeatFocus;
class Toplevel;

class Toplevels {
public:
    Toplevels(const Core& core, Desktop& desktop, SeatFocus& seat);
    ~Toplevels();
    Toplevels(const Toplevels&) = delete;
    Toplevels& operator=(const Toplevels&) = delete;

    // A window's owner adds it as it is made and removes it before it goes (`remove` carries it too).
    void add(Toplevel& toplevel);
    void remove(Toplevel& toplevel);
    // It was mapped: it takes focus, unless a fullscreen window on its output keeps it (then it is next in line).
    void mapped(Toplevel& toplevel);
    // Unmapped or minimized: if it had focus, focus goes back to the most recently focused window still shown.
    void hidden(Toplevel& toplevel);

    // Keyboard focus to `toplevel`, raised and shown if minimized; where it has a modal dialog shown, to the dialog
    // (raised above it) instead.
    void focus(Toplevel* toplevel);
    // Marks `toplevel` a modal dialog or not (xdg-dialog-v1); a modal one shown takes focus from its parent.
    void set_modal(Toplevel& toplevel, bool modal);
    // The window with keyboard focus, or null.
    Toplevel* focused() const;
    // Focus to the next shown window after the focused one, in the order they appeared (Alt+Tab); a minimized one
    // is shown again.
    void focus_next();
    // Focus to the most recently focused window still shown (after a lock or a panel's grab ends).
    void focus_latest();
    // The most recently focused window `pick` accepts, or null.
    Toplevel* most_recent(const std::function<bool(const Toplevel&)>& pick) const;
    // No window has keyboard focus (the one that had it is told it is no longer activated).
    void clear_focus();
    // Called before focus goes to a window on a hidden workspace, so that Workspaces shows it (null: none).
    void on_reveal(std::function<void(Toplevel&)> reveal) { reveal_ = std::move(reveal); }
    // The output under the pointer, or the layout's centre one.
    wlr_output* output_under_pointer() const;
    // The window showing `surface`, if any.
    Toplevel* find(wlr_surface* surface) const;

    // Super + drag and Super + right-drag: a move, or a resize from `edges`, that needs no client's serial.
    void begin_move(Toplevel& toplevel);
    void begin_resize(Toplevel& toplevel, uint32_t edges);
    // Starts a move (edges 0) or resize its caller has checked; a grab already under way ends first.
    void start_grab(Toplevel& toplevel, uint32_t edges);
    bool grabbing() const { return grab_ != nullptr; }
    // Called by the grab when its button is released.
    void end_grab();

    // Each carries the Toplevel: taskbars follow windows through them.
    struct {
        wl_signal add;
        wl_signal remove;
    } events;

private:
    // An output went (unplugged, or turned off): windows left on no output move to the middle of the one in the
    // layout's centre, keeping fullscreen and maximized there, so none is lost where nothing shows it.
    void rehome();
    // The shown modal dialog of `toplevel`, if any.
    Toplevel* modal_dialog_of(const Toplevel& toplevel) const;

    const Core& core_;
    Desktop& desktop_;
    SeatFocus& seat_;
    IndexedList<Toplevel*> all_;    // in the order they appeared
    IndexedList<Toplevel*> order_;  // most recently focused last
    std::unique_ptr<InteractiveGrab> grab_;
    std::function<void(Toplevel&)> reveal_;
    wl::Listener layout_change_;
};

}  // namespace kiln::compositor
