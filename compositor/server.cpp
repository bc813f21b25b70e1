// Server set-up and life cycle: the Core, the globals and rooms, outputs, reload, signals and the startup commands.
#include "compositor/server.hpp"

#include "compositor/session/backend.hpp"
#include "compositor/protocols/linux_dmabuf_v1.hpp"
#include "compositor/protocols/linux_drm_syncobj_v1.hpp"
#include "compositor/output/sync/commit_gate.hpp"
#include "compositor/output/sync/implicit_fences.hpp"
#include "compositor/output/fence_events.hpp"
#include "compositor/output/output.hpp"
#include "compositor/output/output_settings.hpp"
#include "compositor/protocols/wayland_drm.hpp"
#include "compositor/protocols/privileged_globals.hpp"
#include "compositor/protocols/commit_timing_v1.hpp"
#include "compositor/protocols/cursor_shape_v1.hpp"
#include "compositor/protocols/fifo_v1.hpp"
#include "compositor/protocols/presentation_time.hpp"
#include "compositor/protocols/fractional_scale_v1.hpp"
#include "compositor/protocols/single_pixel_buffer_v1.hpp"
#include "compositor/protocols/viewporter.hpp"
#include "compositor/protocols/xdg_foreign.hpp"
#include "compositor/protocols/xdg_system_bell_v1.hpp"
#include "compositor/protocols/xdg_dialog_v1.hpp"
#include "compositor/protocols/xdg_toplevel_icon_v1.hpp"
#include "compositor/protocols/content_type_v1.hpp"
#include "compositor/protocols/tearing_control_v1.hpp"
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
#include "renderer/cache/disk_tier.hpp"
#include "renderer/cache/display_profile_file.hpp"
#include "renderer/cache/driver_fingerprint.hpp"
#include "renderer/cache/driver_shader_cache.hpp"
#include "renderer/cache/tiered_program_cache.hpp"
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
#include "compositor/shell/toplevel.hpp"
#include "compositor/shell/toplevels.hpp"
#include "compositor/shell/window_policy.hpp"
#include "compositor/shell/layer_shell.hpp"
#include "compositor/shell/shell_desktop.hpp"
#include "compositor/protocols/ext_session_lock_v1.hpp"
#include "compositor/session/output_management.hpp"
#include "compositor/session/output_power.hpp"
#include "compositor/session/session_activity.hpp"
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

namespace {

// Whether kiln can write in `root` (or make it: the nearest folder that exists is writable). A cache folder it cannot
// use is reported once, by the program cache; the display profile then goes uncached without lines of its own.
bool cache_folder_writable(const std::filesystem::path& root)
{
    std::error_code ec;
    std::filesystem::path folder = root;
    while (!folder.empty() && !std::filesystem::exists(folder, ec) && folder.has_parent_path() &&
           folder.parent_path() != folder)
        folder = folder.parent_path();
    return std::filesystem::is_directory(folder, ec) && access(folder.c_str(), W_OK | X_OK) == 0;
}

cache::CacheOptions cache_options(const Options& options, std::function<void(const std::string&)> log = {})
{
    cache::CacheOptions out;
    out.log = std::move(log);
    out.user_dir = options.cache_dir.empty() ? cache::default_user_cache_dir() : std::filesystem::path(options.cache_dir);
    out.system_dir = options.system_cache_dir;
    return out;
}

}  // namespace

Server::Server(const Options& options, Stats& stats)
    : options_(options),
      stats_(stats),
      display_(wl_display_create()),
      programs_(std::make_unique<cache::TieredProgramCache>(
          cache_options(options, [this](const std::string& message) { cache_log(message); })))
{
    stats_.add_provider([this](Stats& s) { report_stats(s); });
}

