// ScreenCastPortal: the backend side of xdg-desktop-portal's ScreenCast: sessions, source choice and Start's streams.
#include "screencast_portal.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include <systemd/sd-bus.h>

#include "ext-image-capture-source-v1-client-protocol.h"
#include "access_portal.hpp"
#include "pipewire_link.hpp"
#include "wayland_outputs.hpp"

namespace portal {

namespace {

constexpr uint32_t response_success = 0, response_cancelled = 1, response_other = 2;

int cursor_modes(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply, void*,
                 sd_bus_error*) noexcept {
    return sd_bus_message_append(reply, "u", static_cast<uint32_t>(cursor_hidden | cursor_embedded | cursor_metadata));
}

int interface_version(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply, void*,
                      sd_bus_error*) noexcept {
    return sd_bus_message_append(reply, "u", 4u);
}

// Replies (response, {}) : the answer of a request that gives no results.
int reply_empty(sd_bus_message* message, uint32_t response) {
    return sd_bus_reply_method_return(message, "ua{sv}", response, 0);
}

struct Options {
    uint32_t cursor_mode = cursor_hidden;
    uint32_t types = source_monitor;
    uint32_t persist_mode = persist_none;
    SourceChoice restore;
};

// Reads an a{sv} of options into `options` (nullptr: only checked); false where the message is malformed.
bool read_options(sd_bus_message* message, Options* options) {
    if (sd_bus_message_enter_container(message, 'a', "{sv}") < 0)
        return false;
    int entered;
    while ((entered = sd_bus_message_enter_container(message, 'e', "sv")) > 0) {
        const char* key = nullptr;
        if (sd_bus_message_read(message, "s", &key) < 0)
            return false;
        int read = 0;
        if (options && std::strcmp(key, "cursor_mode") == 0)
            read = sd_bus_message_read(message, "v", "u", &options->cursor_mode);
        else if (options && std::strcmp(key, "types") == 0)
            read = sd_bus_message_read(message, "v", "u", &options->types);
        else if (options && std::strcmp(key, "persist_mode") == 0)
            read = sd_bus_message_read(message, "v", "u", &options->persist_mode);
        else if (options && std::strcmp(key, "restore_data") == 0)
            read = read_restore_data(message, options->restore) ? 0 : -1;
        else
            read = sd_bus_message_skip(message, "v");
        if (read < 0 || sd_bus_message_exit_container(message) < 0)
            return false;
    }
    return entered >= 0 && sd_bus_message_exit_container(message) >= 0;
}

}  // namespace

ScreenCastPortal::ScreenCastPortal(sd_bus* bus, EventLoop& loop, WaylandOutputs& wayland, PipeWireLink& link,
                                   PortalOptions options)
    : bus_(bus), loop_(loop), wayland_(wayland), link_(link), options_(std::move(options)) {
    static const sd_bus_vtable vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("CreateSession", "oosa{sv}", "ua{sv}", create_session, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("SelectSources", "oosa{sv}", "ua{sv}", select_sources, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Start", "oossa{sv}", "ua{sv}", start, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_PROPERTY("AvailableSourceTypes", "u", source_types, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("AvailableCursorModes", "u", cursor_modes, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("version", "u", interface_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_VTABLE_END,
    };
    sd_bus_add_object_vtable(bus_, &slot_, "/org/freedesktop/portal/desktop", "org.freedesktop.impl.portal.ScreenCast",
                             vtable, this);
}

int ScreenCastPortal::source_types(sd_bus*, const char*, const char*, const char*, sd_bus_message* reply, void* data,
                                   sd_bus_error*) noexcept {
    auto* self = static_cast<ScreenCastPortal*>(data);
    uint32_t types = source_monitor;
    if (self->window_sources())
        types |= source_window;
    return sd_bus_message_append(reply, "u", types);
}

bool ScreenCastPortal::window_sources() const {
    return wayland_.windows().bound() && wayland_.toplevel_sources();
}

ScreenCastPortal::~ScreenCastPortal() {
    pending_.clear();
    sessions_.clear();
    sd_bus_slot_unref(slot_);
}

void ScreenCastPortal::drop_closed() {
    std::erase_if(pending_, [](const auto& pending) { return pending->answered; });
    std::erase_if(sessions_, [](const auto& session) { return session->closed(); });
}

ScreenCastSession* ScreenCastPortal::find(const std::string& path) {
    for (auto& session : sessions_)
        if (session->path() == path && !session->closed())
            return session.get();
    return nullptr;
}

int ScreenCastPortal::create_session(sd_bus_message* message, void* data, sd_bus_error*) noexcept {
    auto* self = static_cast<ScreenCastPortal*>(data);
    const char *handle = nullptr, *session_path = nullptr, *app_id = nullptr;
    if (sd_bus_message_read(message, "oos", &handle, &session_path, &app_id) < 0 ||
        !read_options(message, nullptr))
        return reply_empty(message, response_other);
    if (self->find(session_path))
        return reply_empty(message, response_other);
    self->sessions_.push_back(std::make_unique<ScreenCastSession>(self->bus_, session_path, app_id, self->loop_));
    return sd_bus_reply_method_return(message, "ua{sv}", response_success, 1, "session_id", "s", session_path);
}

int ScreenCastPortal::select_sources(sd_bus_message* message, void* data, sd_bus_error*) noexcept {
    auto* self = static_cast<ScreenCastPortal*>(data);
    const char *handle = nullptr, *session_path = nullptr, *app_id = nullptr;
    Options options;
    if (sd_bus_message_read(message, "oos", &handle, &session_path, &app_id) < 0 || !read_options(message, &options))
        return reply_empty(message, response_other);
    ScreenCastSession* session = self->find(session_path);
    uint32_t types = options.types;
    // A monitor where the app takes one (no chooser: the screen is what a call shares most), else a window; what
    // the app shared before (restore_data, from its restore token) where that is a type it takes now.
    SourceType type = (types & source_monitor) || !types ? source_monitor : source_window;
    if ((options.restore.type == source_monitor || options.restore.type == source_window) &&
        (types & options.restore.type))
        type = static_cast<SourceType>(options.restore.type);
    else
        options.restore = {};
    if (!session || !(types & (source_monitor | source_window)) ||
        (type == source_window && !self->window_sources()))
        return reply_empty(message, response_other);
    // One mode; an unknown one (or several) gets the cursor drawn in.
    uint32_t cursor_mode = options.cursor_mode;
    if (cursor_mode != cursor_hidden && cursor_mode != cursor_metadata)
        cursor_mode = cursor_embedded;
    session->select(cursor_mode, type,
                    std::min<uint32_t>(options.persist_mode, persist_persistent), std::move(options.restore));
    return reply_empty(message, response_success);
}

int ScreenCastPortal::start(sd_bus_message* message, void* data, sd_bus_error*) noexcept {
    auto* self = static_cast<ScreenCastPortal*>(data);
    const char *handle = nullptr, *session_path = nullptr, *app_id = nullptr, *parent = nullptr;
    if (sd_bus_message_read(message, "ooss", &handle, &session_path, &app_id, &parent) < 0 ||
        !read_options(message, nullptr))
        return reply_empty(message, response_other);
    ScreenCastSession* session = self->find(session_path);
    if (!session)
        return reply_empty(message, response_other);
    // 1.16 asks no Access question before a screen cast: a sandboxed app is refused here unless --allow names it.
    if (refused(self->options_, app_id, "screen cast"))
        return reply_empty(message, response_cancelled);
    // The restored or named source; else the user's chooser (answered later); else kiln's focused one.
    Pick pick = self->picker_.restored_or_named(session->source_type(), session->restore());
    if (pick.empty() && !self->options_.chooser.empty()) {
        self->ask_chooser(message, *session, app_id);
        return 1;  // answered when the command ends
    }
    if (pick.empty())
        pick = self->picker_.focused(session->source_type());
    return self->share(message, *session, app_id, pick);
}

void ScreenCastPortal::ask_chooser(sd_bus_message* message, ScreenCastSession& session, const char* app_id) {
    auto pending = std::make_unique<PendingStart>();
    pending->message = sd_bus_message_ref(message);
    pending->session_path = session.path();
    pending->app_id = app_id;
    PendingStart* waiting = pending.get();
    const uint32_t type = session.source_type();
    pending_.push_back(std::move(pending));
    // `done` may run inside the constructor (the command could not start): `waiting` is in pending_ already.
    waiting->command = std::make_unique<ChooserCommand>(
        loop_, options_.chooser, picker_.choices(type),
        [this, waiting, type](int exit_status, const std::vector<std::string>& lines) {
            waiting->answered = true;
            ScreenCastSession* session = find(waiting->session_path);
            Pick pick = exit_status == 0 ? picker_.chosen(type, lines) : Pick{};
            if (!session) {
                reply_empty(waiting->message, response_other);
                return;
            }
            if (pick.empty()) {
                std::string why = exit_status != 0 ? "exited with status " + std::to_string(exit_status)
                                  : lines.empty()  ? std::string("chose nothing")
                                                   : "chose '" + lines.front() + "', which is none of the choices";
                std::fprintf(stderr, "kiln-portal: the chooser %s: the screen cast is cancelled\n", why.c_str());
                reply_empty(waiting->message, response_cancelled);
                return;
            }
            share(waiting->message, *session, waiting->app_id.c_str(), pick);
        });
}

int ScreenCastPortal::share(sd_bus_message* message, ScreenCastSession& shared, const char* app_id,
                            const Pick& pick) {
    ScreenCastSession* session = &shared;
    ext_image_capture_source_v1* source = nullptr;
    std::string what;
    const Output* output = nullptr;
    const SourceChoice& restore = session->restore();
    SourceChoice chosen;
    chosen.type = session->source_type();
    if (session->source_type() == source_window) {
        const Window* window = pick.window;
        if (!window) {
            std::fprintf(stderr, "kiln-portal: kiln lists no window to share\n");
            return reply_empty(message, response_other);
        }
        source = ext_foreign_toplevel_image_capture_source_manager_v1_create_source(wayland_.toplevel_sources(),
                                                                                   window->handle);
        what = "window '" + window->title + "' (" + window->app_id + ")";
        chosen.app_id = window->app_id;
        chosen.title = window->title;
    } else {
        output = pick.output;
        if (!output) {
            std::fprintf(stderr, "kiln-portal: kiln announces no output to share\n");
            return reply_empty(message, response_other);
        }
        source = ext_output_image_capture_source_manager_v1_create_source(wayland_.output_sources(),
                                                                          output->output);
        what = output->name;
        chosen.output = output->name;
    }
    std::string error = session->start(wayland_, link_, source, options_.max_fps);
    if (!error.empty()) {
        std::fprintf(stderr, "kiln-portal: cannot share %s: %s\n", what.c_str(), error.c_str());
        return reply_empty(message, response_other);
    }
    // How it was picked ends the line: "(restored)" where it is what the app shared before.
    std::fprintf(stderr, "kiln-portal: sharing %s (%dx%d) with '%s' as PipeWire node %u (%s)\n", what.c_str(),
                 session->width(), session->height(), app_id, session->node_id(),
                 restore.type == chosen.type && restore.output == chosen.output && restore.app_id == chosen.app_id &&
                         restore.title == chosen.title
                     ? "restored"
                     : pick.how);

    sd_bus_message* reply = nullptr;
    int r = sd_bus_message_new_method_return(message, &reply);
    if (r < 0)
        return r;
    // (0, {"streams": <[(node, {"source_type": <1>, "position": <(x, y)>, "size": <(w, h)>})]>}); a window's
    // stream has no position, and the size of its capture.
    r = sd_bus_message_append(reply, "u", response_success);
    if (r >= 0) r = sd_bus_message_open_container(reply, 'a', "{sv}");
    if (r >= 0) r = sd_bus_message_open_container(reply, 'e', "sv");
    if (r >= 0) r = sd_bus_message_append(reply, "s", "streams");
    if (r >= 0) r = sd_bus_message_open_container(reply, 'v', "a(ua{sv})");
    if (r >= 0) r = sd_bus_message_open_container(reply, 'a', "(ua{sv})");
    if (r >= 0) r = sd_bus_message_open_container(reply, 'r', "ua{sv}");
    if (r >= 0) r = sd_bus_message_append(reply, "u", session->node_id());
    if (r >= 0 && output)
        r = sd_bus_message_append(reply, "a{sv}", 3, "source_type", "u", static_cast<uint32_t>(source_monitor),
                                  "position", "(ii)", output->x, output->y, "size", "(ii)", output->width,
                                  output->height);
    else if (r >= 0)
        r = sd_bus_message_append(reply, "a{sv}", 2, "source_type", "u", static_cast<uint32_t>(source_window),
                                  "size", "(ii)", session->width(), session->height());
    for (int i = 0; i < 4 && r >= 0; ++i)
        r = sd_bus_message_close_container(reply);  // the stream's struct, the array, the variant, the entry
    // The frontend keeps restore_data under a restore token it gives the app (transient: while it runs;
    // persistent: in the permission store, until revoked) and hands it back to SelectSources.
    if (r >= 0 && session->persist_mode() != persist_none)
        r = append_restore_data(reply, chosen, session->persist_mode());
    if (r >= 0) r = sd_bus_message_close_container(reply);  // the results' a{sv}
    if (r >= 0) r = sd_bus_send(nullptr, reply, nullptr);
    sd_bus_message_unref(reply);
    return r;
}

}  // namespace portal
