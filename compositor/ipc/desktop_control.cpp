// DesktopControl: outputs, workspaces and windows as JSON, the actions on them by id and name, and their events.
#include "compositor/ipc/desktop_control.hpp"

#include "compositor/shell/toplevel.hpp"
#include "compositor/shell/toplevels.hpp"
#include "compositor/shell/workspaces.hpp"

#include <algorithm>

namespace kiln::compositor::ipc {

// A window kiln manages, its id, and the listeners that turn its changes into events.
struct DesktopControl::Window {
    Window(Toplevel& t, int64_t i) : toplevel(t), id(i) {}
    Toplevel& toplevel;
    int64_t id;
    std::string last_workspace;  // named in its close event, when it has left its workspace already
    wl::Listener map;
    wl::Listener unmap;
    wl::Listener title;
};

namespace {

const char* name_of(const wlr_output* output)
{
    return output ? output->name : nullptr;
}

void write_box(JsonWriter& json, const wlr_box& box)
{
    json.key("x").value(box.x).key("y").value(box.y).key("width").value(box.width).key("height").value(box.height);
}

}  // namespace

DesktopControl::DesktopControl(Toplevels& toplevels, Workspaces& workspaces, wlr_output_layout* layout,
                               wlr_seat* seat)
    : toplevels_(toplevels), workspaces_(workspaces), layout_(layout)
{
    toplevel_add_.connect(&toplevels.events.add, [this](void* data) { added(*static_cast<Toplevel*>(data)); });
    toplevel_remove_.connect(&toplevels.events.remove,
                             [this](void* data) { removed(*static_cast<Toplevel*>(data)); });
    focus_change_.connect(&seat->keyboard_state.events.focus_change, [this](void* data) {
        focus_changed(static_cast<wlr_seat_keyboard_focus_change_event*>(data)->new_surface);
    });
    // Workspaces keeps its observers for its own life, longer than this one's: the flag says when this one is gone.
    workspaces.on_change([this, alive = alive_] {
        if (*alive)
            workspaces_changed();
    });
    workspaces_changed();
}

DesktopControl::~DesktopControl()
{
    *alive_ = false;
}

void DesktopControl::added(Toplevel& toplevel)
{
    const int64_t id = next_id_++;
    auto window = std::make_unique<Window>(toplevel, id);
    Window* w = window.get();
    w->map.connect(&toplevel.events.map, [this, w](void*) {
        window_event(*w, "new");
        // Focused as it mapped, before it joined a workspace: its focus event comes now, after "new".
        if (toplevels_.focused() == &w->toplevel && focused_ != &w->toplevel) {
            focused_ = &w->toplevel;
            window_event(*w, "focus");
        }
    });
    w->unmap.connect(&toplevel.events.unmap, [this, w](void*) {
        if (focused_ == &w->toplevel)
            focused_ = nullptr;
        window_event(*w, "close");
    });
    w->title.connect(&toplevel.events.title, [this, w](void*) {
        if (w->toplevel.mapped())
            window_event(*w, "title");
    });
    windows_.emplace(id, std::move(window));
}

void DesktopControl::removed(Toplevel& toplevel)
{
    if (focused_ == &toplevel)
        focused_ = nullptr;
    std::erase_if(windows_, [&toplevel](const auto& entry) { return &entry.second->toplevel == &toplevel; });
}

DesktopControl::Window* DesktopControl::find(int64_t id, std::string& error) const
{
    auto it = windows_.find(id);
    if (it == windows_.end() || !it->second->toplevel.mapped() || !workspaces_.of(it->second->toplevel)) {
        error = "no window with id " + std::to_string(id);
        return nullptr;
    }
    return it->second.get();
}

void DesktopControl::write_outputs(JsonWriter& json) const
{
    json.begin_array();
    wlr_output* current = workspaces_.current_output();
    wlr_output_layout_output* entry = nullptr;
    wl_list_for_each(entry, &layout_->outputs, link)
    {
        wlr_output* output = entry->output;
        const wlr_box* in_layout = wlr_output_layout_get_box(layout_, output);
        const wlr_box box = in_layout ? *in_layout : wlr_box{};
        const Workspace* active = workspaces_.active(output);
        json.begin_object()
            .key("name").value(output->name)
            .key("description").value(output->description)
            .key("make").value(output->make)
            .key("model").value(output->model)
            .key("enabled").value(output->enabled);
        write_box(json, box);
        json.key("scale").value(static_cast<double>(output->scale)).key("refresh_mhz").value(output->refresh);
        if (active)
            json.key("workspace").value(active->name);
        else
            json.key("workspace").null();
        json.key("focused").value(output == current)
            .end_object();
    }
    json.end_array();
}

void DesktopControl::write_workspaces(JsonWriter& json) const
{
    json.begin_array();
    wlr_output* current = workspaces_.current_output();
    wlr_output_layout_output* entry = nullptr;
    wl_list_for_each(entry, &layout_->outputs, link)
    {
        for (const Workspace* workspace : workspaces_.on(entry->output)) {
            int64_t windows = 0;
            for (const auto& [id, window] : windows_)
                windows += workspaces_.of(window->toplevel) == workspace ? 1 : 0;
            const bool shown = workspaces_.active(entry->output) == workspace;
            json.begin_object()
                .key("name").value(workspace->name)
                .key("output").value(entry->output->name)
                .key("visible").value(shown)
                .key("focused").value(shown && entry->output == current)
                .key("named").value(workspace->named)
                .key("urgent").value(workspace->urgent)
                .key("windows").value(windows)
                .end_object();
        }
    }
    json.end_array();
}

void DesktopControl::write_window(JsonWriter& json, const Toplevel& toplevel, int64_t id,
                                  const std::string& left_workspace) const
{
    const Workspace* workspace = workspaces_.of(toplevel);
    json.begin_object()
        .key("id").value(id)
        .key("title").value(toplevel.title())
        .key("app_id").value(toplevel.app_id());
    // What ext-foreign-toplevel-list calls it: a capture picker (kiln-portal) matches its handles by it.
    if (std::string identifier = identifier_ ? identifier_(toplevel) : std::string(); !identifier.empty())
        json.key("identifier").value(identifier);
    else
        json.key("identifier").null();
    if (workspace)
        json.key("workspace").value(workspace->name);
    else if (!left_workspace.empty())
        json.key("workspace").value(left_workspace);
    else
        json.key("workspace").null();
    json.key("output").value(name_of(workspace ? workspace->output : toplevel.output()));
    write_box(json, toplevel.geometry());
    json.key("focused").value(toplevels_.focused() == &toplevel)
        .key("visible").value(toplevel.mapped() && !toplevel.minimized() && !toplevel.off_workspace())
        .key("maximized").value(toplevel.maximized())
        .key("fullscreen").value(toplevel.fullscreen())
        .key("minimized").value(toplevel.minimized())
        .end_object();
}

void DesktopControl::write_windows(JsonWriter& json) const
{
    json.begin_array();
    for (const auto& [id, window] : windows_)
        if (window->toplevel.mapped() && workspaces_.of(window->toplevel))
            write_window(json, window->toplevel, id);
    json.end_array();
}

std::string DesktopControl::focus(int64_t id)
{
    std::string error;
    Window* window = find(id, error);
    if (!window)
        return error;
    toplevels_.focus(&window->toplevel);  // shows its workspace first (Workspaces' reveal), unminimizes it
    return {};
}

std::string DesktopControl::close(int64_t id)
{
    std::string error;
    Window* window = find(id, error);
    if (!window)
        return error;
    window->toplevel.close();
    return {};
}

std::string DesktopControl::move(int64_t id, const std::string& name, const std::string& output_name)
{
    std::string error;
    Window* window = find(id, error);
    if (!window)
        return error;
    wlr_output* output =
        output_name.empty() ? workspaces_.of(window->toplevel)->output : workspaces_.output_named(output_name);
    if (!output)
        return "no output named \"" + output_name + "\"";
    Workspace* workspace = workspaces_.create(output, name);
    if (!workspace)
        return "no workspace \"" + name + "\" can be made on " + output->name;
    workspaces_.move(window->toplevel, *workspace);
    return {};
}

std::string DesktopControl::show_workspace(const std::string& name, const std::string& output_name)
{
    wlr_output* output = output_name.empty() ? workspaces_.current_output() : workspaces_.output_named(output_name);
    if (!output)
        return output_name.empty() ? std::string("no output shows workspaces") : "no output named \"" + output_name + "\"";
    Workspace* workspace = workspaces_.create(output, name);
    if (!workspace)
        return "no workspace \"" + name + "\" can be made on " + output->name;
    workspaces_.activate(*workspace);
    return {};
}

std::string DesktopControl::move_workspace(const std::string& name, const std::string& output_name,
                                          const std::string& from_name)
{
    wlr_output* to = workspaces_.output_named(output_name);
    if (!to)
        return "no output named \"" + output_name + "\"";
    wlr_output* from = from_name.empty() ? workspaces_.current_output() : workspaces_.output_named(from_name);
    if (!from)
        return from_name.empty() ? std::string("no output shows workspaces") : "no output named \"" + from_name + "\"";
    Workspace* workspace = workspaces_.find(from, name);
    if (!workspace)
        return "no workspace \"" + name + "\" on " + from->name;
    if (from == to)
        return "workspace \"" + name + "\" is on " + to->name + " already";
    if (workspaces_.find(to, name))
        return std::string(to->name) + " has a workspace \"" + name + "\" already";
    if (!workspaces_.assign(*workspace, to))
        return "workspace \"" + name + "\" cannot move to " + to->name;
    return {};
}

void DesktopControl::emit(const JsonWriter& json)
{
    if (observer_)
        observer_(json.text());
}

void DesktopControl::for_each_window(const std::function<void(int64_t id, const Toplevel&)>& visit) const
{
    for (const auto& [id, window] : windows_)
        if (window->toplevel.mapped() && workspaces_.of(window->toplevel))
            visit(id, window->toplevel);
}

void DesktopControl::window_event(const Window& window, const char* change)
{
    if (!observer_ && !change_observer_)
        return;
    if (const Workspace* workspace = workspaces_.of(window.toplevel))
        const_cast<Window&>(window).last_workspace = workspace->name;
    if (change_observer_)
        change_observer_({.window = true, .change = change, .workspace = window.last_workspace, .id = window.id,
                          .toplevel = &window.toplevel});
    if (!observer_)
        return;
    JsonWriter json;
    json.begin_object().key("event").value("window").key("change").value(change).key("window");
    write_window(json, window.toplevel, window.id, window.last_workspace);
    json.end_object();
    emit(json);
}

void DesktopControl::focus_changed(wlr_surface* surface)
{
    // Focus leaving every window (an empty workspace, a panel) is no event, but the next window to get it is.
    Toplevel* toplevel = surface ? toplevels_.find(surface) : nullptr;
    if (toplevel == focused_)
        return;
    if (toplevel && !workspaces_.of(*toplevel))
        return;  // focused as it maps: the map's event says so (above)
    focused_ = toplevel;
    if (!toplevel)
        return;
    for (const auto& [id, window] : windows_)
        if (&window->toplevel == toplevel)
            window_event(*window, "focus");
}

void DesktopControl::workspaces_changed()
{
    std::vector<std::pair<std::string, std::string>> now;
    std::map<std::string, std::string> shown;
    wlr_output_layout_output* entry = nullptr;
    wl_list_for_each(entry, &layout_->outputs, link)
    {
        for (const Workspace* workspace : workspaces_.on(entry->output))
            now.emplace_back(entry->output->name, workspace->name);
        if (const Workspace* active = workspaces_.active(entry->output))
            shown[entry->output->name] = active->name;
    }
    // The events are gathered, then the state they lead to is kept, then they are sent: a listener that changes the
    // workspaces again (and so calls this again) finds the state after these events, not in the middle of them.
    std::vector<Change> changes;
    const auto event = [&changes](const char* change, const std::string& output, const std::string& name,
                                  const std::string* old) {
        changes.push_back({.change = change, .output = output, .workspace = name, .old = old ? *old : ""});
    };
    for (const auto& workspace : now)
        if (std::find(known_.begin(), known_.end(), workspace) == known_.end())
            event("init", workspace.first, workspace.second, nullptr);
    for (const auto& [output, name] : shown) {
        auto before = shown_.find(output);
        if (before == shown_.end() || before->second != name)
            event("focus", output, name, before == shown_.end() ? nullptr : &before->second);
    }
    for (const auto& workspace : known_)
        if (std::find(now.begin(), now.end(), workspace) == now.end())
            event("empty", workspace.first, workspace.second, nullptr);
    known_ = std::move(now);
    shown_ = std::move(shown);
    for (const Change& change : changes) {
        if (change_observer_)
            change_observer_(change);
        JsonWriter json;
        json.begin_object().key("event").value("workspace").key("change").value(change.change)
            .key("output").value(change.output).key("workspace").value(change.workspace);
        if (!change.old.empty())
            json.key("old").value(change.old);  // workspace names are never empty
        json.end_object();
        emit(json);
    }
}

}  // namespace kiln::compositor::ipc
