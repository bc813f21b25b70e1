// XdgDialogV1: xdg_wm_dialog_v1, dialogs that name themselves modal; while a modal dialog is shown its parent window
// gives keyboard focus to it (a click on the parent, Alt+Tab to it, a taskbar's activate), as Toplevels does it.
//
// Pointer input still reaches the parent: the protocol leaves that to the client, and kiln does as sway and Mutter.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <unordered_map>

namespace kiln::compositor {

class Toplevels;

class XdgDialogV1 {
public:
    XdgDialogV1(wl_display* display, Toplevels& toplevels);
    ~XdgDialogV1();
    XdgDialogV1(const XdgDialogV1&) = delete;
    XdgDialogV1& operator=(const XdgDialogV1&) = delete;

    struct Dialog;

private:
    static void bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept;
    static void get_dialog(wl_client* client, wl_resource* manager, uint32_t id, wl_resource* toplevel) noexcept;
    // Marks the window of `dialog` modal or not, if it still has one.
    void apply(Dialog& dialog, bool modal);
    void forget(Dialog& dialog);

    Toplevels& toplevels_;
    wl_global* global_;
    // The xdg_toplevel resources with a dialog object (already_used for a second), and that object.
    std::unordered_map<wl_resource*, Dialog*> dialogs_;
    // kiln makes a window on the xdg_toplevel's first commit, often after set_modal: the hint waits for it.
    wl::Listener toplevel_added_;
};

}  // namespace kiln::compositor
