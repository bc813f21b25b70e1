// Server set-up and life cycle: the Core, the globals and rooms, outputs, reload, signals and the startup commands.
#include "compositor/server.hpp"

#include "compositor/bridge/render_bridge.hpp"
#include "compositor/core_objects.hpp"
#include "compositor/ipc/msg_server.hpp"
#include "compositor/ipc/sway_ipc_server.hpp"
#include "compositor/input/keymap.hpp"
#include "compositor/log.hpp"
#include "compositor/output/outputs.hpp"
#include "compositor/session/backend.hpp"
#include "compositor/session/session_activity.hpp"
#include "compositor/session/signal_handlers.hpp"
#include "compositor/session/spawn.hpp"
#include "compositor/session/startup_commands.hpp"
#include "compositor/session/wayland_socket.hpp"
#include "compositor/shell/xdg/xdg_surface.hpp"

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
    rooms_.xwayland.reset();
    render_.flush();  // the precompile list, while nothing else is going
    if (display_)
        wl_display_destroy_clients(display_);
}

bool Server::start(std::string& error)
{
    if (!display_) {
        error = "cannot create the Wayland display";
        return false;
    }
    guards_.make_client_limits(display_, requests_);  // before any client, Xwayland's and a host's included
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
    guards_.make_shm_validation(requests_);
    allocator_ = wlr_allocator_autocreate(backend_, renderer_);
    if (!allocator_) {
        error = "cannot create a buffer allocator for this backend and renderer";
        return false;
    }

    buffers_.make_dmabuf(display_, backend_, *bridge_,
                         [this]() { return outputs_ ? outputs_->primary_formats() : nullptr; });
    buffer_life_.make(display_, requests_, *bridge_);
    buffers_.make_sync(display_, backend_, *buffer_life_.gate, *buffer_life_.releases);
    CoreObjects core_objects{compositor_, layout_, scene_, layers_};
    if (!core_objects.make(display_, renderer_, error))
        return false;
    opaque_regions_ = std::make_unique<OpaqueRegionRepair>(compositor_);
    // A new factor (alpha-modifier, color-representation) changes the surface's pixels on screen without damage
    // from the client: outputs redraw whole.
    auto alpha_changed = [this](wlr_surface*) { damage_every_output(); };
    if (!commits_.make(display_, backend_, requests_, layout_, *buffer_life_.gate, alpha_changed, error) ||
        !privileged_setup_.make(display_, backend_, requests_, options_,
                                [this](pid_t pid) { return startup_ && startup_->started(pid); }, error))
        return false;
    // Where every output lies on the desktop: sandboxes do not see it (as on sway) unless kiln.ini grants it.
    privileged_setup_.privileged->guard(core_objects.xdg_output_global, "xdg-output", false);

    guards_.make(requests_);
    if (commits_.color_manager)
        commits_.color_manager->set_output_descriptions(
            [this](wlr_output* output) { return output_colours_.description(output); });

    rooms_.make(core_,
                {.requests = requests_,
                 .compositor = compositor_,
                 .privileged = *privileged_setup_.privileged,
                 .session = {[this](int status) { terminate(status); }, [this](int vt) { switch_vt(vt); }},
                 .capture = {scene_, layout_, bridge_, [this] { return background(); },
                             {commits_.surface_alpha(), commits_.surface_yuv(), commits_.surface_colour(),
                              [this](const wlr_output* output) { return output_colours_.description(output); }},
                             [this](const wlr_output* output, Region& out) {
                                 if (outputs_)
                                     outputs_->add_unshown_damage(output, out);
                             },
                             buffer_life_.fence_events.get(),
                             buffers_.linux_dmabuf ? buffers_.linux_dmabuf->main_device() : std::nullopt}});
    OutputHooks hooks{.session_active = [this] { return session_active(); },
                      .background = [this] { return background(); },
                      .full_redraw = [this] { return options_.full_redraw; },
                      .surface_alpha = commits_.surface_alpha(),
                      .surface_yuv = commits_.surface_yuv(),
                      .surface_colour = commits_.surface_colour(),
                      .output_colour = [this](const wlr_output* output) { return output_colours_.description(output); },
                      .debug_render_delay_ms = options_.debug_render_delay_ms};
    commits_.hook_outputs(hooks);
    hooks.frame_callbacks_held = [](wlr_surface* s) { return xdg::frame_callbacks_held(s); };
    frame_stats_.count(hooks, stats_, [this] { render_.first_frame(); }, [this] { return session_active(); });
    outputs_ = std::make_unique<Outputs>(
        core_, Outputs::Pipeline{
                   .bridge = *bridge_,
                   .fences = *buffer_life_.fence_events,
                   .releases = *buffer_life_.releases,
                   .allocator = allocator_,
                   .renderer = renderer_,
                   .presentation = &commits_.presentation->feedback(),
                   .hooks = std::move(hooks),
                   .offer_lease = [&lease = privileged_setup_.drm_lease](wlr_output* output) {
                       return lease && lease->offer(output);
                   },
                   .before_setup = [&layer_shell = rooms_.layer_shell](wlr_output* output) {
                       if (layer_shell)
                           layer_shell->watch_output(output);
                   },
               });
    new_output_.connect(&backend_->events.new_output,
                        [this](void* data) { outputs_->add(static_cast<wlr_output*>(data)); });
    rooms_.make_after_outputs(core_, *privileged_setup_.privileged,
                              [this](wlr_output* output, std::optional<OutputPosition> position) {
                                  outputs_->show(output, position);
                              });

    // Signals are caught before the socket exists: a client (or test) may send SIGTERM as soon as it can connect.
    wl_event_loop* loop = wl_display_get_event_loop(display_);
    // Embedded (compositor/embedded.hpp), the host owns the process: its signals, its environment, its clients.
    if (!options_.embedded)
        signals_ = std::make_unique<SignalHandlers>(loop, [this] { terminate(0); }, [this] { reload_from_file(); });
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

    log::notice("%s backend, %s EGL display (%s%s); clients connect with WAYLAND_DISPLAY=%s",
                backend_name(choice), bridge_->egl().profile().kind_name(), bridge_->egl().profile().driver_name.c_str(),
                bridge_->egl().started() ? "" : ", started when something first needs GL", socket_.c_str());
    if (rooms_.xwayland)
        log::notice("X11 clients connect with DISPLAY=%s (Xwayland starts %s)",
                    x_display().c_str(), options_.xwayland == XwaylandMode::lazy ? "on their first connection" : "now");

    // `kiln msg`'s socket, named after the Wayland one; children find it in KILN_SOCKET. Without it kiln runs on.
    std::string msg_error;
    msg_ = ipc::MsgServer::start(loop, socket_,
                                 {.toplevels = *rooms_.toplevels,
                                  .workspaces = *rooms_.workspaces,
                                  .layout = layout_,
                                  .seat = rooms_.seat->wlr(),
                                  .reload = [this] { return reload_from_file(); }},
                                 msg_error);
    if (msg_) {
        msg_->desktop().identify_with(
            [this](const Toplevel& toplevel) { return rooms_.toplevel_list->identifier_of(toplevel); });
        setenv("KILN_SOCKET", msg_->path().c_str(), 1);
    } else {
        log::error("no kiln msg: %s", msg_error.c_str());
        unsetenv("KILN_SOCKET");  // not an outer kiln's: this one's children would drive that one
    }
    // The same desktop in the i3/sway IPC wire format, for bars and scripts written for sway (SWAYSOCK, I3SOCK).
    std::string sway_error;
    if (msg_)
        sway_ipc_ = ipc::SwayIpcServer::start(loop, socket_,
                                              {.desktop = msg_->desktop(),
                                               .toplevels = *rooms_.toplevels,
                                               .workspaces = *rooms_.workspaces,
                                               .layout = layout_,
                                               .seat = rooms_.seat->wlr(),
                                               .reload = [this] { return reload_from_file(); }},
                                              sway_error);
    if (sway_ipc_) {
        setenv("SWAYSOCK", sway_ipc_->path().c_str(), 1);
        setenv("I3SOCK", sway_ipc_->path().c_str(), 1);
    } else {
        if (msg_)
            log::error("no sway IPC: %s", sway_error.c_str());
        unsetenv("SWAYSOCK");  // an outer sway's or kiln's: this one's children would drive that one
        unsetenv("I3SOCK");
    }

    startup_ = std::make_unique<StartupCommands>(loop, [this](int status) {
        if (options_.exit_with_startup)
            terminate(status);
    });
    // After the SIGCHLD handler exists: it reaps dbus-update-activation-environment too.
    set_session_environment(socket_, x_display());
    startup_->spawn_all(options_.startup);
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
    change_vt(backend_, options_.backend, vt);
}

