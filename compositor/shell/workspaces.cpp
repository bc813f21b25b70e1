// Workspaces behaviour: one set per output as outputs come and go, windows joining the active one as they map,
// switching (hide, show, focus) and moving windows between workspaces and outputs.
#include "compositor/shell/workspaces.hpp"

#include "compositor/core.hpp"
#include "compositor/shell/desktop.hpp"
#include "compositor/shell/placement.hpp"
#include "compositor/shell/toplevel.hpp"
#include "compositor/shell/toplevels.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <tuple>

namespace kiln::compositor {

// A window's membership, and the listeners that keep it as the window maps and unmaps.
struct Workspaces::Member {
    Workspace* workspace = nullptr;  // null while unmapped
    wl::Listener map;
    wl::Listener unmap;
};

Workspaces::Workspaces(const Core& core, Desktop& desktop, Toplevels& toplevels)
    : core_(core), desktop_(desktop), toplevels_(toplevels)
{
    // After Toplevels' own layout listener (made first), which has moved windows off a gone output already.
    layout_change_.connect(&core.layout->events.change, [this](void*) { outputs_changed(); });
    toplevel_add_.connect(&toplevels.events.add, [this](void* data) { add_window(*static_cast<Toplevel*>(data)); });
    toplevel_remove_.connect(&toplevels.events.remove, [this](void* data) {
        auto* toplevel = static_cast<Toplevel*>(data);
        auto it = members_.find(toplevel);
        if (it == members_.end())
            return;
        Workspace* workspace = it->second->workspace;
        members_.erase(it);
        drop_if_unused(workspace);
        changed();
    });
    toplevels.on_reveal([this](Toplevel& toplevel) {
        // A hidden workspace's window asked for focus (a taskbar, xdg-activation): its workspace is shown first.
        if (Workspace* workspace = of(toplevel); workspace && active(workspace->output) != workspace)
            show(*workspace);  // focus then goes to that window
    });
    outputs_changed();
}

Workspaces::~Workspaces()
{
    toplevels_.on_reveal(nullptr);
}

void Workspaces::add_window(Toplevel& toplevel)
{
    auto member = std::make_unique<Member>();
    member->map.connect(&toplevel.events.map, [this, &toplevel](void*) { window_mapped(toplevel); });
    member->unmap.connect(&toplevel.events.unmap, [this, &toplevel](void*) { window_unmapped(toplevel); });
    members_[&toplevel] = std::move(member);
}

void Workspaces::window_mapped(Toplevel& toplevel)
{
    // Placed on the output under the pointer (or beside its parent): it opens on that output's active workspace.
    auto it = members_.find(&toplevel);
    if (it == members_.end())
        return;
    it->second->workspace = active(toplevel.output());
    set_shown(toplevel, true);
    changed();
}

void Workspaces::window_unmapped(Toplevel& toplevel)
{
    auto it = members_.find(&toplevel);
    if (it == members_.end())
        return;
    Workspace* workspace = it->second->workspace;
    // A hidden window stays hidden while unmapped (nothing to redraw as its client goes); mapped again, it joins
    // the shown workspace and is shown.
    it->second->workspace = nullptr;
    drop_if_unused(workspace);
    changed();
}

void Workspaces::set_shown(Toplevel& toplevel, bool shown)
{
    toplevel.set_off_workspace(!shown);
}

std::string Workspaces::name_of(int number) const
{
    const WorkspaceSettings& settings = core_.options.workspaces;
    if (number < 1 || number > settings.count)
        return {};
    if (static_cast<size_t>(number) <= settings.names.size())
        return settings.names[static_cast<size_t>(number - 1)];
    return std::to_string(number);
}

void Workspaces::outputs_changed()
{
    wlr_output_layout* layout = core_.layout;
    // Outputs gone from the layout: their windows join the workspace now shown where Toplevels moved them.
    std::vector<wlr_output*> gone;
    for (const auto& [output, workspace] : active_)
        if (!wlr_output_layout_get(layout, output))
            gone.push_back(output);
    // New outputs: kiln.ini's named workspaces, and the first one shown.
    wlr_output_layout_output* entry = nullptr;
    std::vector<wlr_output*> added;
    wl_list_for_each(entry, &layout->outputs, link)
    {
        if (!active_.contains(entry->output))
            added.push_back(entry->output);
    }
    for (wlr_output* output : added) {
        const std::vector<std::string> names = configured_on(output);
        for (const std::string& name : names)
            create(output, name)->named = true;
        active_[output] = names.empty() ? create(output, "1") : find(output, names.front());
    }
    for (wlr_output* output : gone) {
        active_.erase(output);
        previous_.erase(output);
        if (last_shown_on_ == output)
            last_shown_on_ = nullptr;
        for (auto& [toplevel, member] : members_) {
            if (!member->workspace || member->workspace->output != output)
                continue;
            member->workspace = active(toplevel->output());
            set_shown(const_cast<Toplevel&>(*toplevel), member->workspace != nullptr);
        }
        std::erase_if(all_, [output](const auto& workspace) { return workspace->output == output; });
    }
    if (!added.empty() || !gone.empty())
        changed();
}

std::vector<std::string> Workspaces::configured_on(wlr_output* output) const
{
    const Options& options = core_.options;
    if (const OutputSettings* settings = options.output(output->name); settings && !settings->workspaces.empty())
        return settings->workspaces;
    std::vector<std::string> names = options.workspaces.names;
    std::erase_if(names, [&options](const std::string& name) {
        return std::any_of(options.outputs.begin(), options.outputs.end(), [&name](const OutputSettings& other) {
            return std::find(other.workspaces.begin(), other.workspaces.end(), name) != other.workspaces.end();
        });
    });
    return names;
}

std::vector<Workspace*> Workspaces::on(wlr_output* output) const
{
    const std::vector<std::string> names = configured_on(output);
    // kiln.ini's names in its order, then numbers in theirs, then the rest as they were made.
    const auto key = [&names](const Workspace* workspace) {
        const auto named = std::find(names.begin(), names.end(), workspace->name);
        int number = std::numeric_limits<int>::max();
        const std::string& name = workspace->name;
        int parsed = 0;
        auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), parsed);
        if (ec == std::errc{} && end == name.data() + name.size() && parsed > 0)
            number = parsed;
        return std::tuple(named - names.begin(), number, workspace->serial);
    };
    std::vector<Workspace*> list;
    for (const auto& workspace : all_)
        if (workspace->output == output)
            list.push_back(workspace.get());
    std::sort(list.begin(), list.end(), [&key](Workspace* a, Workspace* b) { return key(a) < key(b); });
    return list;
}

