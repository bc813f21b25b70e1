// DesktopRooms: the windows, the seat and the protocols that act on them (shell, input, clipboard, idle, activation,
// taskbars, capture, Xwayland; then layer-shell, the lock, output management), made in Server::start()'s order into
// Server's members (their declaration order in server.hpp is the teardown order: the seat outlives them all).
#pragma once

#include "compositor/core.hpp"
#include "compositor/input/bindings.hpp"
#include "compositor/protocols/ext_image_copy_capture_v1.hpp"
#include "compositor/wlr.hpp"

#include <functional>
#include <memory>
#include <optional>

namespace kiln::compositor {

class Clipboard;
class CursorShapeV1;
class Decorations;
class Desktop;
class ExtDataControlV1;
class ExtForeignToplevelListV1;
class ExtIdleNotifyV1;
class ExtImageCaptureSourceV1;
class ExtSessionLockV1;
class ForeignToplevels;
class Idle;
class LayerShell;
class OutputManagement;
class OutputPower;
class PointerConstraints;
class PointerGestures;
class PrivilegedGlobals;
class RelativePointer;
class RequestHooks;
class Seat;
class TestInput;
class Toplevels;
class VirtualInput;
class WindowPolicy;
class XdgActivation;
class XdgDialogV1;
class XdgForeign;
class XdgShell;
class XdgSystemBellV1;
class XdgToplevelIconV1;
class Xwayland;

// References to Server's members, which own the rooms: a room not made (no X11, no test input) reads null.
struct DesktopRooms {
    std::unique_ptr<Toplevels>& toplevels;
    std::unique_ptr<XdgShell>& shell;
    std::unique_ptr<WindowPolicy>& window_policy;
    std::unique_ptr<Seat>& seat;
    std::unique_ptr<Clipboard>& clipboard;
    std::unique_ptr<ExtDataControlV1>& data_control;
    std::unique_ptr<CursorShapeV1>& cursor_shape;
    std::unique_ptr<VirtualInput>& virtual_input;
    std::unique_ptr<TestInput>& test_input;
    std::unique_ptr<Decorations>& decorations;
    std::unique_ptr<Idle>& idle;
    std::unique_ptr<ExtIdleNotifyV1>& ext_idle_notify;
    std::unique_ptr<XdgActivation>& xdg_activation;
    std::unique_ptr<ForeignToplevels>& foreign_toplevels;
    std::unique_ptr<ExtForeignToplevelListV1>& toplevel_list;
    std::unique_ptr<ExtImageCaptureSourceV1>& capture_sources;
    std::unique_ptr<ExtImageCopyCaptureV1>& image_copy_capture;
    std::unique_ptr<RelativePointer>& relative_pointer;
    std::unique_ptr<XdgForeign>& xdg_foreign;
    std::unique_ptr<XdgSystemBellV1>& system_bell;
    std::unique_ptr<XdgDialogV1>& dialogs;
    std::unique_ptr<XdgToplevelIconV1>& toplevel_icons;
    std::unique_ptr<Xwayland>& xwayland;
    // Made after the output list (make_after_outputs).
    std::unique_ptr<LayerShell>& layer_shell;
    std::unique_ptr<ExtSessionLockV1>& session_lock;
    std::unique_ptr<PointerConstraints>& pointer_constraints;
    std::unique_ptr<PointerGestures>& pointer_gestures;
    std::unique_ptr<OutputManagement>& output_management;
    std::unique_ptr<OutputPower>& output_power;

    // What the rooms are made with besides the Core and the desktop.
    struct Context {
        RequestHooks& requests;            // decorations' rules register into it
        wlr_compositor* compositor;
        PrivilegedGlobals& privileged;     // each room's privileged globals are guarded as made
        SessionActions session;            // what the seat's bindings do to the session
        CaptureContext capture;            // what image capture draws with
    };
    // The shell, the seat and the rooms on them, Xwayland last (unless off or embedded).
    void make(const Core& core, Desktop& desktop, Context context);
    // After the output list exists and hears of new outputs: layer-shell, the lock, pointer constraints and gestures,
    // output management (which shows outputs through `show_output`) and output power.
    void make_after_outputs(const Core& core, Desktop& desktop, PrivilegedGlobals& privileged,
                            std::function<void(wlr_output*, std::optional<OutputPosition>)> show_output);
    // The bell.* keys.
    void report(Stats& stats) const;
};

}  // namespace kiln::compositor
