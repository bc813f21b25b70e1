// Server: owns the Wayland display, the wlroots backend, renderer and scene, and every subsystem of kiln.
#pragma once

#include "compositor/core.hpp"
#include "compositor/desktop_rooms.hpp"
#include "compositor/listener.hpp"
#include "compositor/opaque_region_repair.hpp"
#include "compositor/scene_layers.hpp"
#include "compositor/bridge/render_start.hpp"
#include "compositor/output/frame_stats.hpp"
#include "compositor/output/output_colours.hpp"
#include "compositor/output/sync/buffer_life.hpp"
#include "compositor/protocols/buffer_protocols.hpp"
#include "compositor/protocols/commit_protocols.hpp"
#include "compositor/protocols/privileged_setup.hpp"
#include "compositor/protocols/request_guards.hpp"
#include "compositor/protocol_kit/request_hooks.hpp"
#include "compositor/session/options.hpp"
#include "compositor/stats.hpp"
#include "compositor/teardown.hpp"
#include "compositor/wlr.hpp"

#include "renderer/types.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace kiln::compositor {

namespace ipc {
class MsgServer;
class SwayIpcServer;
}
class Outputs;
class RenderBridge;
class SessionActivity;
class SignalHandlers;
class StartupCommands;

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
    // kiln.ini read again (SIGHUP, `kiln msg reload`) and taken: empty when done, else why not.
    std::string reload_from_file();
    // DISPLAY for X11 clients; empty without Xwayland.
    std::string x_display() const;

private:
    // Every output redraws whole on its next frame.
    void damage_every_output();
    void report_stats(Stats& stats) const;
    // Teardown steps: the backend (which destroys the wlr_outputs) and then the output list; the startup commands,
    // Xwayland and the clients.
    void destroy_backend();
    void destroy_clients();

    // Members are declared in the order start() makes them, except where teardown needs otherwise (the commit
    // protocols, filled with the buffer protocols, are declared before the output list), and C++ destroys them in
    // reverse: the destructor is defaulted and the order below is the teardown order, read bottom-up. The rooms are
    // owned by their groups (each declares its own in its teardown order); Server orders the groups, one member
    // each, and each group's header says why it sits where it does. Where a step is not a member's own destructor (a
    // wlroots object, the clients), a Teardown declared next to what it frees runs it. Why the order matters:
    // - the startup commands and Xwayland go first (Xwayland is a client holding other clients' surfaces), then the
    //   clients, while every room still exists to hear of their surfaces going (one Teardown, declared last);
    // - then the desktop rooms, each before what it uses: the seat outlives the windows and the protocols that act on
    //   it; then the privileged globals' filter, which guarded some of their globals;
    // - the buffer protocols before the backend (explicit sync's timelines are on its DRM fd);
    // - then the backend, which destroys the wlr_outputs, and the output list, before what their frames use: the
    //   commit protocols (an Output going away tells commit timing; the outputs take presentation feedback) and the
    //   fence events; the commit gate outlives every source of held commits (buffer and commit protocols);
    // - the layout before the scene (the scene's attachment listens to the layout), the allocator before the
    //   renderer, the renderer before the program cache it reads;
    // - the request guards, the request table and everything that lives in the display's lists before the display,
    //   which goes last.
    Options options_;  // a copy: SIGHUP replaces its reloadable parts
    Stats& stats_;
    wl_display* display_ = nullptr;
    Teardown display_gone_{[this] {
        if (display_)
            wl_display_destroy(display_);  // frees what wlroots made on it (wl_compositor, screencopy, ...)
    }};
    // The one protocol logger; the guards register into it, and must go before it (they do: declared after).
    RequestHooks requests_{display_};
    RequestGuards guards_;  // protocols/request_guards.hpp
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
    std::unique_ptr<OpaqueRegionRepair> opaque_regions_;  // wlroots 0.15's opaque-region leak, for every surface
    std::string socket_;
    int exit_status_ = 0;
    bool backend_started_ = false;
    std::function<std::optional<Options>()> reread_;
    // Each output's colour description from kiln.ini: read by the frames, captures and color-management-v1 below.
    OutputColours output_colours_{options_};

    // A buffer's life (the fence events, the commit gate, the releases: output/sync/buffer_life.hpp), then
    // wp_presentation, the surface protocols and alpha-modifier over its gate (protocols/commit_protocols.hpp): they
    // outlive the output list, whose frames use them.
    BufferLife buffer_life_;
    CommitProtocols commits_;
    FrameStats frame_stats_;
    std::unique_ptr<Outputs> outputs_;
    Teardown backend_gone_{[this] { destroy_backend(); }};
    std::unique_ptr<SessionActivity> session_activity_;  // on a seat (DRM) only
    wl::Listener new_output_;
    wl::Listener backend_destroy_;
    std::unique_ptr<SignalHandlers> signals_;  // not embedded: the host owns the process's signals

    // The rooms, by the group that owns and makes them in start(). linux-dmabuf, wl_drm, implicit fences and explicit
    // sync go before the backend and the commit gate (protocols/buffer_protocols.hpp).
    BufferProtocols buffers_;
    PrivilegedSetup privileged_setup_;  // after the rooms whose globals it guards (protocols/privileged_setup.hpp)
    DesktopRooms rooms_{core_};         // the desktop and its rooms (desktop_rooms.hpp)
    std::unique_ptr<StartupCommands> startup_;
    // `kiln msg`'s socket and commands: they act on the rooms above, and hear of the clients' windows going.
    std::unique_ptr<ipc::MsgServer> msg_;
    // The i3/sway IPC socket: the same desktop as msg_'s, so it goes first.
    std::unique_ptr<ipc::SwayIpcServer> sway_ipc_;
    // First of all, while every member is alive: the startup commands, then Xwayland, then the clients, whose
    // surfaces and objects are destroyed while the rooms still listen. The first two are reset, not left to their
    // members' destructors: a window going away with its client moves the focus, and the desktop then asks
    // Xwayland, which must read null (a destroyed member cannot be read at all).
    Teardown clients_gone_{[this] { destroy_clients(); }};
};

}  // namespace kiln::compositor
