// ScreenCastPortal: org.freedesktop.impl.portal.ScreenCast on /org/freedesktop/portal/desktop, and its sessions.
#pragma once

#include <memory>
#include <string>

#include <systemd/sd-bus.h>
#include <vector>

#include "chooser_command.hpp"
#include "portal_options.hpp"
#include "screencast_session.hpp"
#include "source_picker.hpp"


namespace portal {

class EventLoop;
class PipeWireLink;
class WaylandOutputs;

class ScreenCastPortal {
public:
    ScreenCastPortal(sd_bus* bus, EventLoop& loop, WaylandOutputs& wayland, PipeWireLink& link,
                     PortalOptions options);
    ~ScreenCastPortal();
    ScreenCastPortal(const ScreenCastPortal&) = delete;
    ScreenCastPortal& operator=(const ScreenCastPortal&) = delete;

    // Drops the sessions that were closed and the chooser runs that ended; called by the loop between dispatches
    // (never inside a handler).
    void drop_closed();

private:
    // A Start waiting for the chooser command: its message is answered when the command ends.
    struct PendingStart {
        sd_bus_message* message = nullptr;  // a reference, dropped with this
        std::string session_path;
        std::string app_id;
        std::unique_ptr<ChooserCommand> command;
        bool answered = false;
        ~PendingStart() { sd_bus_message_unref(message); }
    };

    static int create_session(sd_bus_message* message, void* data, sd_bus_error* error) noexcept;
    static int select_sources(sd_bus_message* message, void* data, sd_bus_error* error) noexcept;
    static int start(sd_bus_message* message, void* data, sd_bus_error* error) noexcept;
    static int source_types(sd_bus* bus, const char* path, const char* interface, const char* property,
                            sd_bus_message* reply, void* data, sd_bus_error* error) noexcept;
    // Whether kiln lists windows and makes capture sources of them for this program.
    bool window_sources() const;
    ScreenCastSession* find(const std::string& path);
    // Runs the chooser for a Start; it is answered once the command ends.
    void ask_chooser(sd_bus_message* message, ScreenCastSession& session, const char* app_id);
    // Shares `pick` in `session` and answers Start's `message` with the stream (or a failure).
    int share(sd_bus_message* message, ScreenCastSession& session, const char* app_id, const Pick& pick);

    sd_bus* bus_;
    EventLoop& loop_;
    WaylandOutputs& wayland_;
    PipeWireLink& link_;
    PortalOptions options_;
    SourcePicker picker_{wayland_, options_};
    std::vector<std::unique_ptr<ScreenCastSession>> sessions_;
    std::vector<std::unique_ptr<PendingStart>> pending_;
    sd_bus_slot* slot_ = nullptr;
};

}  // namespace portal
