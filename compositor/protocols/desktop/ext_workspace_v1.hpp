// ExtWorkspaceV1: ext_workspace_manager_v1 over kiln's Workspaces, for bars and docks: one workspace group per output
// (output_enter with each of the client's wl_output objects, also those bound later), its workspaces with an id, name,
// 1-D coordinates (their index in the group) and the active and urgent states; activate, deactivate, assign, remove
// and create_workspace as a client commits them, and the manager's done after each batch of changes.
//
// deactivate shows the workspace the output showed before (sway's back_and_forth; a hidden one is left as it is: the
// protocol's "no guarantee"); assign moves a workspace and its windows to the group's output (workspace_leave and
// workspace_enter, one handle throughout). kiln knows no hidden workspace. Privileged: sandboxes do not see it unless
// granted.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln::compositor {

class Workspaces;
struct Workspace;

class ExtWorkspaceV1 {
public:
    ExtWorkspaceV1(wl_display* display, wlr_output_layout* layout, Workspaces& workspaces);
    ~ExtWorkspaceV1();
    ExtWorkspaceV1(const ExtWorkspaceV1&) = delete;
    ExtWorkspaceV1& operator=(const ExtWorkspaceV1&) = delete;

    const wl_global* global() const { return global_; }

    struct Manager;
    struct Group;
    struct Handle;

private:
    // An output with workspaces, as long as the wlr_output lives: its group's id, and who binds it.
    struct Output {
        wlr_output* output;
        uint64_t group_id;
        wl::Listener bind;
        wl::Listener destroy;
    };
    // One request a client sent since its last commit.
    struct Pending {
        enum class Kind { activate, deactivate, assign, remove, create } kind;
        uint64_t id;  // a workspace's serial, or a group's id for create
        std::string name;
        uint64_t group_id = 0;  // assign: the group's id
    };

    static void bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept;
    // Brings every manager up to date on the next turn of the event loop, so one batch of changes is one done.
    void schedule();
    void sync_all();
    // Sends `manager` what changed since it was last told, then done if anything was sent (or `done`).
    void sync(Manager& manager, bool done = false);
    void commit(Manager& manager);
    // The outputs with workspaces now, watched.
    std::vector<Output*> outputs();
    Output* output_of(uint64_t group_id);
    Workspace* workspace_of(uint64_t serial);
    void output_bound(Output& output, wl_resource* resource);
    void drop(Manager& manager);

    wl_display* display_;
    wlr_output_layout* layout_;
    Workspaces& workspaces_;
    wl_global* global_;
    std::list<std::unique_ptr<Manager>> managers_;
    std::list<Output> outputs_;
    uint64_t next_group_id_ = 1;
    wl_event_source* idle_ = nullptr;
    std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);  // the model's observer outlives this

    friend struct Manager;
};

}  // namespace kiln::compositor