Server::~Server()
{
    // Clients and their surfaces go first, then the objects wlroots hands them, then the backend.
    startup_.reset();
    // Xwayland's windows and its X server go before the clients: it is one of them and holds their surfaces.
    xwayland_.reset();
    if (background_prepare_)
        wl_event_source_remove(background_prepare_);
    programs_->flush();
    if (display_)
        wl_display_destroy_clients(display_);
    shell_.reset();
    pointer_gestures_.reset();
    pointer_constraints_.reset();
    output_power_.reset();
    output_management_.reset();
    session_lock_.reset();
    layer_shell_.reset();
    relative_pointer_.reset();
    foreign_toplevels_.reset();
    toplevel_list_.reset();
    image_copy_capture_.reset();
    capture_sources_.reset();
    dialogs_.reset();
    toplevel_icons_.reset();
    content_type_.reset();
    tearing_control_.reset();
    toplevels_.reset();  // after the xdg and X11 windows it lists and the taskbar handles that follow them
    xdg_activation_.reset();
    xdg_foreign_.reset();
    if (seat_)
        seat_->on_activity(nullptr);
    idle_.reset();
    ext_idle_notify_.reset();  // after Idle, which tells it the activity and inhibitors
    decorations_.reset();
    test_input_.reset();
    virtual_input_.reset();
    data_control_.reset();
    clipboard_.reset();
    implicit_fences_.reset();
    drm_syncobj_.reset();
    wayland_drm_.reset();
    linux_dmabuf_.reset();
    defunct_role_guard_.reset();
    shm_validation_.reset();
    privileged_.reset();
    security_context_.reset();  // after the global filter, which asks it
    single_pixel_buffer_.reset();
    fractional_scale_.reset();  // listens to the layout
    fifo_.reset();
    commit_timing_.reset();     // likewise
    presentation_.reset();
    commit_gate_.reset();       // after every source that holds commits in it
    cursor_shape_.reset();
    viewporter_.reset();
    system_bell_.reset();
    drm_lease_.reset();
    seat_.reset();
    if (sigterm_)
        wl_event_source_remove(sigterm_);
    if (sigint_)
        wl_event_source_remove(sigint_);
    if (sighup_)
        wl_event_source_remove(sighup_);
    new_output_.disconnect();
    backend_destroy_.disconnect();
    if (backend_)
        wlr_backend_destroy(backend_);
    outputs_.clear();
    alpha_modifier_.reset();  // after the outputs whose frames ask it
    fence_events_.reset();  // after the outputs whose frames it watched
    // The scene's layout attachment listens to the layout, so the layout goes before the scene.
    if (layout_)
        wlr_output_layout_destroy(layout_);
    if (scene_)
        wlr_scene_node_destroy(&scene_->node);
    if (allocator_)
        wlr_allocator_destroy(allocator_);
    if (renderer_)
        wlr_renderer_destroy(renderer_);
    request_guard_.reset();
    xdg_surface_rules_.reset();
    requests_.reset();  // after every hook in it; its protocol logger lives in the display's list
    if (display_)
        wl_display_destroy(display_);
}

void Server::cache_log(const std::string& message) const
{
    // The disk tier says once that it cannot write its folder (a full disk); the precompile list failing to save
    // there has the same cause, so it goes to the debug log instead of being a second warning.
    const cache::DiskTier* tier = programs_ ? programs_->user_tier() : nullptr;
    if (tier && !tier->writable() && message.starts_with("program cache: cannot save ")) {
        wlr_log(WLR_DEBUG, "kiln: %s", message.c_str());
        return;
    }
    std::fprintf(stderr, "kiln: %s\n", message.c_str());
}

