// Server set-up and life cycle: the Core, the globals and rooms, outputs, reload, signals and the startup commands.
#include "compositor/server.hpp"

#include "compositor/log.hpp"
#include "compositor/session/backend.hpp"
#include "compositor/protocols/linux_dmabuf_v1.hpp"
#include "compositor/protocols/linux_drm_syncobj_v1.hpp"
#include "compositor/output/sync/commit_gate.hpp"
#include "compositor/output/sync/implicit_fences.hpp"
#include "compositor/output/fence_events.hpp"
#include "compositor/output/output_settings.hpp"
#include "compositor/output/outputs.hpp"
#include "compositor/protocols/wayland_drm.hpp"
#include "compositor/protocols/privileged_globals.hpp"
#include "compositor/protocols/cursor_shape_v1.hpp"
#include "compositor/protocols/presentation_time.hpp"
#include "compositor/protocols/xdg_foreign.hpp"
#include "compositor/protocols/xdg_system_bell_v1.hpp"
#include "compositor/protocols/xdg_dialog_v1.hpp"
#include "compositor/protocols/xdg_toplevel_icon_v1.hpp"
#include "compositor/protocols/drm_lease_v1.hpp"
#include "compositor/protocols/alpha_modifier_v1.hpp"
#include "compositor/protocols/ext_foreign_toplevel_list_v1.hpp"
#include "compositor/protocols/ext_image_capture_source_v1.hpp"
#include "compositor/protocols/ext_image_copy_capture_v1.hpp"
#include "compositor/protocols/ext_data_control_v1.hpp"
#include "compositor/shell/title_text.hpp"
#include "compositor/shell/view.hpp"
#include "compositor/protocols/wl_shm_validation.hpp"
#include "compositor/bridge/render_bridge.hpp"
#include "compositor/bridge/render_start.hpp"
#include "compositor/input/seat.hpp"
#include "compositor/input/text_input.hpp"
#include "compositor/input/idle.hpp"
#include "compositor/protocols/ext_idle_notify_v1.hpp"
#include "compositor/protocols/security_context_v1.hpp"
#include "compositor/input/keymap.hpp"
#include "compositor/input/relative_pointer.hpp"
#include "compositor/input/test_input.hpp"
#include "compositor/input/virtual_input.hpp"
#include "compositor/protocols/clipboard.hpp"
#include "compositor/shell/decorations.hpp"
#include "compositor/shell/foreign_toplevels.hpp"
#include "compositor/shell/xdg_activation.hpp"
#include "compositor/session/spawn.hpp"
#include "compositor/session/startup_commands.hpp"
#include "compositor/session/wayland_socket.hpp"
#include "compositor/shell/defunct_role_guard.hpp"
#include "compositor/protocols/request_guard.hpp"
#include "compositor/protocols/request_hooks.hpp"
#include "compositor/protocols/surface_protocols.hpp"
#include "compositor/shell/toplevel.hpp"
#include "compositor/shell/toplevels.hpp"
#include "compositor/shell/window_policy.hpp"
#include "compositor/shell/layer_shell.hpp"
#include "compositor/shell/shell_desktop.hpp"
#include "compositor/protocols/ext_session_lock_v1.hpp"
#include "compositor/session/output_management.hpp"
#include "compositor/session/output_power.hpp"
#include "compositor/session/session_activity.hpp"
#include "compositor/session/signal_handlers.hpp"
#include "compositor/input/pointer_constraints.hpp"
#include "compositor/input/pointer_gestures.hpp"
#include "compositor/shell/xdg_shell.hpp"
#include "compositor/shell/xdg_surface_rules.hpp"
#include "compositor/shell/xwayland.hpp"

#include <csignal>
#include <sys/stat.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <algorithm>

