// SwayIpcMessages: sway's JSON for kiln's outputs, workspaces and windows, and the command subset run on them.
#include "compositor/ipc/sway_ipc_messages.hpp"

#include "compositor/ipc/json_writer.hpp"
#include "compositor/shell/toplevel.hpp"
#include "compositor/shell/toplevels.hpp"
#include "compositor/shell/workspaces.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

namespace kiln::compositor::ipc {

namespace {

// Container ids: windows keep DesktopControl's ids (those of `kiln msg`); workspaces, outputs and the root get
// their own ranges above them so that no two nodes of the tree share one.
constexpr int64_t workspace_ids = 1'000'000'000;
constexpr int64_t output_ids = 2'000'000'000;
constexpr int64_t root_id = 3'000'000'000;

// sway's event names, at their event numbers.
constexpr std::array<std::pair<std::string_view, uint32_t>, 10> event_names{{{"workspace", 0},
                                                                              {"output", 1},
                                                                              {"mode", 2},
                                                                              {"window", 3},
                                                                              {"barconfig_update", 4},
                                                                              {"binding", 5},
                                                                              {"shutdown", 6},
                                                                              {"tick", 7},
                                                                              {"bar_state_update", 0x14},
                                                                              {"input", 0x15}}};

void write_rect(JsonWriter& json, const char* key, const wlr_box& box)
{
    json.key(key).begin_object()
        .key("x").value(box.x).key("y").value(box.y).key("width").value(box.width).key("height").value(box.height)
        .end_object();
}

wlr_box output_box(wlr_output_layout* layout, wlr_output* output)
{
    const wlr_box* box = output ? wlr_output_layout_get_box(layout, output) : nullptr;
    return box ? *box : wlr_box{};
}

const char* transform_name(wl_output_transform transform)
{
    switch (transform) {
    case WL_OUTPUT_TRANSFORM_90: return "90";
    case WL_OUTPUT_TRANSFORM_180: return "180";
    case WL_OUTPUT_TRANSFORM_270: return "270";
    case WL_OUTPUT_TRANSFORM_FLIPPED: return "flipped";
    case WL_OUTPUT_TRANSFORM_FLIPPED_90: return "flipped-90";
    case WL_OUTPUT_TRANSFORM_FLIPPED_180: return "flipped-180";
    case WL_OUTPUT_TRANSFORM_FLIPPED_270: return "flipped-270";
    default: return "normal";
    }
}

void write_failure(JsonWriter& json, const std::string& error, bool parse_error)
{
    json.begin_object().key("success").value(false);
    if (parse_error)
        json.key("parse_error").value(true);
    json.key("error").value(error).end_object();
}

// A command's words: split at blanks, "..." and '...' kept whole (their quotes dropped).
std::vector<std::string> words_of(std::string_view text)
{
    std::vector<std::string> words;
    size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
            ++i;
        if (i == text.size())
            break;
        std::string word;
        while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) {
            if (text[i] == '"' || text[i] == '\'') {
                const char quote = text[i++];
                while (i < text.size() && text[i] != quote) {
                    if (text[i] == '\\' && i + 1 < text.size())
                        ++i;
                    word += text[i++];
                }
                ++i;  // the closing quote
            } else {
                word += text[i++];
            }
        }
        words.push_back(std::move(word));
    }
    return words;
}

// The commands of a RUN_COMMAND payload: split at ';' and ',' outside quotes and criteria.
std::vector<std::string_view> commands_of(std::string_view text)
{
    std::vector<std::string_view> commands;
    size_t start = 0;
    char quote = 0;
    bool in_criteria = false;
    for (size_t i = 0; i <= text.size(); ++i) {
        const char c = i < text.size() ? text[i] : ';';
        if (quote) {
            if (c == '\\')
                ++i;
            else if (c == quote)
                quote = 0;
        } else if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == '[') {
            in_criteria = true;
        } else if (c == ']') {
            in_criteria = false;
        } else if ((c == ';' || c == ',') && !in_criteria) {
            commands.push_back(text.substr(start, std::min(i, text.size()) - start));
            start = i + 1;
        }
    }
    return commands;
}

}  // namespace

void SwayIpcMessages::take_current_output()
{
    current_ = p_.workspaces.current_output();
}

int64_t SwayIpcMessages::number_of(std::string_view name)
{
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0])))
        return -1;
    int64_t number = 0;
    const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), number);
    if (error != std::errc() || number > INT32_MAX)
        return -1;
    return number;
}

