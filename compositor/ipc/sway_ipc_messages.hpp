// SwayIpcMessages: the replies and events of the i3/sway IPC subset kiln speaks, as sway writes them: workspaces,
// outputs, the tree, version, bar config, binding modes and seats as JSON; RUN_COMMAND's commands (workspace, move
// to a workspace, focus and kill by con_id, reload, nop) run through DesktopControl; workspace and window events.
#pragma once

#include "compositor/ipc/desktop_control.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::compositor {
struct Workspace;
class Toplevel;
class Toplevels;
class Workspaces;
}  // namespace kiln::compositor

namespace kiln::compositor::ipc {

class JsonWriter;

// The message types kiln answers (sway's numbering).
enum class SwayMessage : uint32_t {
    run_command = 0,
    get_workspaces = 1,
    subscribe = 2,
    get_outputs = 3,
    get_tree = 4,
    get_marks = 5,
    get_bar_config = 6,
    get_version = 7,
    get_binding_modes = 8,
    send_tick = 10,
    sync = 11,
    get_binding_state = 12,
    get_seats = 101,
};
// Event types: the high bit, then the event's number.
inline constexpr uint32_t sway_event_bit = 0x80000000u;
enum class SwayEvent : uint32_t { workspace = 0, window = 3, tick = 7 };

class SwayIpcMessages {
public:
    struct Parts {
        DesktopControl& desktop;
        Toplevels& toplevels;
        Workspaces& workspaces;
        wlr_output_layout* layout;
        wlr_seat* seat;
        std::function<std::string()> reload;  // empty when kiln.ini was read again, else why not
    };
    explicit SwayIpcMessages(Parts parts) : p_(std::move(parts)) {}

    std::string workspaces();
    std::string outputs();
    std::string tree();
    std::string version() const;
    std::string bar_config(std::string_view payload) const;
    std::string binding_modes() const;
    std::string binding_state() const;
    std::string seats();
    // Runs each command of `payload` (separated by ';') in turn: an array of one result per command.
    std::string run_command(std::string_view payload);

    // SUBSCRIBE's payload (a JSON array of event names): the mask of their bits, or none (with `error`) when it
    // is not such an array or names an event sway does not have.
    static std::optional<uint32_t> subscription(std::string_view payload, std::string& error);

    // The event sway sends for a DesktopControl change.
    std::string event(const DesktopControl::Change& change);

    // sway's number of a workspace name: its leading decimal digits, else -1.
    static int64_t number_of(std::string_view name);

private:
    // Empty when done, else why not; none for a command kiln does not know.
    std::optional<std::string> run_one(const std::vector<std::string>& words, std::optional<int64_t> con_id);
    // The id of the window a command acts on: `con_id` if given, else the focused window's; 0 when none.
    int64_t target(std::optional<int64_t> con_id) const;
    std::string switch_workspace(const std::vector<std::string>& args);
    void write_workspace(JsonWriter& json, const Workspace& workspace, bool in_tree) const;
    void write_window(JsonWriter& json, int64_t id, const Toplevel& toplevel) const;
    void write_output(JsonWriter& json, wlr_output* output, int index, bool in_tree) const;

    // Which output holds the focus: Workspaces::current_output() read once per query, before any Workspace pointer
    // is held (it may drop a workspace a window was dragged off), and never while Workspaces tells of a change: an
    // event takes it from the focused window or the last focus event.
    void take_current_output();
    wlr_output* current_ = nullptr;
    Parts p_;
};

}  // namespace kiln::compositor::ipc