Workspace* Workspaces::active(wlr_output* output) const
{
    auto it = active_.find(output);
    return it == active_.end() ? nullptr : it->second;
}

Workspace* Workspaces::of(const Toplevel& toplevel) const
{
    auto it = members_.find(&toplevel);
    return it == members_.end() ? nullptr : it->second->workspace;
}

Workspace* Workspaces::find(wlr_output* output, std::string_view name) const
{
    for (const auto& workspace : all_)
        if (workspace->output == output && workspace->name == name)
            return workspace.get();
    return nullptr;
}

Workspace* Workspaces::create(wlr_output* output, std::string_view name)
{
    if (Workspace* known = find(output, name))
        return known;
    if (!output || !wlr_output_layout_get(core_.layout, output) || name.empty())
        return nullptr;
    const std::vector<std::string> names = configured_on(output);
    all_.push_back(std::make_unique<Workspace>(Workspace{
        .name = std::string(name),
        .output = output,
        .named = std::find(names.begin(), names.end(), name) != names.end(),
        .serial = serial_++,
    }));
    changed();
    return all_.back().get();
}

size_t Workspaces::windows_on(const Workspace& workspace) const
{
    return static_cast<size_t>(std::count_if(members_.begin(), members_.end(), [&workspace](const auto& member) {
        return member.second->workspace == &workspace;
    }));
}

bool Workspaces::remove(Workspace& workspace)
{
    if (active(workspace.output) == &workspace || windows_on(workspace) > 0)
        return false;
    std::erase_if(all_, [&workspace](const auto& w) { return w.get() == &workspace; });
    changed();
    return true;
}

void Workspaces::drop_if_unused(Workspace* workspace)
{
    if (workspace && !workspace->named)
        remove(*workspace);
}

void Workspaces::activate(Workspace& workspace)
{
    last_shown_on_ = workspace.output;
    if (show(workspace))
        refocus(workspace.output);
}

bool Workspaces::show(Workspace& workspace)
{
    follow_outputs();
    Workspace* before = active(workspace.output);
    if (before == &workspace)
        return false;
    set_active(workspace.output, workspace);
    if (before)
        previous_[workspace.output] = before->name;
    drop_if_unused(before);
    changed();
    return true;
}

void Workspaces::set_active(wlr_output* output, Workspace& workspace)
{
    active_[output] = &workspace;
    workspace.urgent = false;
    for (auto& [toplevel, member] : members_)
        if (member->workspace && member->workspace->output == output)
            set_shown(const_cast<Toplevel&>(*toplevel), member->workspace == &workspace);
}

wlr_output* Workspaces::followed_output(const Toplevel& toplevel, const Workspace& workspace) const
{
    if (active(workspace.output) != &workspace)
        return workspace.output;  // hidden windows stay where their workspace is
    wlr_output* output = toplevel.output();
    return output && active(output) ? output : workspace.output;
}

void Workspaces::follow_outputs()
{
    // A shown window dragged onto another output now belongs to the workspace shown there. The observers hear of
    // it once, after the loop: what they do must not change members_ under it.
    // The workspace left behind is shown, so it stays (drop_if_unused() would keep it).
    bool moved = false;
    for (auto& [toplevel, member] : members_) {
        Workspace* workspace = member->workspace;
        if (!workspace)
            continue;
        wlr_output* output = followed_output(*toplevel, *workspace);
        if (output == workspace->output)
            continue;
        member->workspace = active(output);
        moved = true;
    }
    if (moved)
        changed();
}