void SwayIpcMessages::write_window(JsonWriter& json, int64_t id, const Toplevel& toplevel) const
{
    const wlr_box box = toplevel.geometry();
    pid_t pid = 0;
    if (wlr_surface* surface = toplevel.surface(); surface && surface->resource)
        wl_client_get_credentials(wl_resource_get_client(surface->resource), &pid, nullptr, nullptr);
    // kiln stacks its windows: in sway's terms each is a floating container of its workspace.
    json.begin_object()
        .key("id").value(id)
        .key("type").value("floating_con")
        .key("name").value(toplevel.title())
        .key("app_id").value(toplevel.app_id())
        .key("pid").value(static_cast<int64_t>(pid))
        .key("focused").value(p_.toplevels.focused() == &toplevel)
        .key("visible").value(toplevel.mapped() && !toplevel.minimized() && !toplevel.off_workspace())
        .key("urgent").value(false)
        .key("sticky").value(false)
        .key("fullscreen_mode").value(toplevel.fullscreen() ? 1 : 0)
        .key("layout").value("none")
        .key("orientation").value("none")
        .key("border").value("none")
        .key("current_border_width").value(0)
        .key("percent").null();
    write_rect(json, "rect", box);
    write_rect(json, "window_rect", {0, 0, box.width, box.height});
    write_rect(json, "deco_rect", {0, 0, 0, 0});
    write_rect(json, "geometry", {0, 0, box.width, box.height});
    json.key("marks").begin_array().end_array()
        .key("focus").begin_array().end_array()
        .key("nodes").begin_array().end_array()
        .key("floating_nodes").begin_array().end_array()
        .end_object();
}

void SwayIpcMessages::write_workspace(JsonWriter& json, const Workspace& workspace, bool in_tree) const
{
    const bool visible = p_.workspaces.active(workspace.output) == &workspace;
    const bool holds_focus = visible && workspace.output == current_;
    std::vector<std::pair<int64_t, const Toplevel*>> windows;
    p_.desktop.for_each_window([&](int64_t id, const Toplevel& toplevel) {
        if (p_.workspaces.of(toplevel) == &workspace)
            windows.emplace_back(id, &toplevel);
    });
    const bool window_focused = std::any_of(windows.begin(), windows.end(), [this](const auto& window) {
        return p_.toplevels.focused() == window.second;
    });
    json.begin_object()
        .key("id").value(workspace_ids + static_cast<int64_t>(workspace.serial))
        .key("type").value("workspace")
        .key("name").value(workspace.name)
        .key("num").value(number_of(workspace.name))
        .key("output").value(workspace.output ? workspace.output->name : nullptr)
        .key("visible").value(visible)
        // GET_WORKSPACES says which workspace holds the focus; the tree marks the one focused node.
        .key("focused").value(in_tree ? holds_focus && !window_focused : holds_focus)
        .key("urgent").value(false)
        .key("layout").value("splith")
        .key("orientation").value("horizontal")
        .key("representation").null();
    write_rect(json, "rect", output_box(p_.layout, workspace.output));
    json.key("focus").begin_array();
    for (const auto& window : windows)
        json.value(window.first);
    json.end_array();
    json.key("nodes").begin_array().end_array().key("floating_nodes").begin_array();
    if (in_tree)
        for (const auto& [id, toplevel] : windows)
            write_window(json, id, *toplevel);
    json.end_array().end_object();
}

std::string SwayIpcMessages::workspaces()
{
    take_current_output();
    JsonWriter json;
    json.begin_array();
    wlr_output_layout_output* entry = nullptr;
    wl_list_for_each(entry, &p_.layout->outputs, link)
    {
        for (const Workspace* workspace : p_.workspaces.on(entry->output))
            write_workspace(json, *workspace, false);
    }
    json.end_array();
    return json.text();
}

