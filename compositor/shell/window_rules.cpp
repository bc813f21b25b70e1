// WindowRules: which [rule] sections match a mapping window, and the move to their workspace and output.
#include "compositor/shell/window_rules.hpp"

#include "compositor/core.hpp"
#include "compositor/log.hpp"
#include "compositor/shell/toplevel.hpp"
#include "compositor/shell/toplevels.hpp"
#include "compositor/shell/workspaces.hpp"


namespace kiln::compositor {

WindowRules::WindowRules(const Core& core, Toplevels& toplevels, Workspaces& workspaces, TagOf tag_of)
    : core_(core), workspaces_(workspaces), tag_of_(std::move(tag_of))
{
    add_.connect(&toplevels.events.add, [this](void* data) {
        auto* toplevel = static_cast<Toplevel*>(data);
        auto listener = std::make_unique<wl::Listener>();
        listener->connect(&toplevel->events.map, [this, toplevel](void*) { mapped(*toplevel); });
        maps_[toplevel] = std::move(listener);
    });
    remove_.connect(&toplevels.events.remove, [this](void* data) { maps_.erase(static_cast<Toplevel*>(data)); });
}

WindowRules::~WindowRules() = default;

void WindowRules::mapped(Toplevel& toplevel)
{
    if (core_.options.rules.empty())
        return;
    const std::string tag = tag_of_(toplevel);
    const char* app_id = toplevel.app_id();
    // Every matching rule applies in the file's order: a later one's workspace or output wins.
    const WindowRule* workspace_rule = nullptr;
    const WindowRule* output_rule = nullptr;
    for (const WindowRule& rule : core_.options.rules) {
        if (!rule.tag.empty() && rule.tag != tag)
            continue;
        if (!rule.app_id.empty() && (!app_id || rule.app_id != app_id))
            continue;
        if (!rule.workspace.empty())
            workspace_rule = &rule;
        if (!rule.output.empty())
            output_rule = &rule;
    }
    if (!workspace_rule && !output_rule)
        return;
    Workspace* current = workspaces_.of(toplevel);
    if (!current)
        return;  // on no output kiln shows: nowhere to move it from
    wlr_output* output = current->output;
    if (output_rule) {
        if (wlr_output* named = workspaces_.output_named(output_rule->output))
            output = named;
        else
            log::info("kiln.ini line %d: no output %s is shown; the window stays on %s", output_rule->line,
                      output_rule->output.c_str(), output->name);
    }
    Workspace* target = workspace_rule ? workspaces_.create(output, workspace_rule->workspace)
                                       : workspaces_.active(output);
    if (!target || target == current)
        return;
    workspaces_.move(toplevel, *target);
    ++applied_;
}

}  // namespace kiln::compositor
