// Server: owns the Wayland display, the wlroots backend, renderer and scene, and every subsystem of kiln.
#pragma once

#include "compositor/core.hpp"
#include "compositor/listener.hpp"
#include "compositor/session/options.hpp"
#include "compositor/shell/scene_layers.hpp"
#include "compositor/shell/shell_desktop.hpp"
#include "compositor/stats.hpp"
#include "compositor/wlr.hpp"

#include "renderer/cache/tiered_program_cache.hpp"
#include "renderer/shaders.hpp"
#include "renderer/types.hpp"

#include <functional>
#include <list>
#include <set>
#include <memory>
#include <optional>
#include <string>

namespace kiln::compositor {

class Output;
class Toplevel;
class Toplevels;
class WindowPolicy;
class Seat;
class StartupCommands;
class RenderBridge;
class LinuxDmabufV1;
class WaylandDrm;
class FenceEvents;
class CommitGate;
class PresentationTime;
class ImplicitFences;
class LinuxDrmSyncobjV1;
class WlShmValidation;
class DefunctRoleGuard;
class PrivilegedGlobals;
class RequestGuard;
class RequestHooks;
class Clipboard;
class VirtualInput;
class TestInput;
class Decorations;
class Idle;
class ExtIdleNotifyV1;
class SecurityContextV1;
class XdgActivation;
class ForeignToplevels;
class RelativePointer;
class LayerShell;
class ExtSessionLockV1;
class OutputManagement;
class OutputPower;
class PointerConstraints;
class PointerGestures;
class XdgShell;
class XdgSurfaceRules;
class Xwayland;
class SinglePixelBufferV1;
class FractionalScaleV1;
class CursorShapeV1;
class FifoV1;
class CommitTimingV1;
class Viewporter;
class XdgSystemBellV1;
class XdgDialogV1;
class XdgToplevelIconV1;
class ContentTypeV1;
class TearingControlV1;
class DrmLeaseV1;
class AlphaModifierV1;
class ExtForeignToplevelListV1;
class ExtImageCaptureSourceV1;
class ExtImageCopyCaptureV1;
class ExtDataControlV1;
class XdgForeign;
class SessionActivity;

// The composition root: it builds the Core, then the rooms, each given the Core and the narrow things it needs.
class Server {
public:
    Server(const Options& options, Stats& stats);
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    // Creates the backend, renderer and globals and opens the socket; false (with `error`) when kiln cannot run.
    bool start(std::string& error);
    // Runs until a signal, the backend going away, or the startup commands ending; returns the exit status.
    int run();
    void terminate(int status);

    wl_display* display() const { return display_; }
    wlr_backend* backend() const { return backend_; }
    wlr_renderer* renderer() const { return renderer_; }
    wlr_scene* scene() const { return scene_; }
    wlr_output_layout* layout() const { return layout_; }
    const Options& options() const { return options_; }
    // What no window covers: kiln.ini's [background] color, opaque.
    renderer::Color background() const;

    // False while kiln's VT is switched away (DRM through libseat): output commits fail until it comes back.
    bool session_active() const;
    // Switches to VT `vt` where kiln has a session (DRM through libseat); elsewhere it says why not.
    void switch_vt(int vt);
    // How kiln.ini is read again on SIGHUP: the new options (flags still on top), or nullopt to keep the old.
    void on_reload(std::function<std::optional<Options>()> reread) { reread_ = std::move(reread); }
    // Takes the reloadable parts of `options`: bindings, keyboard, [input] and outputs (mode, scale, transform,
    // position), and the background; clients stay connected.
    void reload(const Options& options);
    // DISPLAY for X11 clients; empty without Xwayland.
    std::string x_display() const;
    void remove_output(Output* output);
    // Puts an enabled output in the layout at `position` (unset: right of the others), and gives it kiln's frame
    // pipeline if it has none yet (an output kiln.ini left off, turned on by output management).
    void show_output(wlr_output* output, std::optional<OutputPosition> position);
    void frame_rendered(double cpu_ms, bool direct_scanout);
    // Surfaces in a frame's damage that were wholly under opaque ones, so not drawn.
    void frame_culled(size_t surfaces) { culled_surfaces_ += surfaces; }
    // Time from a frame's start until its render-done fence signalled.
    void frame_fenced(double ms);
    void frame_rendered_ahead() { ++frames_render_ahead_; }
    void frame_composed_on_cpu() { ++frames_composed_on_cpu_; }

private:
    // The render bridge, with EGL started now or (warm cache, CPU composition) when something first needs GL.
    bool create_renderer(std::string& error);
    // Starts preparing programs one per idle moment, once per run: after the first frame and with EGL up.
    void start_background_prepare();
    void add_output(wlr_output* output);
    void report_stats(Stats& stats) const;
    // The program cache's lines: on stderr, but a second one about a folder already reported goes to the debug log.
    void cache_log(const std::string& message) const;
    // Prepares the programs the precompile list names (all on a first run); with `one_only`, just the next one.
    // Returns whether it prepared one (and more may remain).
    bool prepare_programs(bool one_only);

    Options options_;  // a copy: SIGHUP replaces its reloadable parts
    Stats& stats_;
    wl_display* display_ = nullptr;
    wlr_backend* backend_ = nullptr;
    wlr_session* session_ = nullptr;
    std::unique_ptr<cache::TieredProgramCache> programs_;
    RenderBridge* bridge_ = nullptr;  // owned by wlroots through renderer_
    wlr_renderer* renderer_ = nullptr;
    wlr_allocator* allocator_ = nullptr;
    wlr_scene* scene_ = nullptr;
    SceneLayers layers_;
    wlr_output_layout* layout_ = nullptr;
    Core core_{options_, stats_, display_, backend_, scene_, layers_, layout_};
    wlr_compositor* compositor_ = nullptr;
    std::unique_ptr<PresentationTime> presentation_;  // feedback kept with held commits
    std::string socket_;
    int exit_status_ = 0;
    bool backend_started_ = false;