void SwayIpcMessages::write_output(JsonWriter& json, wlr_output* output, int index, bool in_tree) const
{
    const Workspace* active = p_.workspaces.active(output);
    json.begin_object()
        .key("id").value(output_ids + index)
        .key("type").value("output")
        .key("name").value(output->name)
        .key("make").value(*output->make ? output->make : "Unknown")
        .key("model").value(*output->model ? output->model : "Unknown")
        .key("serial").value(*output->serial ? output->serial : "Unknown")
        .key("active").value(output->enabled)
        .key("dpms").value(output->enabled)
        .key("power").value(output->enabled)
        .key("primary").value(false)
        .key("scale").value(static_cast<double>(output->scale))
        .key("subpixel_hinting").value("unknown")
        .key("transform").value(transform_name(output->transform))
        .key("current_workspace").value(active ? active->name.c_str() : nullptr)
        // In the tree the focused node is a window or a workspace, never its output.
        .key("focused").value(!in_tree && output == current_);
    json.key("modes").begin_array();
    wlr_output_mode* mode = nullptr;
    wl_list_for_each(mode, &output->modes, link)
    {
        json.begin_object().key("width").value(mode->width).key("height").value(mode->height)
            .key("refresh").value(mode->refresh).end_object();
    }
    json.end_array();
    json.key("current_mode").begin_object().key("width").value(output->width).key("height").value(output->height)
        .key("refresh").value(output->refresh).end_object();
    write_rect(json, "rect", output_box(p_.layout, output));
    if (in_tree) {
        json.key("layout").value("output").key("orientation").value("none").key("urgent").value(false);
        json.key("nodes").begin_array();
        for (const Workspace* workspace : p_.workspaces.on(output))
            write_workspace(json, *workspace, true);
        json.end_array().key("floating_nodes").begin_array().end_array();
    }
    json.end_object();
}

std::string SwayIpcMessages::outputs()
{
    take_current_output();
    JsonWriter json;
    json.begin_array();
    int index = 0;
    wlr_output_layout_output* entry = nullptr;
    wl_list_for_each(entry, &p_.layout->outputs, link)
    {
        write_output(json, entry->output, index++, false);
    }
    json.end_array();
    return json.text();
}

std::string SwayIpcMessages::tree()
{
    take_current_output();
    const wlr_box* whole = wlr_output_layout_get_box(p_.layout, nullptr);  // the whole layout's box
    const wlr_box all = whole ? *whole : wlr_box{};
    JsonWriter json;
    json.begin_object()
        .key("id").value(root_id)
        .key("type").value("root")
        .key("name").value("root")
        .key("focused").value(false)
        .key("urgent").value(false)
        .key("layout").value("splith")
        .key("orientation").value("horizontal");
    write_rect(json, "rect", all);
    json.key("nodes").begin_array();
    int index = 0;
    wlr_output_layout_output* entry = nullptr;
    wl_list_for_each(entry, &p_.layout->outputs, link)
    {
        write_output(json, entry->output, index++, true);
    }
    json.end_array().key("floating_nodes").begin_array().end_array().end_object();
    return json.text();
}

std::string SwayIpcMessages::version() const
{
    JsonWriter json;
    // sway 1.7's numbers (the IPC kiln follows); the human-readable string says it is kiln.
    json.begin_object()
        .key("major").value(1).key("minor").value(7).key("patch").value(0)
        .key("human_readable").value(std::string("kiln ") + KILN_VERSION + " (sway IPC subset)")
        .key("variant").value("kiln")
        .key("loaded_config_file_name").value("")
        .end_object();
    return json.text();
}

std::string SwayIpcMessages::bar_config(std::string_view payload) const
{
    if (payload.empty())
        return "[]";  // kiln runs no swaybar: no bar ids
    return "{\"success\":false,\"error\":\"No bar with that ID\"}";
}

std::string SwayIpcMessages::binding_modes() const
{
    return "[\"default\"]";
}

std::string SwayIpcMessages::binding_state() const
{
    return "{\"name\":\"default\"}";
}

std::string SwayIpcMessages::seats()
{
    take_current_output();
    int64_t focus = 0;
    p_.desktop.for_each_window([&](int64_t id, const Toplevel& toplevel) {
        if (p_.toplevels.focused() == &toplevel)
            focus = id;
    });
    JsonWriter json;
    json.begin_array().begin_object()
        .key("name").value(p_.seat->name)
        .key("capabilities").value(p_.seat->capabilities)
        .key("focus").value(focus)
        .key("devices").begin_array().end_array()
        .end_object().end_array();
    return json.text();
}

std::optional<uint32_t> SwayIpcMessages::subscription(std::string_view payload, std::string& error)
{
    // A JSON array of strings, read strictly: names sway knows, nothing else.
    size_t i = 0;
    const auto blank = [&] {
        while (i < payload.size() && std::isspace(static_cast<unsigned char>(payload[i])))
            ++i;
    };
    blank();
    if (i == payload.size() || payload[i++] != '[') {
        error = "subscribe takes a JSON array of event names";
        return std::nullopt;
    }
    uint32_t mask = 0;
    blank();
    if (i < payload.size() && payload[i] == ']') {
        ++i;
    } else {
        for (;;) {
            blank();
            if (i == payload.size() || payload[i++] != '"') {
                error = "subscribe takes a JSON array of event names";
                return std::nullopt;
            }
            const size_t end = payload.find('"', i);
            if (end == std::string_view::npos) {
                error = "an event name is not closed";
                return std::nullopt;
            }
            const std::string_view name = payload.substr(i, end - i);
            i = end + 1;
            auto known = std::find_if(event_names.begin(), event_names.end(),
                                      [name](const auto& event) { return event.first == name; });
            if (known == event_names.end()) {
                error = "unknown event \"" + std::string(name) + "\"";
                return std::nullopt;
            }
            mask |= 1u << known->second;
            blank();
            if (i < payload.size() && payload[i] == ',') {
                ++i;
                continue;
            }
            if (i < payload.size() && payload[i] == ']') {
                ++i;
                break;
            }
            error = "subscribe takes a JSON array of event names";
            return std::nullopt;
        }
    }
    blank();
    if (i != payload.size()) {
        error = "text after the array of event names";
        return std::nullopt;
    }
    return mask;
}

