// Commands: each request's fields checked (names, types, ids), then the one action or listing it asks for.
#include "compositor/ipc/commands.hpp"

#include "compositor/ipc/desktop_control.hpp"
#include "compositor/ipc/json_request.hpp"
#include "compositor/ipc/json_writer.hpp"

#include <algorithm>
#include <initializer_list>
#include <optional>

namespace kiln::compositor::ipc {

namespace {

std::string failure(const std::string& error)
{
    JsonWriter json;
    json.begin_object().key("ok").value(false).key("error").value(error).end_object();
    return json.text();
}

std::string success()
{
    JsonWriter json;
    json.begin_object().key("ok").value(true).end_object();
    return json.text();
}

// A field of the type it must have: a missing required one, or one of another type, is the request's error.
struct Fields {
    const Request& request;
    const std::string& command;
    std::string error;

    // Every key is one the command takes.
    bool only(std::initializer_list<std::string_view> allowed)
    {
        for (const auto& [key, value] : request.fields)
            if (key != "command" && std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
                error = "\"" + command + "\" takes no \"" + key + "\"";
                return false;
            }
        return true;
    }
    std::optional<int64_t> integer(std::string_view key)
    {
        auto it = request.fields.find(key);
        if (it == request.fields.end()) {
            error = "\"" + command + "\" needs \"" + std::string(key) + "\", an integer";
            return std::nullopt;
        }
        if (auto number = request.integer(key))
            return number;
        error = "\"" + std::string(key) + "\" must be an integer, not " + type_name(it->second);
        return std::nullopt;
    }
    // A name: a string of 1 to max_name bytes without control characters. Optional ones read empty when missing.
    std::optional<std::string> name(std::string_view key, bool required)
    {
        auto it = request.fields.find(key);
        if (it == request.fields.end()) {
            if (!required)
                return std::string();
            error = "\"" + command + "\" needs \"" + std::string(key) + "\", a string";
            return std::nullopt;
        }
        const std::string* text = request.string(key);
        if (!text) {
            error = "\"" + std::string(key) + "\" must be a string, not " + type_name(it->second);
            return std::nullopt;
        }
        if (text->empty() || text->size() > Commands::max_name) {
            error = "\"" + std::string(key) + "\" must be 1 to " + std::to_string(Commands::max_name) + " bytes long";
            return std::nullopt;
        }
        if (std::any_of(text->begin(), text->end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; })) {
            error = "\"" + std::string(key) + "\" must not hold control characters";
            return std::nullopt;
        }
        return *text;
    }
};

std::string done_or(const std::string& error)
{
    return error.empty() ? success() : failure(error);
}

}  // namespace

Commands::Answer Commands::answer(std::string_view line)
{
    ParsedRequest parsed = parse_request(line);
    if (!parsed.request)
        return {failure(parsed.error)};
    const Request& request = *parsed.request;
    auto command_field = request.fields.find("command");
    if (command_field == request.fields.end())
        return {failure("a request needs \"command\", a string")};
    const std::string* command = request.string("command");
    if (!command)
        return {failure(std::string("\"command\" must be a string, not ") + type_name(command_field->second))};
    Fields fields{request, *command, {}};

    if (*command == "outputs" || *command == "workspaces" || *command == "windows") {
        if (!fields.only({}))
            return {failure(fields.error)};
        JsonWriter json;
        json.begin_object().key("ok").value(true).key(*command);
        if (*command == "outputs")
            desktop_.write_outputs(json);
        else if (*command == "workspaces")
            desktop_.write_workspaces(json);
        else
            desktop_.write_windows(json);
        json.end_object();
        return {json.text()};
    }
    if (*command == "focus" || *command == "close") {
        std::optional<int64_t> id;
        if (!fields.only({"id"}) || !(id = fields.integer("id")))
            return {failure(fields.error)};
        return {done_or(*command == "focus" ? desktop_.focus(*id) : desktop_.close(*id))};
    }
    if (*command == "move") {
        std::optional<int64_t> id;
        std::optional<std::string> workspace, output;
        if (!fields.only({"id", "workspace", "output"}) || !(id = fields.integer("id")) ||
            !(workspace = fields.name("workspace", true)) || !(output = fields.name("output", false)))
            return {failure(fields.error)};
        return {done_or(desktop_.move(*id, *workspace, *output))};
    }
    if (*command == "workspace") {
        std::optional<std::string> name, output;
        if (!fields.only({"name", "output"}) || !(name = fields.name("name", true)) ||
            !(output = fields.name("output", false)))
            return {failure(fields.error)};
        return {done_or(desktop_.show_workspace(*name, *output))};
    }
    if (*command == "move-workspace") {
        std::optional<std::string> name, output, from;
        if (!fields.only({"name", "output", "from"}) || !(name = fields.name("name", true)) ||
            !(output = fields.name("output", true)) || !(from = fields.name("from", false)))
            return {failure(fields.error)};
        return {done_or(desktop_.move_workspace(*name, *output, *from))};
    }
    if (*command == "reload") {
        if (!fields.only({}))
            return {failure(fields.error)};
        return {done_or(reload_ ? reload_() : std::string("this kiln cannot reload kiln.ini"))};
    }
    if (*command == "subscribe") {
        if (!fields.only({}))
            return {failure(fields.error)};
        JsonWriter json;
        json.begin_object().key("ok").value(true).key("events").begin_array().value("workspace").value("window")
            .end_array().end_object();
        return {json.text(), true};
    }
    if (*command == "version") {
        if (!fields.only({}))
            return {failure(fields.error)};
        JsonWriter json;
        json.begin_object().key("ok").value(true).key("version").value(KILN_VERSION).end_object();
        return {json.text()};
    }
    return {failure("unknown command \"" + *command +
                    "\" (known: outputs, workspaces, windows, focus, move, close, workspace, move-workspace, "
                    "reload, subscribe, version)")};
}

}  // namespace kiln::compositor::ipc