void Server::damage_every_output()
{
    wlr_scene_output* scene_output;
    wl_list_for_each(scene_output, &scene_->outputs, link) wlr_output_damage_add_whole(scene_output->damage);
}

std::string Server::reload_from_file()
{
    if (!reread_)
        return "this kiln does not read kiln.ini";
    std::optional<Options> options = reread_();
    if (!options)
        return "kiln.ini not reloaded (kiln's log says why); the running settings stay";
    reload(*options);
    return {};
}

void Server::reload(const Options& options)
{
    options_.take_reloadable(options);
    rooms_.seat->reload();
    if (rooms_.decorations)
        rooms_.decorations->set_mode(options_.decorations.mode);
    outputs_->reload();
    if (commits_.color_manager)
        commits_.color_manager->outputs_changed();  // color-profile= may have changed: clients are told
    damage_every_output();  // the background may have changed where no window is: nothing else damages it
    log::notice("reloaded kiln.ini");
}

std::string Server::x_display() const
{
    return rooms_.xwayland ? rooms_.xwayland->display_name() : std::string();
}

void Server::report_stats(Stats& stats) const
{
    render_.report(stats);
    buffers_.report(stats, bridge_ != nullptr, buffer_life_.gate.get());
    buffer_life_.report(stats);
    commits_.report(stats);
    rooms_.report(stats);
    frame_stats_.report(stats, outputs_ ? outputs_->ring_slots() : 0);
    stats.set("frames.vblank_skipped", outputs_ ? outputs_->ticks_skipped() : 0);
    if (session_activity_)
        session_activity_->report(stats, frame_stats_.while_inactive());
}

}  // namespace kiln::compositor
