// Workspaces: kiln's virtual desktops: each output has its own, one active; a window belongs to one, and the windows
// of an output's other workspaces are hidden (and so suspended). The model protocols and `kiln msg` build on.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kiln::compositor {

struct Core;
class Desktop;
class Toplevel;
class Toplevels;

struct Workspace {
    std::string name;
    wlr_output* output = nullptr;
    // A name from kiln.ini [workspaces] names: the workspace lives as long as its output, empty or not.
    bool named = false;
    // A window of it asked for attention (xdg-activation) while it was hidden; cleared when it is shown.
    bool urgent = false;
    uint64_t serial = 0;  // creation order, the last of the sort keys (workspaces.cpp)
};

class Workspaces {
public:
    Workspaces(const Core& core, Desktop& desktop, Toplevels& toplevels);
    ~Workspaces();
    Workspaces(const Workspaces&) = delete;
    Workspaces& operator=(const Workspaces&) = delete;

    // `output`'s workspaces in their order (kiln.ini's names first, then by number, then as created).
    std::vector<Workspace*> on(wlr_output* output) const;
    // The one shown on `output`; null for an output kiln does not show.
    Workspace* active(wlr_output* output) const;
    // The workspace `toplevel` belongs to; null while it is not mapped.
    Workspace* of(const Toplevel& toplevel) const;
    Workspace* find(wlr_output* output, std::string_view name) const;
    // The workspace `name` on `output`, made if it is not there yet (null for an output kiln does not show).
    Workspace* create(wlr_output* output, std::string_view name);
    // Removes a workspace: false (nothing changes) while it is active or holds windows.
    bool remove(Workspace& workspace);
    // `workspace` is shown on its output: the windows of the one shown before are hidden, and keyboard focus goes to
    // the most recently focused window of the new one, or to none.
    void activate(Workspace& workspace);
    // `toplevel` moves to `workspace` (on another output it is moved into that output's usable area); hidden there
    // unless that workspace is shown. Focus stays with it if it stays shown, else goes on in the old workspace.
    void move(Toplevel& toplevel, Workspace& workspace);
    // `workspace` moves to `output` with its windows, each at the same place relative to the output's usable area
    // (clamped onto it). Shown before, it is shown there (focus following as for a switch) and its old output shows
    // the workspace it showed before it (else its first, else a new one). False (nothing changes) for its own
    // output, an output kiln does not show, or one with a workspace of that name already.
    bool assign(Workspace& workspace, wlr_output* output);
    // The active `workspace` gives way to the one its output showed before it (sway's back_and_forth), made again
    // if it was removed; false (nothing changes) when it is not shown or its output showed no other before it.
    bool deactivate(Workspace& workspace);
    // A window asked for attention: its workspace is marked urgent if it is hidden (cleared when it is shown).
    void request_attention(const Toplevel& toplevel);

    // The workspace numbered `number` (1-based) in kiln.ini's terms: its `number`th name, else the number itself;
    // empty when `number` is beyond [workspaces] count.
    std::string name_of(int number) const;
    // The output the workspace keys act on: the focused window's, else the one a workspace was last shown on (an
    // empty workspace keeps the keys on its output, as sway's focused workspace does), else the one under the pointer.
    wlr_output* current_output() const;
    // The output of the layout named `name` (as kiln.ini, `kiln msg` and wlr-randr name it), or null.
    wlr_output* output_named(std::string_view name) const;

    // Called after each change of workspaces, their windows or which is active (observers stay for kiln's life).
    void on_change(std::function<void()> observer) { observers_.push_back(std::move(observer)); }

private:
    struct Member;

    void outputs_changed();
    // Shows `workspace` on its output, hiding the one shown before; false when it was shown already.
    bool show(Workspace& workspace);
    // `workspace` is the one shown on `output`: its windows shown, the others of `output` hidden; urgent cleared.
    void set_active(wlr_output* output, Workspace& workspace);
    void follow_outputs();
    // The output whose workspace `toplevel` (now in `workspace`) belongs to: the one it was dragged onto if
    // `workspace` is shown and that output shows one too, else `workspace`'s.
    wlr_output* followed_output(const Toplevel& toplevel, const Workspace& workspace) const;
    void set_shown(Toplevel& toplevel, bool shown);
    // `toplevel` to the same place within `to`'s usable area as it had in `from`'s, refitted if fullscreen/maximized.
    void carry(Toplevel& toplevel, wlr_output* from, wlr_output* to);
    // kiln.ini's workspaces for `output`: its [output NAME] workspaces= list, else [workspaces] names less those
    // another output's list claims.
    std::vector<std::string> configured_on(wlr_output* output) const;
    void add_window(Toplevel& toplevel);
    void window_mapped(Toplevel& toplevel);
    void window_unmapped(Toplevel& toplevel);
    // Keyboard focus to the most recently focused window shown on `output` (none: no window keeps focus there).
    void refocus(wlr_output* output);
    // Removes `workspace` if it is empty, not active and not named.
    void drop_if_unused(Workspace* workspace);
    size_t windows_on(const Workspace& workspace) const;
    void changed();

    const Core& core_;
    Desktop& desktop_;
    Toplevels& toplevels_;
    std::vector<std::unique_ptr<Workspace>> all_;
    std::unordered_map<wlr_output*, Workspace*> active_;
    std::unordered_map<const Toplevel*, std::unique_ptr<Member>> members_;
    std::vector<std::function<void()>> observers_;
    uint64_t serial_ = 0;
    wlr_output* last_shown_on_ = nullptr;
    // The name of the workspace each output showed before its active one (for deactivate).
    std::unordered_map<wlr_output*, std::string> previous_;  // the output of the last activate(), while it is in the layout

    wl::Listener layout_change_;
    wl::Listener toplevel_add_;
    wl::Listener toplevel_remove_;
};

}  // namespace kiln::compositor