bool Server::create_renderer(std::string& error)
{
    const int drm_fd = wlr_backend_get_drm_fd(backend_);
    // The display's profile (kind, driver, dma-buf formats, software or not) from the cache, keyed by what decides
    // it, so a warm start knows it without opening EGL.
    const std::filesystem::path cache_root = cache_options(options_).user_dir;
    std::optional<renderer::DisplayProfile> cached;
    cache::Sha1 key{};
    std::error_code ec;
    const bool cache_usable = !cache_root.empty() && cache_folder_writable(cache_root);
    const bool cache_readable = !cache_root.empty() && (cache_usable || std::filesystem::is_directory(cache_root, ec));
    if (cache_readable) {
        const auto start = Stats::Clock::now();
        key = cache::driver_fingerprint_key(cache::driver_fingerprint(drm_fd));
        std::string why;
        cached = cache::load_display_profile(cache_root, key, why);
        if (!why.empty())
            std::fprintf(stderr, "kiln: cached display profile not used: %s\n", why.c_str());
        stats_.set("startup.display_profile_ms", stats_.ms_since(start));
    }
    // EGL waits where frames are composed on the CPU (GL is software) and no program must be ready before the first
    // frame (--precompile fast asks for exactly that, so it keeps EGL at start).
    const bool lazy = cached && cached->software && options_.composition == CompositionMode::automatic &&
                      options_.precompile != PrecompileMode::fast;
    std::string render_error;
    bridge_ = RenderBridge::create(drm_fd, *programs_, lazy ? cached : std::nullopt, render_error);
    if (!bridge_) {
        error = "cannot create kiln's renderer: " + render_error;
        return false;
    }
    renderer_ = bridge_->wlr();
    display_profile_source_ = cached ? "cached" : !cache_usable ? "probed" : "probed, stored";
    auto remember = [this, cache_root, cache_usable, key, cached] {
        if (!cache_usable || (cached && cached->same_as(bridge_->profile())))
            return;
        std::string why;
        if (!cache::store_display_profile(cache_root, key, bridge_->profile(), why)) {
            std::fprintf(stderr, "kiln: cannot cache the display profile: %s\n", why.c_str());
            display_profile_source_ = "probed";
        }
    };
    if (bridge_->egl_started())
        remember();
    bridge_->on_egl_started([this, remember] {
        stats_.set("renderer.egl_started_ms", stats_.ms_since_start(bridge_->egl_ready_at()));
        remember();
        if (frames_rendered_ > 0)
            start_background_prepare();
    });
    return true;
}

