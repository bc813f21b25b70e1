// WindowRules: kiln.ini's [rule] sections applied as a window maps: one whose tag (xdg-toplevel-tag-v1) and app_id
// match a rule opens on the rule's workspace and/or output instead of the active workspace under the pointer.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>

namespace kiln::compositor {

struct Core;
class Toplevel;
class Toplevels;
class Workspaces;

class WindowRules {
public:
    // `tag_of` answers a window's xdg-toplevel-tag (empty: none), from the protocol room that keeps them.
    using TagOf = std::function<std::string(const Toplevel&)>;

    WindowRules(const Core& core, Toplevels& toplevels, Workspaces& workspaces, TagOf tag_of);
    ~WindowRules();
    WindowRules(const WindowRules&) = delete;
    WindowRules& operator=(const WindowRules&) = delete;

    // How many windows a rule has moved (stats: rules.applied).
    uint64_t applied() const { return applied_; }

private:
    void mapped(Toplevel& toplevel);

    const Core& core_;
    Workspaces& workspaces_;
    TagOf tag_of_;
    uint64_t applied_ = 0;
    // One map listener per window, made after Workspaces' own (it is made first): the window has joined the active
    // workspace when a rule moves it on.
    std::unordered_map<const Toplevel*, std::unique_ptr<wl::Listener>> maps_;
    wl::Listener add_;
    wl::Listener remove_;
};

}  // namespace kiln::compositor