std::string SwayIpcMessages::event(const DesktopControl::Change& change)
{
    const Toplevel* focused = p_.toplevels.focused();
    if (const Workspace* workspace = focused ? p_.workspaces.of(*focused) : nullptr)
        current_ = workspace->output;
    else if (!change.window && change.change == "focus")
        current_ = p_.workspaces.output_named(change.output);
    JsonWriter json;
    json.begin_object().key("change").value(change.change);
    if (change.window) {
        json.key("container");
        if (change.toplevel)
            write_window(json, change.id, *change.toplevel);
        else
            json.null();
        return json.end_object().text();
    }
    wlr_output* output = p_.workspaces.output_named(change.output);
    const auto describe = [&](const std::string& name) {
        if (const Workspace* workspace = output ? p_.workspaces.find(output, name) : nullptr) {
            write_workspace(json, *workspace, false);
            return;
        }
        // Gone already (an "empty" event): what sway says of a workspace it just removed.
        json.begin_object().key("type").value("workspace").key("name").value(name).key("num").value(number_of(name))
            .key("output").value(change.output).key("visible").value(false).key("focused").value(false)
            .key("urgent").value(false).end_object();
    };
    json.key("current");
    describe(change.workspace);
    json.key("old");
    if (change.old.empty())
        json.null();
    else
        describe(change.old);
    return json.end_object().text();
}

int64_t SwayIpcMessages::target(std::optional<int64_t> con_id) const
{
    if (con_id)
        return *con_id;
    int64_t focused = 0;
    p_.desktop.for_each_window([&](int64_t id, const Toplevel& toplevel) {
        if (p_.toplevels.focused() == &toplevel)
            focused = id;
    });
    return focused;
}

std::string SwayIpcMessages::switch_workspace(const std::vector<std::string>& args)
{
    std::vector<std::string> rest;
    for (const std::string& arg : args)
        if (arg != "--no-auto-back-and-forth")
            rest.push_back(arg);
    if (rest.empty())
        return "Expected 'workspace <name>' or 'workspace number <n>'";
    wlr_output* output = p_.workspaces.current_output();
    if (!output)
        return "no output shows workspaces";
    const std::vector<Workspace*> here = p_.workspaces.on(output);
    const Workspace* active = p_.workspaces.active(output);
    if (rest.size() == 1 && (rest[0] == "next" || rest[0] == "prev" || rest[0] == "next_on_output" ||
                             rest[0] == "prev_on_output")) {
        // kiln's workspaces are per output, so next and prev stay on the focused output.
        auto at = std::find(here.begin(), here.end(), active);
        if (here.empty() || at == here.end())
            return "no workspace is shown on " + std::string(output->name);
        const size_t index = static_cast<size_t>(at - here.begin());
        const size_t count = here.size();
        const size_t next = rest[0].starts_with("next") ? (index + 1) % count : (index + count - 1) % count;
        return p_.desktop.show_workspace(here[next]->name, output->name);
    }
    if (rest[0] == "back_and_forth")
        return "kiln does not keep the previous workspace: 'workspace back_and_forth' is not supported";
    std::string name;
    if (rest[0] == "number") {
        if (rest.size() < 2 || number_of(rest[1]) < 0)
            return "Expected 'workspace number <n>'";
        const int64_t number = number_of(rest[1]);
        // The workspace of that number on the output, else one made with the name given (sway's rule).
        for (const Workspace* workspace : here)
            if (number_of(workspace->name) == number)
                return p_.desktop.show_workspace(workspace->name, output->name);
        for (size_t i = 1; i < rest.size(); ++i)
            name += (i > 1 ? " " : "") + rest[i];
        if (name == std::to_string(number) && number <= INT32_MAX) {
            const std::string configured = p_.workspaces.name_of(static_cast<int>(number));
            if (!configured.empty())
                name = configured;
        }
    } else {
        for (size_t i = 0; i < rest.size(); ++i)
            name += (i > 0 ? " " : "") + rest[i];
    }
    if (name.empty() || name.size() > 64)
        return "a workspace name is 1 to 64 bytes";
    return p_.desktop.show_workspace(name, output->name);
}