bool Server::start(std::string& error)
{
    if (!display_) {
        error = "cannot create the Wayland display";
        return false;
    }
    // Before anything that registers into it: the one protocol logger, whose table runs in HookOrder.
    requests_ = std::make_unique<RequestHooks>(display_);
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

    if (!create_renderer(error))
        return false;
    const bool cpu_composition = bridge_->enable_cpu_composition(options_.composition == CompositionMode::automatic);
    stats_.set("renderer.composition", std::string(cpu_composition ? "cpu where possible, else gl" : "gl"));
    precompile_ = options_.precompile;
    if (precompile_ == PrecompileMode::automatic)
        precompile_ = cpu_composition ? PrecompileMode::background : PrecompileMode::fast;
    if (bridge_->egl_started()) {
        stats_.set("startup.egl_init_ms", stats_.ms_since_start(bridge_->egl_ready_at()));
        stats_.set("startup.format_probe_ms", bridge_->display().format_probe_ms());
        const auto& egl = bridge_->display().open_times();
        stats_.set("startup.egl.client_ms", egl.client_ms);
        stats_.set("startup.egl.devices_ms", egl.devices_ms);
        stats_.set("startup.egl.initialize_ms", egl.initialize_ms);
        stats_.set("startup.egl.context_ms", egl.context_ms);
        stats_.set("startup.egl.identify_ms", egl.identify_ms);
    }
    if (precompile_ == PrecompileMode::fast) {
        // Before the first frame: every program the last runs used (all of them on a first run), linked and drawn
        // once, so no frame pays for a compile.
        const auto start = Stats::Clock::now();
        prepare_programs(false);
        stats_.set("startup.programs_prepare_ms", stats_.ms_since(start));
        // Split so kiln's own program work (what its cache saves) is told apart from the driver's first-draw JIT.
        const auto& times = bridge_->renderer().prepare_times();
        stats_.set("startup.programs_fetch_ms", times.fetch_ms);
        stats_.set("startup.programs_first_draw_ms", times.first_draw_ms);
    }
    if (precompile_ != PrecompileMode::background)
        stats_.mark_once("startup.programs_ready_ms");
    // wl_shm only: linux-dmabuf and wl_drm are kiln's own (wlr_renderer_init_wl_display would add wlroots' ones).
    if (!wlr_renderer_init_wl_shm(renderer_, display_)) {
        error = "cannot create the wl_shm global";
        return false;
    }
    shm_validation_ = std::make_unique<WlShmValidation>(*requests_);
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
            return outputs_.empty() ? nullptr
                                    : wlr_output_get_primary_formats(outputs_.front()->wlr(), WLR_BUFFER_CAP_DMABUF);
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
    commit_gate_->watch_commits(*requests_);
    implicit_fences_ = std::make_unique<ImplicitFences>(*commit_gate_, wl_display_get_event_loop(display_));
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
    viewporter_ = std::make_unique<Viewporter>(display_, *requests_);
    single_pixel_buffer_ = std::make_unique<SinglePixelBufferV1>(display_);
    fractional_scale_ = std::make_unique<FractionalScaleV1>(display_, layout_);
    // FIFO presentation and timed commits (Mesa's Vulkan WSI): updates held back through wlroots' cached state.
    fifo_ = std::make_unique<FifoV1>(display_, *commit_gate_);
    commit_timing_ = std::make_unique<CommitTimingV1>(display_, *commit_gate_);
    content_type_ = std::make_unique<ContentTypeV1>(display_);
    tearing_control_ = std::make_unique<TearingControlV1>(display_);  // a hint kept; kiln keeps vsync
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

    defunct_role_guard_ = std::make_unique<DefunctRoleGuard>(*requests_);
    request_guard_ = std::make_unique<RequestGuard>(*requests_);
    xdg_surface_rules_ = std::make_unique<XdgSurfaceRules>(*requests_);

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
            std::fprintf(stderr, "kiln: --test-input works on the headless backend only; not offered\n");
    }
    decorations_ = std::make_unique<Decorations>(display_, *requests_, options_.decorations.mode);
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
            std::fprintf(stderr, "kiln: no X11 clients: %s\n", xwayland_error.c_str());
    }
    new_output_.connect(&backend_->events.new_output,
                        [this](void* data) { add_output(static_cast<wlr_output*>(data)); });
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
        core_, [this](wlr_output* output, std::optional<OutputPosition> position) { show_output(output, position); },
        backend_);
    output_power_ = std::make_unique<OutputPower>(display_);
    privileged_->guard(output_management_->global(), "output-management",
                       restricts(PrivilegedProtocol::output_management));
    privileged_->guard(output_power_->global(), "output-power", restricts(PrivilegedProtocol::output_power));
    privileged_->guard(session_lock_->global(), "session-lock", restricts(PrivilegedProtocol::session_lock));

    // Signals are caught before the socket exists: a client (or test) may send SIGTERM as soon as it can connect.
    wl_event_loop* loop = wl_display_get_event_loop(display_);
    auto on_signal = [](int, void* data) noexcept -> int {
        static_cast<Server*>(data)->terminate(0);
        return 0;
    };
    // Embedded (compositor/embedded.hpp), the host owns the process: its signals, its environment, its clients.
    if (!options_.embedded) {
        sigterm_ = wl_event_loop_add_signal(loop, SIGTERM, on_signal, this);
        sigint_ = wl_event_loop_add_signal(loop, SIGINT, on_signal, this);
        sighup_ = wl_event_loop_add_signal(
            loop, SIGHUP,
            [](int, void* data) noexcept -> int {
                auto* self = static_cast<Server*>(data);
                if (!self->reread_)
                    return 0;
                if (std::optional<Options> options = self->reread_())
                    self->reload(*options);
                return 0;
            },
            this);
    }

    const char* name = nullptr;
    if (options_.embedded) {
        name = "";  // no socket: the host adds clients by fd
    } else if (!options_.socket.empty()) {
        if (wl_display_add_socket(display_, options_.socket.c_str()) != 0) {
            error = socket_problem(options_.socket);
            return false;
        }
        name = options_.socket.c_str();
    } else {
        name = wl_display_add_socket_auto(display_);
        if (!name) {
            error = socket_problem("");
            return false;
        }
    }
    socket_ = name;

    if (!wlr_backend_start(backend_)) {
        error = std::string("cannot start the ") + backend_name(choice) + " backend";
        return false;
    }
    backend_started_ = true;
    if (options_.embedded)
        return true;

    std::fprintf(stderr, "kiln: %s backend, %s EGL display (%s%s); clients connect with WAYLAND_DISPLAY=%s\n",
                 backend_name(choice), bridge_->profile().kind_name(), bridge_->profile().driver_name.c_str(),
                 bridge_->egl_started() ? "" : ", started when something first needs GL", socket_.c_str());
    if (xwayland_)
        std::fprintf(stderr, "kiln: X11 clients connect with DISPLAY=%s (Xwayland starts %s)\n",
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
            std::fprintf(stderr, "kiln: cannot run '%s': %s\n", command.c_str(), spawn_error.c_str());
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

void Server::add_output(wlr_output* output)
{
    // A headset (the kernel's non-desktop property) or a connector kiln.ini keeps for lease: offered, never drawn.
    const OutputSettings* configured = options_.output(output->name);
    if (output->non_desktop || (configured && configured->lease.value_or(false))) {
        if (drm_lease_ && drm_lease_->offer(output)) {
            output->non_desktop = true;  // what wlroots says of a headset: output management leaves it out too
            std::fprintf(stderr, "kiln: output %s is offered for lease (drm-lease-v1), not used for the desktop\n",
                         output->name);
            return;
        }
        if (output->non_desktop)
            return;  // no lease device to offer it on: left dark, as it is no desktop screen
        std::fprintf(stderr, "kiln: output %s: lease=true needs the DRM backend; used for the desktop\n", output->name);
    }
    // First of kiln's listeners to its destroy signal, ahead of the scene's damage tracking.
    if (layer_shell_)
        layer_shell_->watch_output(output);
    if (!wlr_output_init_render(output, allocator_, renderer_)) {
        std::fprintf(stderr, "kiln: cannot render to output %s\n", output->name);
        return;
    }
    const OutputSettings* settings = options_.output(output->name);
    OutputSettings without_mode;
    if (settings && settings->mode && wlr_output_is_headless(output) && options_.headless_size_given) {
        // Flags win over kiln.ini: --headless-size made this output's size.
        without_mode = *settings;
        without_mode.mode.reset();
        settings = &without_mode;
    }
    if (!commit_output_settings(output, settings)) {
        std::fprintf(stderr, "kiln: cannot enable output %s\n", output->name);
        return;
    }
    if (settings && settings->enabled == false)
        return;  // [output NAME] enabled=false: off, outside the layout, never drawn
    show_output(output, settings ? settings->position : std::nullopt);
}

void Server::show_output(wlr_output* output, std::optional<OutputPosition> position)
{
    if (position)
        wlr_output_layout_add(layout_, output, position->x, position->y);
    else
        wlr_output_layout_add_auto(layout_, output);
    for (const auto& o : outputs_)
        if (o->wlr() == output)
            return;
    wlr_scene_output* scene_output = wlr_scene_get_scene_output(scene_, output);
    if (!scene_output)
        scene_output = wlr_scene_output_create(scene_, output);
    OutputHooks hooks{
        .session_active = [this] { return session_active(); },
        .background = [this] { return background(); },
        .full_redraw = [this] { return options_.full_redraw; },
        .surface_alpha = [this](wlr_surface* s) { return alpha_modifier_ ? alpha_modifier_->alpha(s) : 1.0f; },
        .debug_render_delay_ms = options_.debug_render_delay_ms,
        .destroyed = [this](Output* o) { remove_output(o); },
        .latched = [this](wlr_output*, std::span<const LatchedSurface> s) { if (fifo_) fifo_->latched(s); },
        .composing = [this](wlr_output* o, int64_t at) { if (commit_timing_) commit_timing_->composing(o, at); },
        .presented = [this](wlr_output* o, int64_t at, int64_t period) {
            if (commit_timing_) commit_timing_->presented(o, at, period);
        },
        .frame_callbacks_held = [](wlr_surface* s) { return xdg::frame_callbacks_held(s); },
        .frame_rendered = [this](double cpu_ms, bool direct) { frame_rendered(cpu_ms, direct); },
        .frame_culled = [this](size_t surfaces) { frame_culled(surfaces); },
        .frame_fenced = [this](double ms) { frame_fenced(ms); },
        .frame_rendered_ahead = [this] { frame_rendered_ahead(); },
        .frame_composed_on_cpu = [this] { frame_composed_on_cpu(); },
    };
    outputs_.push_back(std::make_unique<Output>(std::move(hooks), *bridge_, *fence_events_, allocator_, output,
                                                scene_output, &presentation_->feedback()));
}

renderer::Color Server::background() const
{
    const uint32_t rgb = options_.background.rgb;
    return {static_cast<float>((rgb >> 16) & 0xff) / 255.0f, static_cast<float>((rgb >> 8) & 0xff) / 255.0f,
            static_cast<float>(rgb & 0xff) / 255.0f, 1.0f};
}

void Server::remove_output(Output* output)
{
    outputs_.remove_if([output](const auto& o) { return o.get() == output; });
}

bool Server::session_active() const
{
    return !session_activity_ || session_activity_->active();
}

void Server::switch_vt(int vt)
{
    wlr_session* session = backend_ ? wlr_backend_get_session(backend_) : nullptr;
    if (!session) {
        std::fprintf(stderr, "kiln: no VT to switch to: the %s backend has no session\n",
                     backend_name(resolve_backend(options_.backend)));
        return;
    }
    if (!wlr_session_change_vt(session, static_cast<unsigned>(vt)))
        std::fprintf(stderr, "kiln: cannot switch to VT %d\n", vt);
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
    for (const auto& output : outputs_) {
        wlr_output* wlr = output->wlr();
        OutputSettings settings;
        if (const OutputSettings* configured = options_.output(wlr->name))
            settings = *configured;
        if (settings.enabled == false) {
            std::fprintf(stderr, "kiln: output %s: enabled=false takes effect when kiln starts again\n", wlr->name);
            settings.enabled.reset();
        }
        if (wlr_output_is_headless(wlr) && options_.headless_size_given)
            settings.mode.reset();  // flags win: --headless-size made this output's size
        if (!settings.mode && wl_list_empty(&wlr->modes))
            settings.mode = OutputMode{wlr->width, wlr->height, wlr->refresh};  // a nested window keeps its size
        // Keys left out go back to what kiln starts with.
        settings.scale = settings.scale.value_or(1);
        settings.transform = settings.transform.value_or(OutputTransform::normal);
        if (!commit_output_settings(wlr, &settings))
            std::fprintf(stderr, "kiln: output %s refused the reloaded settings\n", wlr->name);
        if (settings.position)
            wlr_output_layout_move(layout_, wlr, settings.position->x, settings.position->y);
        wlr_output_schedule_frame(wlr);
    }
    std::fprintf(stderr, "kiln: reloaded kiln.ini\n");
}

std::string Server::x_display() const
{
    return xwayland_ ? xwayland_->display_name() : std::string();
}

bool Server::prepare_programs(bool one_only)
{
    auto& renderer = bridge_->renderer();
    for (renderer::ShaderVariant variant : renderer.variants()) {
        if (renderer.prepared(variant) || prepare_failed_.contains(variant))
            continue;
        const auto& source = renderer::shader_source(variant);
        if (programs_->has_precompile_list() && !programs_->listed(source))
            continue;  // never used here: it compiles on first use, like a new program
        std::string error;
        if (!renderer.prepare(variant, error)) {
            prepare_failed_.insert(variant);
            std::fprintf(stderr, "kiln: cannot prepare program %s: %s\n", source.name.c_str(), error.c_str());
        }
        if (one_only)
            return true;
    }
    return false;
}

void Server::start_background_prepare()
{
    if (background_started_ || precompile_ != PrecompileMode::background || !bridge_->egl_started())
        return;
    background_started_ = true;
    // After the first frame (and once EGL is up), one program per idle moment of the event loop.
    auto step = [](void* data) noexcept {
        auto* self = static_cast<Server*>(data);
        self->background_prepare_ = nullptr;
        if (self->prepare_programs(true))
            self->background_prepare_ =
                wl_event_loop_add_idle(wl_display_get_event_loop(self->display_), self->background_step_, self);
        else
            self->stats_.mark_once("startup.programs_ready_ms");
    };
    background_step_ = step;
    background_prepare_ = wl_event_loop_add_idle(wl_display_get_event_loop(display_), step, this);
}

void Server::frame_rendered(double cpu_ms, bool direct_scanout)
{
    // Without EGL, background precompiling waits for EGL to start (on_egl_started).
    if (frames_rendered_ == 0)
        start_background_prepare();
    ++frames_rendered_;
    if (direct_scanout)
        ++frames_direct_scanout_;
    if (frame_cpu_ms_.size() < 100000)
        frame_cpu_ms_.push_back(cpu_ms);
    stats_.mark_once("startup.first_frame_ms");
    if (!session_active())
        ++frames_while_inactive_;
}

void Server::frame_fenced(double ms)
{
    if (fence_ms_.size() < 100000)
        fence_ms_.push_back(ms);
}

namespace {

double percentile(std::vector<double> samples, double p)
{
    if (samples.empty())
        return 0;
    std::sort(samples.begin(), samples.end());
    const size_t index = static_cast<size_t>(p * static_cast<double>(samples.size() - 1) + 0.5);
    return samples[std::min(index, samples.size() - 1)];
}

}  // namespace

void Server::report_stats(Stats& stats) const
{
    programs_->stats().report([&](const std::string& key, uint64_t n) { stats.set("programs." + key, n); },
                              [&](const std::string& key, double v) { stats.set("programs." + key, v); });
    stats.set("programs.disk_load_ms", programs_->disk_load_ms());
    stats.set("programs.disk_entries_discarded", programs_->disk_discarded());
    stats.set("programs.blob_cache_installed", uint64_t{programs_->blob_cache_installed()});
    stats.set("programs.memory_bytes", uint64_t{programs_->memory().bytes()});
    if (auto* user = programs_->user_tier()) {
        stats.set("programs.disk_bytes_before_gc", user->stats().bytes_before_gc.load());
        stats.set("programs.disk_bytes_after_gc", user->stats().bytes_after_gc.load());
        stats.set("programs.disk_entries", user->stats().entries.load());
    }
    // The drivers' own shader caches kiln placed in its directory (kiln-cache stats counts them the same way).
    for (const auto& usage : cache::driver_cache_usage(cache_options(options_).user_dir)) {
        stats.set("driver_caches." + usage.subdir + ".files", usage.files);
        stats.set("driver_caches." + usage.subdir + ".bytes", usage.bytes);
    }
    if (bridge_) {
        const bool started = bridge_->egl_started();
        stats.set("renderer.egl_display", std::string(started ? bridge_->profile().kind_name() : "not started"));
        stats.set("renderer.driver", started ? bridge_->profile().driver_name : std::string("not started"));
        if (started) {
            // What the driver says of itself, where renderer.driver is Mesa's short name.
            const renderer::DriverIdentity& id = bridge_->display().driver_identity();
            stats.set("renderer.gl_vendor", id.gl_vendor);
            stats.set("renderer.gl_renderer", id.gl_renderer);
            stats.set("renderer.gl_version", id.gl_version);
            stats.set("renderer.egl_device", id.device_driver.empty() ? std::string("-")
                                                                      : id.device_driver + " " + id.device_renderer);
        }
        stats.set("renderer.egl_started_by", bridge_->egl_started_by());
        stats.set("renderer.display_profile", display_profile_source_);
        const renderer::RendererStats r = bridge_->renderer_stats();
        stats.set("buffers.shm_upload_bytes", r.shm_upload_bytes);
        stats.set("buffers.dmabuf_imports", r.dmabuf_imports);
        stats.set("buffers.dmabuf_reimports", bridge_->dmabuf_reimports());
        stats.set("buffers.dmabuf_texture_reuses", bridge_->dmabuf_texture_reuses());
        stats.set("buffers.dmabuf_rejected", r.dmabuf_rejected);
        stats.set("buffers.released_after_render", bridge_->released_after_render());
        stats.set("buffers.released_unsampled", bridge_->released_unsampled());
        stats.set("buffers.readback_bytes", r.readback_bytes);
        stats.set("buffers.cpu_render_targets", r.cpu_targets);
        stats.set("buffers.dmabuf_buffers_created", linux_dmabuf_ ? linux_dmabuf_->buffers_created() : 0);
        stats.set("buffers.dmabuf_requests_refused", linux_dmabuf_ ? linux_dmabuf_->requests_refused() : 0);
        stats.set("protocols.linux_dmabuf_version", uint64_t{linux_dmabuf_ ? linux_dmabuf_->version() : 0});
    }
    if (content_type_) {
        stats.set("surfaces.content_type_photo", content_type_->surfaces_with(1));
        stats.set("surfaces.content_type_video", content_type_->surfaces_with(2));
        stats.set("surfaces.content_type_game", content_type_->surfaces_with(3));
    }
    if (tearing_control_)
        stats.set("surfaces.tearing_async", tearing_control_->surfaces_with(1));
    if (system_bell_) {
        stats.set("bell.rings", system_bell_->rings());
        stats.set("bell.window_rings", system_bell_->window_rings());
        stats.set("bell.commands_run", system_bell_->commands_run());
    }
    stats.set("frames.rendered", frames_rendered_);
    stats.set("frames.direct_scanout", frames_direct_scanout_);
    stats.set("frames.composed_on_cpu", frames_composed_on_cpu_);
    stats.set("frames.cpu_ms_p50", median(frame_cpu_ms_));
    stats.set("frames.culled_surfaces", culled_surfaces_);
    stats.set("frames.render_ahead", frames_render_ahead_);
    stats.set("frames.render_done_ms_p50", percentile(fence_ms_, 0.5));
    stats.set("frames.render_done_ms_p99", percentile(fence_ms_, 0.99));
    uint64_t slots = 0;
    uint64_t skipped = 0;
    for (const auto& output : outputs_) {
        slots = std::max<uint64_t>(slots, output->ring_slots());
        skipped += output->ticks_skipped();
    }
    stats.set("frames.ring_slots", slots);
    stats.set("frames.vblank_skipped", skipped);
    if (session_activity_) {
        stats.set("session.deactivations", session_activity_->deactivations());
        stats.set("session.activations", session_activity_->activations());
        stats.set("session.frames_while_inactive", frames_while_inactive_);
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