namespace kiln::compositor {

Server::Server(const Options& options, Stats& stats)
    : options_(options),
      stats_(stats),
      display_(wl_display_create())
{
    stats_.add_provider([this](Stats& s) { report_stats(s); });
}

Server::~Server() = default;

void Server::destroy_backend()
{
    if (backend_)
        wlr_backend_destroy(backend_);  // destroys the wlr_outputs: each Output leaves the list
    if (outputs_)
        outputs_->clear();
}

void Server::destroy_clients()
{
    startup_.reset();
    xwayland_.reset();
    render_.flush();  // the precompile list, while nothing else is going
    if (display_)
        wl_display_destroy_clients(display_);
}

void Server::forget_seat_activity()
{
    if (seat_)
        seat_->on_activity(nullptr);
}

bool Server::start(std::string& error)
{
    if (!display_) {
        error = "cannot create the Wayland display";
        return false;
    }
    // Every keyboard needs a keymap (clients crash on keys without one): without xkeyboard-config there is none.
    if (std::string problem = default_keymap_problem(); !problem.empty()) {
        error = problem;
        return false;
    }
    const BackendChoice choice = resolve_backend(options_.backend);
    backend_ = create_backend(display_, choice, options_, error);
    if (!backend_)
        return false;
    backend_destroy_.connect(&backend_->events.destroy, [this](void*) {
        // The backend went away under us (nested parent closed): end cleanly.
        backend_ = nullptr;
        terminate(exit_status_);
    });
    // On a seat (DRM through libseat). wlroots itself gives up DRM master and the input devices when the VT goes,
    // takes master back when it returns and restores the outputs' modes (a flip whose frame event restarts drawing);
    // SessionActivity brings the input devices back.
    if (wlr_session* session = wlr_backend_get_session(backend_))
        session_activity_ = std::make_unique<SessionActivity>(display_, backend_, session);

    if (!render_.start(wlr_backend_get_drm_fd(backend_), error))
        return false;
    bridge_ = &render_.bridge();
    renderer_ = render_.wlr();
    // wl_shm only: linux-dmabuf and wl_drm are kiln's own (wlr_renderer_init_wl_display would add wlroots' ones).
    if (!wlr_renderer_init_wl_shm(renderer_, display_)) {
        error = "cannot create the wl_shm global";
        return false;
    }
    shm_validation_ = std::make_unique<WlShmValidation>(requests_);
    allocator_ = wlr_allocator_autocreate(backend_, renderer_);
    if (!allocator_) {
        error = "cannot create a buffer allocator for this backend and renderer";
        return false;
    }

    // kiln's own linux-dmabuf: clients' GPU buffers are sampled in place. Offered when the EGL display imports them.
    if (bridge_->profile().can_import_dmabuf()) {
        std::optional<dev_t> main_device = bridge_->profile().main_device;
        const int backend_fd = wlr_backend_get_drm_fd(backend_);
        struct stat st {};
        if (backend_fd >= 0 && fstat(backend_fd, &st) == 0)
            main_device = st.st_rdev;  // clients allocate where the outputs scan out
        linux_dmabuf_ = std::make_unique<LinuxDmabufV1>(display_, *bridge_, main_device, [this]() {
            return outputs_ ? outputs_->primary_formats() : nullptr;
        });
        // wl_drm names a device node; without one (headless, nested) it is not offered.
        std::string node = drm_node_for(backend_fd);
        if (node.empty())
            node = bridge_->profile().device_path;
        if (!node.empty())
            wayland_drm_ = std::make_unique<WaylandDrm>(display_, *bridge_, *linux_dmabuf_, node);
    }

    fence_events_ = std::make_unique<FenceEvents>(wl_display_get_event_loop(display_));
    commit_gate_ = std::make_unique<CommitGate>();
    commit_gate_->watch_commits(requests_);
    implicit_fences_ = std::make_unique<ImplicitFences>(*commit_gate_, wl_display_get_event_loop(display_));
    release_pacing_ = std::make_unique<CommitGate::Source>(*commit_gate_,
                                                           [this](wlr_surface* s) { bridge_->before_commit(s); });
    // Explicit sync where the device has timeline syncobjs (and clients can have dma-bufs to sync).
    if (linux_dmabuf_) {
        drm_syncobj_ = LinuxDrmSyncobjV1::create(display_, wlr_backend_get_drm_fd(backend_), *commit_gate_,
                                                 [](wlr_client_buffer* b) { return RenderBridge::buffer_release(b->texture); });
        if (drm_syncobj_)
            implicit_fences_->set_explicit_sync([this](wlr_surface* s) { return drm_syncobj_->is_explicit(s); });
    }
    // wlroots' *_create return null when memory or a global cannot be had: kiln says which and does not start.
    auto made = [&error](const void* object, const char* what) {
        if (!object)
            error = std::string("cannot create ") + what;
        return object != nullptr;
    };
    compositor_ = wlr_compositor_create(display_, renderer_);
    if (!made(compositor_, "wl_compositor") ||
        !made(wlr_data_device_manager_create(display_), "the data device manager"))
        return false;
    layout_ = wlr_output_layout_create();
    if (!made(layout_, "the output layout") ||
        !made(wlr_xdg_output_manager_v1_create(display_, layout_), "the xdg-output manager"))
        return false;
    scene_ = wlr_scene_create();
    if (!made(scene_, "the scene"))
        return false;
    if (!wlr_scene_attach_output_layout(scene_, layout_)) {
        error = "cannot attach the scene to the output layout";
        return false;
    }
    layers_ = SceneLayers::create(scene_);
    if (!layers_.complete()) {
        error = "cannot create the scene's layers";
        return false;
    }
    presentation_ = std::make_unique<PresentationTime>(display_, wlr_backend_get_presentation_clock(backend_),
                                                       *commit_gate_);
    if (!presentation_->ok()) {
        error = "cannot create wp_presentation";
        return false;
    }
    surface_protocols_ = std::make_unique<SurfaceProtocols>(display_, requests_, *commit_gate_, layout_);
    // A new factor changes the surface's pixels on screen without damage from the client: outputs redraw whole.
    alpha_modifier_ = std::make_unique<AlphaModifierV1>(display_, [this](wlr_surface*) {
        wlr_scene_output* scene_output;
        wl_list_for_each(scene_output, &scene_->outputs, link) wlr_output_damage_add_whole(scene_output->damage);
    });
    wlr_screencopy_manager_v1* screencopy = wlr_screencopy_manager_v1_create(display_);
    // Screen recorders (export-dmabuf) and night-light tools (gamma-control) work as on sway unless restricted.
    wlr_export_dmabuf_manager_v1* export_dmabuf = wlr_export_dmabuf_manager_v1_create(display_);
    wlr_gamma_control_manager_v1* gamma_control = wlr_gamma_control_manager_v1_create(display_);
    if (!made(screencopy, "the screencopy manager") || !made(export_dmabuf, "the export-dmabuf manager") ||
        !made(gamma_control, "the gamma-control manager"))
        return false;
    // Privileged globals: hidden from sandboxed clients (security contexts) always, from others under --restrict.
    privileged_ = std::make_unique<PrivilegedGlobals>(
        display_, [this](pid_t pid) { return startup_ && startup_->started(pid); }, options_.sandbox_grants);
    security_context_ = std::make_unique<SecurityContextV1>(display_);
    privileged_->set_sandbox_lookup([this](const wl_client* client) -> const std::string* {
        const SecurityContextV1::Metadata* context = security_context_->context_of(client);
        return context ? &context->app_id : nullptr;
    });
    auto restricts = [this](PrivilegedProtocol p) { return options_.restricts(p); };
    privileged_->guard(security_context_->global(), "security-context", false);
    privileged_->guard(screencopy->global, "screencopy", restricts(PrivilegedProtocol::screencopy));
    privileged_->guard(export_dmabuf->global, "export-dmabuf", restricts(PrivilegedProtocol::export_dmabuf));
    privileged_->guard(gamma_control->global, "gamma-control", restricts(PrivilegedProtocol::gamma_control));
    // A lease device per DRM device (none headless or nested): it hands out connectors, so sandboxes never see it.
    drm_lease_ = std::make_unique<DrmLeaseV1>(display_, backend_);
    for (const wl_global* global : drm_lease_->globals())
        privileged_->guard(global, "drm-lease", false);

    defunct_role_guard_ = std::make_unique<DefunctRoleGuard>(requests_);
    request_guard_ = std::make_unique<RequestGuard>(requests_);
    xdg_surface_rules_ = std::make_unique<XdgSurfaceRules>(requests_);

    // The shell first: the seat watches its surfaces for what changes under the pointer.
    toplevels_ = std::make_unique<Toplevels>(core_, desktop_);
    shell_ = std::make_unique<XdgShell>(core_, desktop_, *toplevels_, display_);
    window_policy_ = std::make_unique<WindowPolicy>(core_, desktop_, *toplevels_);
    seat_ = std::make_unique<Seat>(core_, desktop_, *window_policy_,
                                   SessionActions{[this](int status) { terminate(status); },
                                                  [this](int vt) { switch_vt(vt); }},
                                   backend_, compositor_, shell_->wm_base());
    toplevels_->attach(*seat_);
    privileged_->guard(seat_->text_input().input_method_global(), "input-method",
                       restricts(PrivilegedProtocol::input_method));
    privileged_->guard(seat_->input_inhibit_global(), "input-inhibit", restricts(PrivilegedProtocol::input_inhibit));
    clipboard_ = std::make_unique<Clipboard>(display_, seat_->wlr());
    data_control_ = std::make_unique<ExtDataControlV1>(display_, seat_->wlr());
    privileged_->guard(clipboard_->data_control_global(), "data-control", restricts(PrivilegedProtocol::data_control));
    privileged_->guard(data_control_->global(), "ext-data-control", restricts(PrivilegedProtocol::data_control));
    cursor_shape_ = std::make_unique<CursorShapeV1>(
        display_, CursorShapeV1::Seat{
                      [seat = seat_.get()](wl_client* c, uint32_t serial, auto names) { seat->pointer_shape(c, serial, names); },
                      [seat = seat_.get()](wl_client* c, uint32_t serial, auto names) { seat->tool_shape(c, serial, names); }});
    virtual_input_ = std::make_unique<VirtualInput>(display_, *seat_);
    privileged_->guard(virtual_input_->keyboard_global(), "virtual-keyboard", false);
    privileged_->guard(virtual_input_->pointer_global(), "virtual-pointer", false);
    if (options_.test_input) {
        // Any client could touch any window through it: tests only, never a real session.
        if (wlr_backend_is_headless(backend_))
            test_input_ = std::make_unique<TestInput>(display_, *seat_, layout_);
        else
            log::error("--test-input works on the headless backend only; not offered");
    }
    decorations_ = std::make_unique<Decorations>(display_, requests_, options_.decorations.mode);
    shell_->attach(*seat_, *decorations_);
    idle_ = std::make_unique<Idle>(display_, seat_->wlr());
    seat_->on_activity([this]() { idle_->activity(); });
    ext_idle_notify_ = std::make_unique<ExtIdleNotifyV1>(display_);
    idle_->also_notify(ext_idle_notify_.get());
    xdg_activation_ = std::make_unique<XdgActivation>(display_, desktop_);
    foreign_toplevels_ = std::make_unique<ForeignToplevels>(core_, *toplevels_, desktop_, *seat_);
    privileged_->guard(foreign_toplevels_->global(), "foreign-toplevel-management", false);
    toplevel_list_ = std::make_unique<ExtForeignToplevelListV1>(display_, *toplevels_);
    privileged_->guard(toplevel_list_->global(), "ext-foreign-toplevel-list",
                       restricts(PrivilegedProtocol::foreign_toplevel_list));
    // Screen and window capture: the sources name what is captured, so all three are guarded as one. Restricting
    // screencopy restricts them too: both read the screen, and a restriction must not be bypassed by a newer protocol.
    capture_sources_ = std::make_unique<ExtImageCaptureSourceV1>(display_, *toplevels_);
    image_copy_capture_ = std::make_unique<ExtImageCopyCaptureV1>(
        display_,
        CaptureContext{scene_, layout_, bridge_, [this] { return background(); },
                       [this](wlr_surface* s) { return alpha_modifier_ ? alpha_modifier_->alpha(s) : 1.0f; }},
        *toplevels_);
    for (const wl_global* global : {capture_sources_->output_global(), capture_sources_->toplevel_global(),
                                    image_copy_capture_->global()})
        privileged_->guard(global, "image-copy-capture",
                           restricts(PrivilegedProtocol::image_copy_capture) || restricts(PrivilegedProtocol::screencopy));
    relative_pointer_ = std::make_unique<RelativePointer>(display_, seat_->wlr(), seat_->cursor());
    // kiln's own xdg-foreign: wlroots 0.15's never frees an imported object's children (types/wlr_xdg_foreign_v*.c,
    // destroy_imported), a leak per import that LeakSanitizer reports.
    xdg_foreign_ = std::make_unique<XdgForeign>(display_);
    system_bell_ = std::make_unique<XdgSystemBellV1>(display_, options_.bell_command);
    dialogs_ = std::make_unique<XdgDialogV1>(display_, *toplevels_);
    toplevel_icons_ = std::make_unique<XdgToplevelIconV1>(
        display_, icon_size(ServerDecoration::title_height - ServerDecoration::border),
        [](xdg::Surface* xdg, std::shared_ptr<const TitleIcon> icon) {
            if (View* view = View::from(xdg))
                view->set_icon(std::move(icon));
        });
    // Embedded, the host owns the process and its environment: no X display of kiln's.
    if (options_.xwayland != XwaylandMode::off && !options_.embedded) {
        std::string xwayland_error;
        xwayland_ = Xwayland::create(core_, desktop_, *seat_, *toplevels_, compositor_,
                                     options_.xwayland == XwaylandMode::lazy, xwayland_error);
        if (!xwayland_)
            log::error("no X11 clients: %s", xwayland_error.c_str());
    }
    outputs_ = std::make_unique<Outputs>(
        core_, Outputs::Pipeline{
                   .bridge = *bridge_,
                   .fences = *fence_events_,
                   .allocator = allocator_,
                   .renderer = renderer_,
                   .presentation = &presentation_->feedback(),
                   .hooks = OutputHooks{
                       .session_active = [this] { return session_active(); },
                       .background = [this] { return background(); },
                       .full_redraw = [this] { return options_.full_redraw; },
                       .surface_alpha = [this](wlr_surface* s) { return alpha_modifier_ ? alpha_modifier_->alpha(s) : 1.0f; },
                       .debug_render_delay_ms = options_.debug_render_delay_ms,
                       .destroyed = {},
                       .latched =
                           [this](wlr_output*, std::span<const LatchedSurface> s) {
                               if (surface_protocols_)
                                   surface_protocols_->latched(s);
                           },
                       .composing =
                           [this](wlr_output* o, int64_t at) {
                               if (surface_protocols_)
                                   surface_protocols_->composing(o, at);
                           },
                       .presented =
                           [this](wlr_output* o, int64_t at, int64_t period) {
                               if (surface_protocols_)
                                   surface_protocols_->presented(o, at, period);
                           },
                       .frame_callbacks_held = [](wlr_surface* s) { return xdg::frame_callbacks_held(s); },
                       .frame_rendered =
                           [this](double cpu_ms, bool direct) {
                               render_.first_frame();
                               frame_stats_.rendered(cpu_ms, direct, session_active());
                               stats_.mark_once("startup.first_frame_ms");
                           },
                       .frame_culled = [this](size_t surfaces) { frame_stats_.culled(surfaces); },
                       .frame_fenced = [this](double ms) { frame_stats_.fenced(ms); },
                       .frame_rendered_ahead = [this] { frame_stats_.rendered_ahead(); },
                       .frame_composed_on_cpu = [this] { frame_stats_.composed_on_cpu(); },
                   },
                   .offer_lease = [this](wlr_output* output) { return drm_lease_ && drm_lease_->offer(output); },
                   .before_setup = [this](wlr_output* output) { if (layer_shell_) layer_shell_->watch_output(output); },
               });
    new_output_.connect(&backend_->events.new_output,
                        [this](void* data) { outputs_->add(static_cast<wlr_output*>(data)); });
    layer_shell_ = std::make_unique<LayerShell>(core_, desktop_, *seat_, layers_);
    session_lock_ = std::make_unique<ExtSessionLockV1>(core_, desktop_, *seat_, layers_);
    pointer_constraints_ = std::make_unique<PointerConstraints>(display_, seat_->wlr(), seat_->cursor());
    seat_->constrain_motion([this](double& dx, double& dy) {
        if (pointer_constraints_)
            pointer_constraints_->constrain(dx, dy);
    });
    pointer_gestures_ = std::make_unique<PointerGestures>(display_, seat_->wlr(), seat_->cursor());
    // After new_output_: an output is set up by add_output() before output management describes it.
    output_management_ = std::make_unique<OutputManagement>(
        core_, [this](wlr_output* output, std::optional<OutputPosition> position) { outputs_->show(output, position); },
        backend_);
    output_power_ = std::make_unique<OutputPower>(display_);
    privileged_->guard(output_management_->global(), "output-management",
                       restricts(PrivilegedProtocol::output_management));
    privileged_->guard(output_power_->global(), "output-power", restricts(PrivilegedProtocol::output_power));
    privileged_->guard(session_lock_->global(), "session-lock", restricts(PrivilegedProtocol::session_lock));

    // Signals are caught before the socket exists: a client (or test) may send SIGTERM as soon as it can connect.
    wl_event_loop* loop = wl_display_get_event_loop(display_);
    // Embedded (compositor/embedded.hpp), the host owns the process: its signals, its environment, its clients.
    if (!options_.embedded)
        signals_ = std::make_unique<SignalHandlers>(loop, [this] { terminate(0); }, [this] {
            if (!reread_)
                return;
            if (std::optional<Options> options = reread_())
                reload(*options);
        });
    // Embedded, no socket: the host adds clients by fd.
    if (!options_.embedded && !add_wayland_socket(display_, options_.socket, socket_, error))
        return false;

    if (!wlr_backend_start(backend_)) {
        error = std::string("cannot start the ") + backend_name(choice) + " backend";
        return false;
    }
    backend_started_ = true;
    if (options_.embedded)
        return true;

    log::error("%s backend, %s EGL display (%s%s); clients connect with WAYLAND_DISPLAY=%s",
               backend_name(choice), bridge_->profile().kind_name(), bridge_->profile().driver_name.c_str(),
               bridge_->egl_started() ? "" : ", started when something first needs GL", socket_.c_str());
    if (xwayland_)
        log::error("X11 clients connect with DISPLAY=%s (Xwayland starts %s)",
                   x_display().c_str(), options_.xwayland == XwaylandMode::lazy ? "on their first connection" : "now");

    startup_ = std::make_unique<StartupCommands>(loop, [this](int status) {
        if (options_.exit_with_startup)
            terminate(status);
    });
    // After the SIGCHLD handler exists: it reaps dbus-update-activation-environment too.
    set_session_environment(socket_, x_display());
    for (const auto& command : options_.startup) {
        std::string spawn_error;
        if (!startup_->spawn(command, spawn_error))
            log::error("cannot run '%s': %s", command.c_str(), spawn_error.c_str());
    }
    return true;
}

int Server::run()
{
    wl_display_run(display_);
    return exit_status_;
}

void Server::terminate(int status)
{
    exit_status_ = status;
    wl_display_terminate(display_);
}

renderer::Color Server::background() const
{
    const uint32_t rgb = options_.background.rgb;
    return {static_cast<float>((rgb >> 16) & 0xff) / 255.0f, static_cast<float>((rgb >> 8) & 0xff) / 255.0f,
            static_cast<float>(rgb & 0xff) / 255.0f, 1.0f};
}

bool Server::session_active() const
{
    return !session_activity_ || session_activity_->active();
}

void Server::switch_vt(int vt)
{
    wlr_session* session = backend_ ? wlr_backend_get_session(backend_) : nullptr;
    if (!session) {
        log::error("no VT to switch to: the %s backend has no session",
                   backend_name(resolve_backend(options_.backend)));
        return;
    }
    if (!wlr_session_change_vt(session, static_cast<unsigned>(vt)))
        log::error("cannot switch to VT %d", vt);
}

void Server::reload(const Options& options)
{
    options_.keyboard = options.keyboard;
    options_.bindings = options.bindings;
    options_.input = options.input;
    options_.inputs = options.inputs;
    options_.background = options.background;
    options_.outputs = options.outputs;
    options_.decorations = options.decorations;
    options_.bell_command = options.bell_command;
    seat_->reload();
    if (decorations_)
        decorations_->set_mode(options_.decorations.mode);
    outputs_->reload();
    log::error("reloaded kiln.ini");
}

std::string Server::x_display() const
{
    return xwayland_ ? xwayland_->display_name() : std::string();
}

void Server::report_stats(Stats& stats) const
{
    render_.report(stats);
    if (bridge_) {
        stats.set("buffers.dmabuf_buffers_created", linux_dmabuf_ ? linux_dmabuf_->buffers_created() : 0);
        stats.set("buffers.dmabuf_requests_refused", linux_dmabuf_ ? linux_dmabuf_->requests_refused() : 0);
        stats.set("protocols.linux_dmabuf_version", uint64_t{linux_dmabuf_ ? linux_dmabuf_->version() : 0});
    }
    if (surface_protocols_)
        surface_protocols_->report(stats);
    if (system_bell_) {
        stats.set("bell.rings", system_bell_->rings());
        stats.set("bell.window_rings", system_bell_->window_rings());
        stats.set("bell.commands_run", system_bell_->commands_run());
    }
    frame_stats_.report(stats, outputs_ ? outputs_->ring_slots() : 0);
    stats.set("frames.vblank_skipped", outputs_ ? outputs_->ticks_skipped() : 0);
    if (session_activity_) {
        stats.set("session.deactivations", session_activity_->deactivations());
        stats.set("session.activations", session_activity_->activations());
        stats.set("session.frames_while_inactive", frame_stats_.while_inactive());
        stats.set("session.input_reopens", session_activity_->input_reopens());
    }
    if (commit_gate_) {
        using C = CommitGate::Condition;
        stats.set("fences.acquire_waits", commit_gate_->waits(C::implicit_fence));
        stats.set("fences.acquire_waiting", uint64_t{commit_gate_->waiting(C::implicit_fence)});
        stats.set("fences.acquire_wait_ms_p50", percentile(commit_gate_->wait_ms(C::implicit_fence), 0.5));
        stats.set("fences.acquire_wait_ms_p99", percentile(commit_gate_->wait_ms(C::implicit_fence), 0.99));
    }
    stats.set("fences.syncobj_offered", uint64_t{drm_syncobj_ != nullptr});
    if (drm_syncobj_) {
        using C = CommitGate::Condition;
        stats.set("fences.syncobj_acquire_waits", commit_gate_->waits(C::syncobj_acquire));
        stats.set("fences.syncobj_acquire_wait_ms_p50", percentile(commit_gate_->wait_ms(C::syncobj_acquire), 0.5));
        stats.set("fences.syncobj_acquire_wait_ms_p99", percentile(commit_gate_->wait_ms(C::syncobj_acquire), 0.99));
        stats.set("fences.syncobj_release_points_signalled", drm_syncobj_->release_points_signalled());
    }
}

}  // namespace kiln::compositor
