// Server: owns the Wayland display, the wlroots backend, renderer and scene, and every subsystem of kiln.
#pragma once

#include "compositor/core.hpp"
#include "compositor/desktop_rooms.hpp"
#include "compositor/listener.hpp"
#include "compositor/bridge/render_start.hpp"
#include "compositor/output/frame_stats.hpp"
#include "compositor/protocols/buffer_protocols.hpp"
#include "compositor/protocols/privileged_setup.hpp"
#include "compositor/protocols/request_hooks.hpp"
#include "compositor/session/options.hpp"
#include "compositor/shell/scene_layers.hpp"
#include "compositor/shell/shell_desktop.hpp"
#include "compositor/stats.hpp"
#include "compositor/teardown.hpp"
#include "compositor/wlr.hpp"

#include "renderer/types.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace kiln::compositor {

class DefunctRoleGuard;
class Outputs;
class RenderBridge;
class RequestGuard;
class SessionActivity;
class SignalHandlers;
class StartupCommands;
class WlShmValidation;
class XdgSurfaceRules;

// The composition root: it builds the Core, then the rooms, each given the Core and the narrow things it needs.
class Server {
public:
    Server(const Options& options, Stats& stats);
    ~Server();  // defaulted: the members' declaration order is the teardown order
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

private:
    void report_stats(Stats& stats) const;
    // Teardown steps: the backend (which destroys the wlr_outputs) and then the output list; the seat's activity
    // callback, before the Idle it calls; the startup commands, Xwayland and the clients.
    void destroy_backend();
    void forget_seat_activity();
    void destroy_clients();

    // Members are declared in the order they are made, and C++ destroys them in reverse: the destructor is defaulted
    // and the order below is the teardown order, read bottom-up. Where a step is not a member's own destructor (a
    // wlroots object, the clients), a Teardown declared next to what it frees runs it. Why the order matters:
    // - the startup commands and Xwayland go first (Xwayland is a client holding other clients' surfaces), then the
    //   clients, while every room still exists to hear of their surfaces going (one Teardown, declared last);
    // - then the rooms, each before what it uses: the seat outlives the windows and the protocols that act on it;
    // - then the backend, which destroys the wlr_outputs, and the output list, before what their frames use;
    // - the layout before the scene (the scene's attachment listens to the layout), the allocator before the
    //   renderer, the renderer before the program cache it reads;
    // - the request table and everything that lives in the display's lists before the display, which goes last.
    Options options_;  // a copy: SIGHUP replaces its reloadable parts
    Stats& stats_;
    wl_display* display_ = nullptr;
    Teardown display_gone_{[this] {
        if (display_)
            wl_display_destroy(display_);  // frees what wlroots made on it (wl_compositor, screencopy, ...)
    }};
    // The one protocol logger; the guards below register into it, and must go before it (they do: declared after).
    RequestHooks requests_{display_};
    std::unique_ptr<XdgSurfaceRules> xdg_surface_rules_;
    std::unique_ptr<RequestGuard> request_guard_;
    RenderStart render_{options_, stats_, display_};  // destroys the wlr_renderer, then the program cache
    RenderBridge* bridge_ = nullptr;                  // owned by wlroots through renderer_
    wlr_renderer* renderer_ = nullptr;
    wlr_allocator* allocator_ = nullptr;
    Teardown allocator_gone_{[this] {
        if (allocator_)
            wlr_allocator_destroy(allocator_);
    }};
    wlr_scene* scene_ = nullptr;
    Teardown scene_gone_{[this] {
        if (scene_)
            wlr_scene_node_destroy(&scene_->node);
    }};
    SceneLayers layers_;
    wlr_output_layout* layout_ = nullptr;
    Teardown layout_gone_{[this] {
        if (layout_)
            wlr_output_layout_destroy(layout_);
    }};
    wlr_backend* backend_ = nullptr;  // null once the backend went away by itself
    Core core_{options_, stats_, display_, backend_, scene_, layers_, layout_};
    wlr_compositor* compositor_ = nullptr;  // freed with the display
    std::string socket_;
    int exit_status_ = 0;
    bool backend_started_ = false;
    std::function<std::optional<Options>()> reread_;

    std::unique_ptr<FenceEvents> fence_events_;     // after the outputs whose frames it watched
    std::unique_ptr<AlphaModifierV1> alpha_modifier_;  // after the outputs whose frames ask it
    // Fences, syncobj points, FIFO and commit timing hold commits here: it outlives every source of them.
    std::unique_ptr<CommitGate> commit_gate_;
    // Outlives the output list: an Output going away tells commit timing (a destroyed member cannot be read, even
    // to see that it is null). Fractional-scale listens to the layout.
    std::unique_ptr<SurfaceProtocols> surface_protocols_;
    FrameStats frame_stats_;
    std::unique_ptr<Outputs> outputs_;
    Teardown backend_gone_{[this] { destroy_backend(); }};
    std::unique_ptr<SessionActivity> session_activity_;  // on a seat (DRM) only
    wl::Listener new_output_;
    wl::Listener backend_destroy_;
    std::unique_ptr<SignalHandlers> signals_;  // not embedded: the host owns the process's signals