    std::unique_ptr<RequestHooks> requests_;  // the one protocol logger every request guard and gate registers into
    std::unique_ptr<FenceEvents> fence_events_;
    std::unique_ptr<CommitGate> commit_gate_;  // fences, syncobj points, fifo and commit timing hold commits here
    std::unique_ptr<ImplicitFences> implicit_fences_;
    std::unique_ptr<LinuxDmabufV1> linux_dmabuf_;
    std::unique_ptr<WaylandDrm> wayland_drm_;
    std::unique_ptr<LinuxDrmSyncobjV1> drm_syncobj_;
    std::unique_ptr<WlShmValidation> shm_validation_;
    std::unique_ptr<DefunctRoleGuard> defunct_role_guard_;
    std::unique_ptr<PrivilegedGlobals> privileged_;
    std::unique_ptr<Seat> seat_;
    std::unique_ptr<Toplevels> toplevels_;
    std::unique_ptr<WindowPolicy> window_policy_;  // what input does to windows; the seat tells it
    std::unique_ptr<XdgShell> shell_;
    std::unique_ptr<RequestGuard> request_guard_;
    std::unique_ptr<XdgSurfaceRules> xdg_surface_rules_;
    std::unique_ptr<Clipboard> clipboard_;
    std::unique_ptr<VirtualInput> virtual_input_;
    std::unique_ptr<TestInput> test_input_;
    std::unique_ptr<Decorations> decorations_;
    std::unique_ptr<Idle> idle_;
    std::unique_ptr<ExtIdleNotifyV1> ext_idle_notify_;
    std::unique_ptr<SecurityContextV1> security_context_;
    std::unique_ptr<XdgActivation> xdg_activation_;
    std::unique_ptr<ForeignToplevels> foreign_toplevels_;
    std::unique_ptr<RelativePointer> relative_pointer_;
    std::unique_ptr<LayerShell> layer_shell_;
    std::unique_ptr<ExtSessionLockV1> session_lock_;
    std::unique_ptr<OutputManagement> output_management_;
    std::unique_ptr<OutputPower> output_power_;
    std::unique_ptr<PointerConstraints> pointer_constraints_;
    std::unique_ptr<PointerGestures> pointer_gestures_;
    std::unique_ptr<StartupCommands> startup_;
    std::unique_ptr<Xwayland> xwayland_;
    std::unique_ptr<SinglePixelBufferV1> single_pixel_buffer_;
    std::unique_ptr<FractionalScaleV1> fractional_scale_;
    std::unique_ptr<CursorShapeV1> cursor_shape_;
    std::unique_ptr<FifoV1> fifo_;
    std::unique_ptr<CommitTimingV1> commit_timing_;
    std::unique_ptr<Viewporter> viewporter_;
    std::unique_ptr<XdgSystemBellV1> system_bell_;
    std::unique_ptr<XdgDialogV1> dialogs_;
    std::unique_ptr<XdgToplevelIconV1> toplevel_icons_;
    std::unique_ptr<ContentTypeV1> content_type_;
    std::unique_ptr<TearingControlV1> tearing_control_;
    std::unique_ptr<DrmLeaseV1> drm_lease_;
    std::unique_ptr<AlphaModifierV1> alpha_modifier_;
    std::unique_ptr<ExtForeignToplevelListV1> toplevel_list_;
    std::unique_ptr<ExtImageCaptureSourceV1> capture_sources_;
    std::unique_ptr<ExtImageCopyCaptureV1> image_copy_capture_;
    std::unique_ptr<ExtDataControlV1> data_control_;
    std::unique_ptr<XdgForeign> xdg_foreign_;
    std::unique_ptr<SessionActivity> session_activity_;  // on a seat (DRM) only
    // What rooms ask of the desktop as a whole, answered from the rooms above.
    ShellDesktop desktop_{core_, {toplevels_, seat_, shell_, layer_shell_, session_lock_, xwayland_}};
    std::list<std::unique_ptr<Output>> outputs_;
    std::vector<double> frame_cpu_ms_;
    uint64_t frames_rendered_ = 0;
    uint64_t frames_direct_scanout_ = 0;
    uint64_t culled_surfaces_ = 0;
    uint64_t frames_render_ahead_ = 0;
    uint64_t frames_composed_on_cpu_ = 0;
    uint64_t frames_while_inactive_ = 0;  // drawn while the session was away: each one's commit failed
    PrecompileMode precompile_ = PrecompileMode::fast;  // options' mode, automatic resolved
    std::vector<double> fence_ms_;
    std::set<renderer::ShaderVariant> prepare_failed_;
    wl_event_source* background_prepare_ = nullptr;
    bool background_started_ = false;
    std::string display_profile_source_;  // "cached", "probed, stored" or "probed"
    wl_event_loop_idle_func_t background_step_ = nullptr;

    wl_event_source* sigterm_ = nullptr;
    wl_event_source* sigint_ = nullptr;
    wl_event_source* sighup_ = nullptr;
    std::function<std::optional<Options>()> reread_;

    wl::Listener new_output_;
    wl::Listener backend_destroy_;
};

}  // namespace kiln::compositor
