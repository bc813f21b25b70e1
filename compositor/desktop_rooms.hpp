// DesktopRooms: the windows, the seat and the protocols that act on them (shell, input, clipboard, idle, activation,
// taskbars, capture, Xwayland; then layer-shell, the lock, output management) and the desktop they ask, owned here and
// made in Server::start()'s order. Their declaration order below is their teardown order: the seat outlives them all.
#pragma once

#include "compositor/core.hpp"
#include "compositor/input/bindings.hpp"
#include "compositor/input/idle.hpp"
#include "compositor/input/pointer_constraints.hpp"
#include "compositor/input/pointer_gestures.hpp"
#include "compositor/input/relative_pointer.hpp"
#include "compositor/input/seat.hpp"
#include "compositor/input/test_input.hpp"
#include "compositor/input/virtual_input.hpp"
#include "compositor/protocols/desktop/clipboard.hpp"
#include "compositor/protocols/desktop/cursor_shape_v1.hpp"
#include "compositor/protocols/desktop/ext_data_control_v1.hpp"
#include "compositor/protocols/desktop/ext_foreign_toplevel_list_v1.hpp"
#include "compositor/protocols/desktop/ext_idle_notify_v1.hpp"
#include "compositor/protocols/capture/ext_image_capture_source_v1.hpp"
#include "compositor/protocols/capture/ext_image_copy_capture_v1.hpp"
#include "compositor/protocols/desktop/ext_session_lock_v1.hpp"
#include "compositor/protocols/desktop/ext_transient_seat_v1.hpp"
#include "compositor/protocols/desktop/ext_workspace_v1.hpp"
#include "compositor/protocols/desktop/xdg_dialog_v1.hpp"
#include "compositor/protocols/desktop/xdg_foreign.hpp"
#include "compositor/protocols/desktop/xdg_system_bell_v1.hpp"
#include "compositor/protocols/desktop/xdg_toplevel_drag_v1.hpp"
#include "compositor/protocols/desktop/xdg_toplevel_icon_v1.hpp"
#include "compositor/protocols/desktop/xdg_toplevel_tag_v1.hpp"
#include "compositor/session/output_management.hpp"
#include "compositor/session/output_power.hpp"
#include "compositor/shell/decorations.hpp"
#include "compositor/shell/desktop.hpp"
#include "compositor/shell/foreign_toplevels.hpp"
#include "compositor/shell/layer_shell.hpp"
#include "compositor/shell/shell_desktop.hpp"
#include "compositor/shell/toplevels.hpp"
#include "compositor/shell/window_keys.hpp"
#include "compositor/shell/workspaces.hpp"
#include "compositor/shell/window_policy.hpp"
#include "compositor/shell/window_rules.hpp"
#include "compositor/shell/xdg_activation.hpp"
#include "compositor/shell/xdg_shell.hpp"
#include "compositor/shell/xwayland.hpp"
#include "compositor/teardown.hpp"
#include "compositor/wlr.hpp"

#include <functional>
#include <memory>
#include <optional>

namespace kiln::compositor {

class PrivilegedGlobals;
class RequestHooks;

// The rooms, owned: a room not made (no X11, no test input) is null. Members are destroyed in reverse declaration
// order, so the order below is the teardown order read bottom-up; Server destroys the clients (and Xwayland) first,
// while every room still listens, then this group, before what a room may use while it lives: the privileged globals'
// filter (which only compares the rooms' globals' addresses), the buffer and commit protocols and the backend.
struct DesktopRooms {
    explicit DesktopRooms(const Core& core)
        : seat_focus(*this), desktop(core, {toplevels, seat_focus, shell, layer_shell,
                         [this]() { return session_lock && session_lock->locked(); }, xwayland, window_keys})
    {
    }
    DesktopRooms(const DesktopRooms&) = delete;
    DesktopRooms& operator=(const DesktopRooms&) = delete;

    // The seat as the shell sees it, answered by `seat` below: the windows' list and the shell are made before the
    // seat (which tells the shell's window policy of presses), and no client can connect before both exist.
    class SeatAnswers final : public SeatFocus {
    public:
        explicit SeatAnswers(const DesktopRooms& rooms) : rooms_(rooms) {}
        wlr_seat* wlr() const override { return rooms_.seat->wlr(); }
        wlr_cursor* cursor() const override { return rooms_.seat->cursor(); }
        void focus_keyboard(wlr_surface* surface) override { rooms_.seat->focus_keyboard(surface); }
        bool input_allowed(wlr_surface* surface) const override { return rooms_.seat->input_allowed(surface); }
        void scene_changed() override { rooms_.seat->scene_changed(); }
        void start_grab(PointerGrab& grab) override { rooms_.seat->start_grab(grab); }
        void cancel_grab(PointerGrab& grab) override { rooms_.seat->cancel_grab(grab); }

