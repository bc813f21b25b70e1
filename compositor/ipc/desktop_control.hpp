// DesktopControl: the desktop as `kiln msg` sees and drives it: outputs, workspaces and windows (each window with an
// id that stays while it lives) written as JSON; focus, move, close and switch by name or id; and events (workspace
// switches, windows opened, closed, focused, retitled) as JSON lines. It is given the windows, the workspaces, the
// layout and the seat, nothing else of kiln.
#pragma once

#include "compositor/ipc/json_writer.hpp"
#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln::compositor {
class Toplevel;
class Toplevels;
class Workspaces;
}  // namespace kiln::compositor

namespace kiln::compositor::ipc {

class DesktopControl {
public:
    DesktopControl(Toplevels& toplevels, Workspaces& workspaces, wlr_output_layout* layout, wlr_seat* seat);
    ~DesktopControl();
    DesktopControl(const DesktopControl&) = delete;
    DesktopControl& operator=(const DesktopControl&) = delete;

    // Arrays of every output, workspace and mapped window.
    void write_outputs(JsonWriter& json) const;
    void write_workspaces(JsonWriter& json) const;
    void write_windows(JsonWriter& json) const;

    // Each returns an empty string when done, or why nothing was done.
    std::string focus(int64_t id);
    std::string close(int64_t id);
    // The window to workspace `name` of `output_name` (empty: the output the window is on), made if missing.
    std::string move(int64_t id, const std::string& name, const std::string& output_name);
    // Shows workspace `name` on `output_name` (empty: the output the workspace keys act on), made if missing.
    std::string show_workspace(const std::string& name, const std::string& output_name);
    // Moves workspace `name` of `from_name` (empty: the output the workspace keys act on) with its windows to
    // `output_name`; a shown one stays shown there (Workspaces::assign).
    std::string move_workspace(const std::string& name, const std::string& output_name, const std::string& from_name);

    // Gives each window's ext-foreign-toplevel-list identifier (written as "identifier"; empty: null).
    void identify_with(std::function<std::string(const Toplevel&)> identifier) { identifier_ = std::move(identifier); }

    // Each event as one JSON line (observers stay for the control's life).
    void on_event(std::function<void(const std::string&)> observer) { observer_ = std::move(observer); }

    // The same events as values, for a listener that writes its own JSON (the sway IPC).
    struct Change {
        bool window = false;  // a window event, else a workspace event
        std::string change;   // workspace: init, focus, empty; window: new, focus, close, title
        std::string output;   // workspace events: the workspace's output
        std::string workspace;  // the workspace (of a window event: the window's, or the one it left)
        std::string old;        // a focus event: the workspace shown before on that output, if any
        int64_t id = 0;         // window events: the window's id
        const Toplevel* toplevel = nullptr;
    };
    void on_change(std::function<void(const Change&)> observer) { change_observer_ = std::move(observer); }
    // Each mapped window on a workspace with its id, in the order they were made.
    void for_each_window(const std::function<void(int64_t id, const Toplevel&)>& visit) const;

private:
    struct Window;

    Window* find(int64_t id, std::string& error) const;
    // `left_workspace`: the name written when the window is on none (unmapped: its close event).
    void write_window(JsonWriter& json, const Toplevel& toplevel, int64_t id,
                      const std::string& left_workspace = {}) const;
    void added(Toplevel& toplevel);
    void removed(Toplevel& toplevel);
    void window_event(const Window& window, const char* change);
    void focus_changed(wlr_surface* surface);
    void workspaces_changed();
    void emit(const JsonWriter& json);

    Toplevels& toplevels_;
    Workspaces& workspaces_;
    wlr_output_layout* layout_;
    std::map<int64_t, std::unique_ptr<Window>> windows_;  // in the order they were made
    int64_t next_id_ = 1;
    const Toplevel* focused_ = nullptr;  // as the last focus event said
    std::function<std::string(const Toplevel&)> identifier_;
    // The workspaces as the last event left them: (output, name) of each, and the one shown per output.
    std::vector<std::pair<std::string, std::string>> known_;
    std::map<std::string, std::string> shown_;
    std::function<void(const std::string&)> observer_;
    std::function<void(const Change&)> change_observer_;
    std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);

    wl::Listener toplevel_add_;
    wl::Listener toplevel_remove_;
    wl::Listener focus_change_;
};

}  // namespace kiln::compositor::ipc