void Workspaces::refocus(wlr_output* output)
{
    if (desktop_.focus_held_elsewhere())
        return;  // the lock or a panel holds the keyboard: restore_focus() picks a window when it lets go
    Toplevel* latest = toplevels_.most_recent([this, output](const Toplevel& toplevel) {
        const Workspace* workspace = of(toplevel);
        return workspace && workspace->output == output && active(output) == workspace && !toplevel.minimized();
    });
    if (latest)
        toplevels_.focus(latest);
    else if (Toplevel* focused = toplevels_.focused(); focused && focused->off_workspace())
        toplevels_.clear_focus();
}

void Workspaces::move(Toplevel& toplevel, Workspace& workspace)
{
    follow_outputs();
    auto it = members_.find(&toplevel);
    if (it == members_.end() || !it->second->workspace || it->second->workspace == &workspace)
        return;
    Workspace* from = it->second->workspace;
    if (from->output != workspace.output)
        carry(toplevel, from->output, workspace.output);
    it->second->workspace = &workspace;
    const bool shown = active(workspace.output) == &workspace;
    set_shown(toplevel, shown);
    if (!shown && toplevels_.focused() == &toplevel)
        refocus(from->output);
    drop_if_unused(from);
    changed();
}

void Workspaces::carry(Toplevel& toplevel, wlr_output* from, wlr_output* to)
{
    // The same place within the new output's usable area, as far as it fits there.
    const wlr_box old_area = desktop_.usable_area(from);
    const wlr_box new_area = desktop_.usable_area(to);
    const wlr_box box = toplevel.geometry();
    const placement::Point spot =
        placement::clamp_into({new_area.x, new_area.y, new_area.width, new_area.height},
                              {new_area.x + box.x - old_area.x, new_area.y + box.y - old_area.y}, box.width,
                              box.height);
    toplevel.move_to(spot.x, spot.y);
    if (toplevel.fullscreen())
        toplevel.set_fullscreen(true, to);
    else if (toplevel.maximized()) {
        toplevel.set_maximized(false);  // fitted again to the new output's usable area
        toplevel.set_maximized(true);
    }
}

bool Workspaces::assign(Workspace& workspace, wlr_output* output)
{
    follow_outputs();
    wlr_output* from = workspace.output;
    if (from == output || !active(output) || find(output, workspace.name))
        return false;
    const bool was_shown = active(from) == &workspace;
    for (auto& [toplevel, member] : members_)
        if (member->workspace == &workspace)
            carry(const_cast<Toplevel&>(*toplevel), from, output);
    workspace.output = output;
    if (!was_shown) {
        changed();
        return true;
    }
    // Shown where it was, shown where it goes (as sway's `move workspace to output`): the workspace the target
    // showed gives way to it, and the old output shows what it showed before, else its first, else a new one.
    Workspace* replaced = active(output);
    set_active(output, workspace);
    previous_[output] = replaced->name;
    Workspace* next = nullptr;
    if (auto before = previous_.find(from); before != previous_.end() && before->second != workspace.name)
        next = create(from, before->second);
    if (!next && !on(from).empty())
        next = on(from).front();
    if (!next)
        next = create(from, "1");
    previous_.erase(from);
    if (next)
        set_active(from, *next);
    else
        active_.erase(from);  // cannot be: `from` shows workspaces, so one can be made there
    drop_if_unused(replaced);
    last_shown_on_ = output;
    refocus(output);
    changed();
    return true;
}

bool Workspaces::deactivate(Workspace& workspace)
{
    if (active(workspace.output) != &workspace)
        return false;  // the protocol's "no guarantee": a hidden workspace stays as it is
    auto before = previous_.find(workspace.output);
    if (before == previous_.end() || before->second == workspace.name)
        return false;
    Workspace* back = create(workspace.output, before->second);
    if (!back)
        return false;
    activate(*back);
    return true;
}

void Workspaces::request_attention(const Toplevel& toplevel)
{
    Workspace* workspace = of(toplevel);
    if (!workspace || active(workspace->output) == workspace || workspace->urgent)
        return;
    workspace->urgent = true;
    changed();
}

wlr_output* Workspaces::current_output() const
{
    // A question, asked inside other changes' events (the IPC's JSON): it changes nothing, and answers as
    // follow_outputs() will make it.
    if (Toplevel* focused = toplevels_.focused())
        if (Workspace* workspace = of(*focused))
            return followed_output(*focused, *workspace);
    if (last_shown_on_ && active(last_shown_on_))
        return last_shown_on_;
    return toplevels_.output_under_pointer();
}

void Workspaces::changed()
{
    // By index: an observer may add another (the list may grow under the loop).
    for (size_t i = 0; i < observers_.size(); ++i)
        observers_[i]();
}

wlr_output* Workspaces::output_named(std::string_view name) const
{
    wlr_output_layout_output* entry = nullptr;
    wl_list_for_each(entry, &core_.layout->outputs, link)
    {
        if (name == entry->output->name)
            return entry->output;
    }
    return nullptr;
}

}  // namespace kiln::compositor