    private:
        const DesktopRooms& rooms_;
    };
    SeatAnswers seat_focus;
    // What rooms ask of the desktop as a whole, answered from the rooms below; it outlives them all.
    ShellDesktop desktop;
    // The seat outlives everything that acts on it.
    std::unique_ptr<WindowPolicy> window_policy;  // what input does to windows; the seat tells it
    std::unique_ptr<Seat> seat;
    std::unique_ptr<XdgSystemBellV1> system_bell;
    std::unique_ptr<CursorShapeV1> cursor_shape;
    std::unique_ptr<Clipboard> clipboard;
    std::unique_ptr<ExtDataControlV1> data_control;
    std::unique_ptr<VirtualInput> virtual_input;
    std::unique_ptr<ExtTransientSeatV1> transient_seats;  // after the virtual keyboards it takes (they go first)
    std::unique_ptr<TestInput> test_input;
    std::unique_ptr<Decorations> decorations;
    std::unique_ptr<ExtIdleNotifyV1> ext_idle_notify;  // after Idle, which tells it the activity and inhibitors
    std::unique_ptr<Idle> idle;
    Teardown seat_activity_gone{[this] {  // the seat tells idle, which goes next
        if (seat)
            seat->on_activity(nullptr);
    }};
    std::unique_ptr<XdgForeign> xdg_foreign;
    std::unique_ptr<XdgActivation> xdg_activation;
    // After the xdg and X11 windows it lists and the taskbar handles that follow them.
    std::unique_ptr<Toplevels> toplevels;
    // Follow the windows (the shell and Xwayland, below, go first) and outputs; the keys act on them.
    std::unique_ptr<Workspaces> workspaces;
    std::unique_ptr<WindowKeys> window_keys;
    std::unique_ptr<ExtWorkspaceV1> workspace_list;  // bars' view of the workspaces
    std::unique_ptr<XdgToplevelIconV1> toplevel_icons;
    std::unique_ptr<XdgDialogV1> dialogs;
    std::unique_ptr<XdgToplevelTagV1> toplevel_tags;
    std::unique_ptr<XdgToplevelDragV1> toplevel_drags;  // moves windows, so before them and the seat
    Teardown carried_gone{[this] {  // the seat asks the drags what the pointer looks through; they go next
        if (seat)
            seat->pointer_passes_through(nullptr);
    }};
    // kiln.ini's [rule]s: after the workspaces they move windows between and the tags they match.
    std::unique_ptr<WindowRules> window_rules;
    std::unique_ptr<ExtImageCaptureSourceV1> capture_sources;
    std::unique_ptr<ExtImageCopyCaptureV1> image_copy_capture;
    std::unique_ptr<ExtForeignToplevelListV1> toplevel_list;
    std::unique_ptr<ForeignToplevels> foreign_toplevels;
    std::unique_ptr<RelativePointer> relative_pointer;
    // Made after the output list (make_after_outputs).
    std::unique_ptr<LayerShell> layer_shell;
    std::unique_ptr<ExtSessionLockV1> session_lock;
    std::unique_ptr<OutputManagement> output_management;
    std::unique_ptr<OutputPower> output_power;
    std::unique_ptr<PointerConstraints> pointer_constraints;
    std::unique_ptr<PointerGestures> pointer_gestures;
    std::unique_ptr<XdgShell> shell;
    // Xwayland's windows and its X server go before the clients: it is one of them and holds their surfaces. Server
    // resets it first (with the startup commands), before the clients go.
    std::unique_ptr<Xwayland> xwayland;

    // What the rooms are made with besides the Core.
    struct Context {
        RequestHooks& requests;            // decorations' rules register into it
        wlr_compositor* compositor;
        PrivilegedGlobals& privileged;     // each room's privileged globals are guarded as made
        SessionActions session;            // what the seat's bindings do to the session
        CaptureContext capture;            // what image capture draws with
    };
    // The shell, the seat and the rooms on them, Xwayland last (unless off or embedded).
    void make(const Core& core, Context context);
    // After the output list exists and hears of new outputs: layer-shell, the lock, pointer constraints and gestures,
    // output management (which shows outputs through `show_output`) and output power.
    void make_after_outputs(const Core& core, PrivilegedGlobals& privileged,
                            std::function<void(wlr_output*, std::optional<OutputPosition>)> show_output);
    // The bell.* keys.
    void report(Stats& stats) const;
};

}  // namespace kiln::compositor