std::optional<std::string> SwayIpcMessages::run_one(const std::vector<std::string>& words, std::optional<int64_t> con_id)
{
    const std::string& verb = words[0];
    const std::vector<std::string> args(words.begin() + 1, words.end());
    if (verb == "nop")
        return std::string();
    if (verb == "workspace") {
        if (con_id)
            return "'workspace' takes no criteria";
        return switch_workspace(args);
    }
    if (verb == "reload")
        return p_.reload ? p_.reload() : "reload is not available";
    if (verb == "focus") {
        if (!args.empty() || !con_id)
            return "kiln's sway IPC focuses by criteria only: '[con_id=<id>] focus'";
        return p_.desktop.focus(*con_id);
    }
    if (verb == "kill") {
        const int64_t id = target(con_id);
        return id ? p_.desktop.close(id) : "no window to kill";
    }
    if (verb == "move") {
        // move [container|window] [to] workspace [number] <name>
        size_t i = 0;
        if (i < args.size() && (args[i] == "container" || args[i] == "window"))
            ++i;
        if (i < args.size() && args[i] == "to")
            ++i;
        if (i >= args.size() || args[i] != "workspace")
            return "kiln's sway IPC moves windows to workspaces only: 'move container to workspace <name>'";
        ++i;
        bool number = false;
        if (i < args.size() && args[i] == "number") {
            number = true;
            ++i;
        }
        std::string name;
        for (size_t j = i; j < args.size(); ++j)
            if (args[j] != "--no-auto-back-and-forth")
                name += (name.empty() ? "" : " ") + args[j];
        if (name.empty() || name.size() > 64)
            return "a workspace name is 1 to 64 bytes";
        const int64_t id = target(con_id);
        if (!id)
            return "There is no container to move";
        if (number) {
            const int64_t wanted = number_of(name);
            if (wanted < 0)
                return "Expected 'move container to workspace number <n>'";
            if (wlr_output* output = p_.workspaces.current_output())
                for (const Workspace* workspace : p_.workspaces.on(output))
                    if (number_of(workspace->name) == wanted) {
                        name = workspace->name;
                        break;
                    }
        }
        return p_.desktop.move(id, name, "");
    }
    return std::nullopt;  // not a command kiln knows: the caller says so as sway does
}

std::string SwayIpcMessages::run_command(std::string_view payload)
{
    JsonWriter json;
    json.begin_array();
    const std::vector<std::string_view> commands = commands_of(payload);
    for (std::string_view command : commands) {
        // [con_id=N] criteria: the only ones kiln reads.
        std::optional<int64_t> con_id;
        const size_t start = command.find_first_not_of(" \t\r\n");
        if (start == std::string_view::npos)
            continue;
        command.remove_prefix(start);
        if (command.front() == '[') {
            const size_t end = command.find(']');
            if (end == std::string_view::npos) {
                write_failure(json, "Unmatched '[' in criteria", true);
                continue;
            }
            const std::vector<std::string> criteria = words_of(command.substr(1, end - 1));
            std::string error;
            for (const std::string& criterion : criteria) {
                int64_t id = 0;
                const auto [ptr, ec] = criterion.starts_with("con_id=")
                                           ? std::from_chars(criterion.data() + 7,
                                                             criterion.data() + criterion.size(), id)
                                           : std::from_chars_result{nullptr, std::errc::invalid_argument};
                if (ec != std::errc() || ptr != criterion.data() + criterion.size()) {
                    error = "kiln reads only the criterion con_id=<id>, not '" + criterion + "'";
                    break;
                }
                con_id = id;
            }
            if (!error.empty()) {
                write_failure(json, error, true);
                continue;
            }
            command.remove_prefix(end + 1);
        }
        const std::vector<std::string> words = words_of(command);
        if (words.empty()) {
            write_failure(json, "Expected a command after the criteria", true);
            continue;
        }
        const std::optional<std::string> error = run_one(words, con_id);
        if (!error)
            write_failure(json, "Unknown/invalid command '" + words[0] + "'", true);
        else if (!error->empty())
            write_failure(json, *error, false);
        else
            json.begin_object().key("success").value(true).end_object();
    }
    json.end_array();
    return json.text();
}

}  // namespace kiln::compositor::ipc
