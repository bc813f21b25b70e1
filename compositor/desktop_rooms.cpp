// DesktopRooms: the windows, the seat and the protocols that act on them, made in Server::start()'s order.
#include "compositor/desktop_rooms.hpp"

#include "compositor/input/text_input.hpp"
#include "compositor/log.hpp"
#include "compositor/protocols/security/privileged_globals.hpp"
#include "compositor/shell/title_text.hpp"
#include "compositor/shell/view.hpp"

#include <string>

namespace kiln::compositor {

void DesktopRooms::make(const Core& core, Context context)
{
    wl_display* display = core.display;
    const Options& options = core.options;
    PrivilegedGlobals& privileged = context.privileged;
    auto restricts = [&options](PrivilegedProtocol p) { return options.restricts(p); };

    // The shell first, with the seat as seat_focus answers it once made: the seat tells the window policy, which
    // acts on the windows' list, of presses. Decorations before the shell, whose windows ask them.
    decorations = std::make_unique<Decorations>(display, context.requests, options.decorations.mode);
    toplevels = std::make_unique<Toplevels>(core, desktop, seat_focus);
    workspaces = std::make_unique<Workspaces>(core, desktop, *toplevels);
    window_keys = std::make_unique<WindowKeys>(core, desktop, *toplevels, *workspaces);
    workspace_list = std::make_unique<ExtWorkspaceV1>(display, core.layout, *workspaces);
    privileged.guard(workspace_list->global(), "ext-workspace", false);
    shell = std::make_unique<XdgShell>(core, desktop, *toplevels, seat_focus, *decorations, display);
    window_policy = std::make_unique<WindowPolicy>(core, desktop, *toplevels);
    seat = std::make_unique<Seat>(core, *window_policy, std::move(context.session), core.backend, context.compositor);
    privileged.guard(seat->text_input().input_method_global(), "input-method",
                     restricts(PrivilegedProtocol::input_method));
    privileged.guard(seat->input_inhibit_global(), "input-inhibit", restricts(PrivilegedProtocol::input_inhibit));
    privileged.guard(seat->shortcuts_inhibit_global(), "keyboard-shortcuts-inhibit", false);
    clipboard = std::make_unique<Clipboard>(display, seat->wlr());
    data_control = std::make_unique<ExtDataControlV1>(display, seat->wlr());
    privileged.guard(clipboard->data_control_global(), "data-control", restricts(PrivilegedProtocol::data_control));
    privileged.guard(data_control->global(), "ext-data-control", restricts(PrivilegedProtocol::data_control));
    cursor_shape = std::make_unique<CursorShapeV1>(
        display, CursorShapeV1::Seat{[s = seat.get()](wl_client* c, uint32_t serial, auto names) {
                                         s->pointer_shape(c, serial, names);
                                     },
                                     [s = seat.get()](wl_client* c, uint32_t serial, auto names) {
                                         s->tool_shape(c, serial, names);
                                     }});
    virtual_input = std::make_unique<VirtualInput>(display, *seat);
    privileged.guard(virtual_input->keyboard_global(), "virtual-keyboard", false);
    privileged.guard(virtual_input->pointer_global(), "virtual-pointer", false);
    // Another seat to type from is as privileged as the virtual keyboards it is for.
    transient_seats = std::make_unique<ExtTransientSeatV1>(display);
    privileged.guard(transient_seats->global(), "transient-seat", false);
    virtual_input->on_other_seat([seats = transient_seats.get(), wlr = seat->wlr()](wlr_seat* on,
                                                                                 wlr_input_device* keyboard) {
        return seats->take_keyboard(on, keyboard, wlr->keyboard_state.focused_surface);
    });
    if (options.test_input) {
        // Any client could touch any window through it: tests only, never a real session.
        if (wlr_backend_is_headless(core.backend))
            test_input = std::make_unique<TestInput>(display, *seat, core.layout);
        else
            log::error("--test-input works on the headless backend only; not offered");
    }
    idle = std::make_unique<Idle>(display, seat->wlr());
    seat->on_activity([&idle = idle]() { idle->activity(); });
    ext_idle_notify = std::make_unique<ExtIdleNotifyV1>(display);
    idle->also_notify({[ext = ext_idle_notify.get()]() { ext->activity(); },
                       [ext = ext_idle_notify.get()](bool inhibited) { ext->set_inhibited(inhibited); }});
    xdg_activation = std::make_unique<XdgActivation>(
        display, desktop, [&workspaces = *workspaces](Toplevel& toplevel) { workspaces.request_attention(toplevel); });
    foreign_toplevels = std::make_unique<ForeignToplevels>(core, *toplevels, desktop, *seat);
    privileged.guard(foreign_toplevels->global(), "foreign-toplevel-management", false);
    toplevel_list = std::make_unique<ExtForeignToplevelListV1>(display, *toplevels);
    privileged.guard(toplevel_list->global(), "ext-foreign-toplevel-list",
                     restricts(PrivilegedProtocol::foreign_toplevel_list));
    // Screen and window capture: the sources name what is captured, so all three are guarded as one. Restricting
    // screencopy restricts them too: both read the screen, and a restriction must not be bypassed by a newer protocol.
    capture_sources = std::make_unique<ExtImageCaptureSourceV1>(display, *toplevels);
    image_copy_capture = std::make_unique<ExtImageCopyCaptureV1>(display, std::move(context.capture), *toplevels);
    for (const wl_global* global : {capture_sources->output_global(), capture_sources->toplevel_global(),
                                    image_copy_capture->global()})
        privileged.guard(global, "image-copy-capture", restricts(PrivilegedProtocol::image_copy_capture) ||
                                                           restricts(PrivilegedProtocol::screencopy));
    relative_pointer = std::make_unique<RelativePointer>(display, seat->wlr(), seat->cursor());
    // kiln's own xdg-foreign: wlroots 0.15's never frees an imported object's children (types/wlr_xdg_foreign_v*.c,
    // destroy_imported), a leak per import that LeakSanitizer reports.
    xdg_foreign = std::make_unique<XdgForeign>(display);
    system_bell = std::make_unique<XdgSystemBellV1>(display, options.bell_command);
    dialogs = std::make_unique<XdgDialogV1>(display, *toplevels);
    toplevel_tags = std::make_unique<XdgToplevelTagV1>(display);
    toplevel_drags = std::make_unique<XdgToplevelDragV1>(display, seat->wlr(), seat->cursor(), *toplevels);
    seat->pointer_passes_through([drags = toplevel_drags.get()]() { return drags->carried(); });
    window_rules = std::make_unique<WindowRules>(core, *toplevels, *workspaces,
                                                 [tags = toplevel_tags.get()](const Toplevel& toplevel) {
                                                     return tags->tag_of(toplevel.surface());
                                                 });
    toplevel_icons = std::make_unique<XdgToplevelIconV1>(
        display, icon_size(ServerDecoration::title_height - ServerDecoration::border),
        [](xdg::Surface* xdg, std::shared_ptr<const TitleIcon> icon) {
            if (View* view = View::from(xdg))
                view->set_icon(std::move(icon));
        });
    // Embedded, the host owns the process and its environment: no X display of kiln's.
    if (options.xwayland != XwaylandMode::off && !options.embedded) {
        std::string xwayland_error;
        xwayland = Xwayland::create(core, desktop, *seat, *toplevels, context.compositor,
                                    options.xwayland == XwaylandMode::lazy, xwayland_error);
        if (!xwayland)
            log::error("no X11 clients: %s", xwayland_error.c_str());
    }
}

void DesktopRooms::make_after_outputs(const Core& core, PrivilegedGlobals& privileged,
                                      std::function<void(wlr_output*, std::optional<OutputPosition>)> show_output)
{
    wl_display* display = core.display;
    auto restricts = [&options = core.options](PrivilegedProtocol p) { return options.restricts(p); };
    layer_shell = std::make_unique<LayerShell>(core, desktop, *seat, core.layers);
    session_lock = std::make_unique<ExtSessionLockV1>(core, desktop, *seat, core.layers);
    pointer_constraints = std::make_unique<PointerConstraints>(display, seat->wlr(), seat->cursor());
    seat->constrain_motion([&constraints = pointer_constraints](double& dx, double& dy) {
        if (constraints)
            constraints->constrain(dx, dy);
    });
    pointer_gestures = std::make_unique<PointerGestures>(display, seat->wlr(), seat->cursor());
    // After the output list's new_output listener: an output is set up there before output management describes it.
    output_management = std::make_unique<OutputManagement>(display, core.layout, std::move(show_output), core.backend);
    output_power = std::make_unique<OutputPower>(display);
    privileged.guard(output_management->global(), "output-management",
                     restricts(PrivilegedProtocol::output_management));
    privileged.guard(output_power->global(), "output-power", restricts(PrivilegedProtocol::output_power));
    privileged.guard(session_lock->global(), "session-lock", restricts(PrivilegedProtocol::session_lock));
    privileged.guard(layer_shell->global(), "layer-shell", false);
}

void DesktopRooms::report(Stats& stats) const
{
    if (system_bell) {
        stats.set("bell.rings", system_bell->rings());
        stats.set("bell.window_rings", system_bell->window_rings());
        stats.set("bell.commands_run", system_bell->commands_run());
    }
    if (transient_seats) {
        stats.set("transient_seats.alive", static_cast<uint64_t>(transient_seats->alive()));
        stats.set("transient_seats.made", transient_seats->made());
    }
    if (window_rules)
        stats.set("rules.applied", window_rules->applied());
    if (toplevel_drags)
        stats.set("toplevel_drags.started", toplevel_drags->drags_started());
}

}  // namespace kiln::compositor