    // What rooms ask of the desktop as a whole, answered from the rooms below; it outlives them all.
    ShellDesktop desktop_{core_, {toplevels_, seat_, shell_, layer_shell_, session_lock_, xwayland_}};
    // The rooms. The seat outlives everything that acts on it.
    std::unique_ptr<WindowPolicy> window_policy_;  // what input does to windows; the seat tells it
    std::unique_ptr<Seat> seat_;
    std::unique_ptr<DrmLeaseV1> drm_lease_;
    std::unique_ptr<XdgSystemBellV1> system_bell_;
    std::unique_ptr<PresentationTime> presentation_;  // feedback kept with held commits
    std::unique_ptr<CursorShapeV1> cursor_shape_;
    std::unique_ptr<SecurityContextV1> security_context_;  // after the global filter, which asks it
    std::unique_ptr<PrivilegedGlobals> privileged_;
    std::unique_ptr<WlShmValidation> shm_validation_;
    std::unique_ptr<DefunctRoleGuard> defunct_role_guard_;
    std::unique_ptr<LinuxDmabufV1> linux_dmabuf_;
    std::unique_ptr<WaylandDrm> wayland_drm_;
    std::unique_ptr<LinuxDrmSyncobjV1> drm_syncobj_;
    std::unique_ptr<ImplicitFences> implicit_fences_;  // asks drm_syncobj_ which surfaces are its own
    std::unique_ptr<CommitGate::Source> release_pacing_;  // frame-paced commits: RenderBridge::before_commit
    std::unique_ptr<Clipboard> clipboard_;
    std::unique_ptr<ExtDataControlV1> data_control_;
    std::unique_ptr<VirtualInput> virtual_input_;
    std::unique_ptr<TestInput> test_input_;
    std::unique_ptr<Decorations> decorations_;
    std::unique_ptr<ExtIdleNotifyV1> ext_idle_notify_;  // after Idle, which tells it the activity and inhibitors
    std::unique_ptr<Idle> idle_;
    Teardown seat_activity_gone_{[this] { forget_seat_activity(); }};  // the seat tells idle_, which goes next
    std::unique_ptr<XdgForeign> xdg_foreign_;
    std::unique_ptr<XdgActivation> xdg_activation_;
    // After the xdg and X11 windows it lists and the taskbar handles that follow them.
    std::unique_ptr<Toplevels> toplevels_;
    std::unique_ptr<XdgToplevelIconV1> toplevel_icons_;
    std::unique_ptr<XdgDialogV1> dialogs_;
    std::unique_ptr<ExtImageCaptureSourceV1> capture_sources_;
    std::unique_ptr<ExtImageCopyCaptureV1> image_copy_capture_;
    std::unique_ptr<ExtForeignToplevelListV1> toplevel_list_;
    std::unique_ptr<ForeignToplevels> foreign_toplevels_;
    std::unique_ptr<RelativePointer> relative_pointer_;
    std::unique_ptr<LayerShell> layer_shell_;
    std::unique_ptr<ExtSessionLockV1> session_lock_;
    std::unique_ptr<OutputManagement> output_management_;
    std::unique_ptr<OutputPower> output_power_;
    std::unique_ptr<PointerConstraints> pointer_constraints_;
    std::unique_ptr<PointerGestures> pointer_gestures_;
    std::unique_ptr<XdgShell> shell_;
    // Xwayland's windows and its X server go before the clients: it is one of them and holds their surfaces.
    std::unique_ptr<Xwayland> xwayland_;
    std::unique_ptr<StartupCommands> startup_;
    // First of all, while every member is alive: the startup commands, then Xwayland, then the clients, whose
    // surfaces and objects are destroyed while the rooms still listen. The first two are reset, not left to their
    // members' destructors: a window going away with its client moves the focus, and the desktop then asks
    // xwayland_, which must read null (a destroyed member cannot be read at all).
    Teardown clients_gone_{[this] { destroy_clients(); }};

    // The members above by the group that makes them in start() (protocols/buffer_protocols.hpp,
    // protocols/privileged_setup.hpp, desktop_rooms.hpp): references only, nothing of theirs to tear down.
    BufferProtocols buffers_{linux_dmabuf_, wayland_drm_, fence_events_, commit_gate_, implicit_fences_,
                             release_pacing_, drm_syncobj_, presentation_, surface_protocols_, alpha_modifier_};
    PrivilegedSetup privileged_setup_{privileged_, security_context_, drm_lease_};
    DesktopRooms rooms_{toplevels_, shell_, window_policy_, seat_, clipboard_, data_control_, cursor_shape_,
                        virtual_input_, test_input_, decorations_, idle_, ext_idle_notify_, xdg_activation_,
                        foreign_toplevels_, toplevel_list_, capture_sources_, image_copy_capture_, relative_pointer_,
                        xdg_foreign_, system_bell_, dialogs_, toplevel_icons_, xwayland_, layer_shell_, session_lock_,
                        pointer_constraints_, pointer_gestures_, output_management_, output_power_};
};

}  // namespace kiln::compositor
