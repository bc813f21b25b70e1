// ext_workspace_manager_v1 and its group and workspace handles: what each client was told, brought up to date after
// each batch of changes to kiln's workspaces, and the requests it commits.
#include "compositor/protocols/desktop/ext_workspace_v1.hpp"

#include "compositor/shell/workspaces.hpp"

#include "ext-workspace-v1-protocol.h"

#include <algorithm>

namespace kiln::compositor {

// A group as one manager's client knows it; `resource` is null once the client destroyed it.
struct ExtWorkspaceV1::Group {
    // A wl_output object of the client's that output_enter named, until the client destroys it: wlroots makes its
    // output's objects inert and forgets them before the output's destroy signal, and output_leave must name them.
    struct Entered {
        wl_listener destroyed;
        Group* group;
        wl_resource* output;
    };

    Group(Manager& manager, uint64_t id, wl_resource* resource) : manager(manager), id(id), resource(resource) {}
    ~Group()
    {
        for (Entered& e : entered)
            wl_list_remove(&e.destroyed.link);
    }
    Group(const Group&) = delete;
    Group& operator=(const Group&) = delete;

    void enter(wl_resource* output)
    {
        if (!resource)
            return;
        ext_workspace_group_handle_v1_send_output_enter(resource, output);
        Entered& added = entered.emplace_back();
        added.group = this;
        added.output = output;
        added.destroyed.notify = [](wl_listener* listener, void*) noexcept {
            Entered* gone = wl_container_of(listener, gone, destroyed);
            wl_list_remove(&gone->destroyed.link);
            gone->group->entered.remove_if([gone](const Entered& e) { return &e == gone; });
        };
        wl_resource_add_destroy_listener(output, &added.destroyed);
    }
    // output_leave for every wl_output it entered; its output is gone or going.
    void leave()
    {
        if (left)
            return;
        left = true;
        for (Entered& e : entered) {
            if (resource)
                ext_workspace_group_handle_v1_send_output_leave(resource, e.output);
            wl_list_remove(&e.destroyed.link);
        }
        entered.clear();
    }

    Manager& manager;
    uint64_t id;
    wl_resource* resource;
    bool left = false;  // output_leave sent
    std::list<Entered> entered;
};

// A workspace as one manager's client knows it.
struct ExtWorkspaceV1::Handle {
    Manager& manager;
    uint64_t serial;    // the Workspace's, unique for kiln's life
    uint64_t group_id;
    wl_resource* resource;
    uint32_t index;
    uint32_t state;
};

struct ExtWorkspaceV1::Manager {
    ExtWorkspaceV1& owner;
    wl_resource* resource;
    wl_client* client;
    std::map<uint64_t, std::unique_ptr<Group>> groups;    // by group id
    std::map<uint64_t, std::unique_ptr<Handle>> handles;  // by workspace serial
    std::vector<Pending> pending;
};

namespace {

constexpr uint32_t workspace_capabilities =
    EXT_WORKSPACE_HANDLE_V1_WORKSPACE_CAPABILITIES_ACTIVATE | EXT_WORKSPACE_HANDLE_V1_WORKSPACE_CAPABILITIES_DEACTIVATE |
    EXT_WORKSPACE_HANDLE_V1_WORKSPACE_CAPABILITIES_REMOVE | EXT_WORKSPACE_HANDLE_V1_WORKSPACE_CAPABILITIES_ASSIGN;

void make_inert(wl_resource* resource)
{
    if (resource)
        wl_resource_set_user_data(resource, nullptr);
}

// The client's wl_output objects for `output`.
template <typename Send>
void for_client_outputs(wlr_output* output, wl_client* client, Send send)
{
    wl_resource* resource = nullptr;
    wl_resource_for_each(resource, &output->resources)
    {
        if (wl_resource_get_client(resource) == client)
            send(resource);
    }
}

}  // namespace

ExtWorkspaceV1::ExtWorkspaceV1(wl_display* display, wlr_output_layout* layout, Workspaces& workspaces)
    : display_(display), layout_(layout), workspaces_(workspaces),
      global_(wl_global_create(display, &ext_workspace_manager_v1_interface, 1, this, bind))
{
    workspaces.on_change([this, alive = std::weak_ptr<bool>(alive_)]() {
        if (!alive.expired())
            schedule();
    });
}

ExtWorkspaceV1::~ExtWorkspaceV1()
{
    if (idle_)
        wl_event_source_remove(idle_);
    while (!managers_.empty())
        drop(*managers_.front());
    if (global_)
        wl_global_destroy(global_);
}

void ExtWorkspaceV1::schedule()
{
    if (idle_)
        return;
    idle_ = wl_event_loop_add_idle(
        wl_display_get_event_loop(display_),
        [](void* data) noexcept {
            auto* self = static_cast<ExtWorkspaceV1*>(data);
            self->idle_ = nullptr;
            self->sync_all();
        },
        this);
}

void ExtWorkspaceV1::sync_all()
{
    for (const auto& manager : managers_)
        sync(*manager);
}

std::vector<ExtWorkspaceV1::Output*> ExtWorkspaceV1::outputs()
{
    std::erase_if(outputs_, [](const Output& output) { return output.output == nullptr; });
    std::vector<Output*> shown;
    wlr_output_layout_output* entry = nullptr;
    wl_list_for_each(entry, &layout_->outputs, link)
    {
        wlr_output* output = entry->output;
        if (!workspaces_.active(output))
            continue;  // no workspaces (yet): no group
        auto it = std::find_if(outputs_.begin(), outputs_.end(),
                               [output](const Output& o) { return o.output == output; });
        if (it == outputs_.end()) {
            Output& watched = outputs_.emplace_back(output, next_group_id_++);
            watched.bind.connect(&output->events.bind, [this, &watched](void* data) {
                output_bound(watched, static_cast<wlr_output_event_bind*>(data)->resource);
            });
            watched.destroy.connect(&output->events.destroy, [this, &watched](void*) {
                // The next sync removes its group; the watch is erased there, not in its own listener's callback.
                watched.bind.disconnect();
                watched.destroy.disconnect();
                watched.output = nullptr;
                schedule();
            });
            it = std::prev(outputs_.end());
        }
        shown.push_back(&*it);
    }
    return shown;
}

ExtWorkspaceV1::Output* ExtWorkspaceV1::output_of(uint64_t group_id)
{
    for (Output& output : outputs_)
        if (output.group_id == group_id && output.output)
            return &output;
    return nullptr;
}

Workspace* ExtWorkspaceV1::workspace_of(uint64_t serial)
{
    for (Output* output : outputs())
        for (Workspace* workspace : workspaces_.on(output->output))
            if (workspace->serial == serial)
                return workspace;
    return nullptr;
}

void ExtWorkspaceV1::output_bound(Output& output, wl_resource* resource)
{
    // The protocol's "a new wl_output object is bound by the client": told at once, as its own batch.
    wl_client* client = wl_resource_get_client(resource);
    for (const auto& manager : managers_) {
        if (manager->client != client)
            continue;
        auto it = manager->groups.find(output.group_id);
        if (it == manager->groups.end() || it->second->left || !it->second->resource)
            continue;
        it->second->enter(resource);
        ext_workspace_manager_v1_send_done(manager->resource);
    }
}

void ExtWorkspaceV1::sync(Manager& manager, bool done)
{
    // The model now: each shown output's workspaces in their order, the index their coordinate.
    struct Now {
        Workspace* workspace;
        Output* output;
        uint32_t index;
        uint32_t state;
    };
    std::vector<Output*> shown = outputs();
    std::vector<Now> now;
    for (Output* output : shown) {
        Workspace* active = workspaces_.active(output->output);
        uint32_t index = 0;
        for (Workspace* workspace : workspaces_.on(output->output))
            now.push_back({workspace, output, index++,
                           (workspace == active ? uint32_t{EXT_WORKSPACE_HANDLE_V1_STATE_ACTIVE} : 0u) |
                               (workspace->urgent ? uint32_t{EXT_WORKSPACE_HANDLE_V1_STATE_URGENT} : 0u)});
    }
    // A workspace assigned to another output keeps its handle: it leaves one group and enters the other (below).
    const auto in_now = [&now](uint64_t serial) {
        return std::any_of(now.begin(), now.end(), [serial](const Now& n) { return n.workspace->serial == serial; });
    };
    bool sent = done;

    // Workspaces gone: they leave their group, then are removed (the protocol's order).
    for (auto it = manager.handles.begin(); it != manager.handles.end();) {
        Handle& handle = *it->second;
        if (in_now(handle.serial)) {
            ++it;
            continue;
        }
        auto group = manager.groups.find(handle.group_id);
        if (group != manager.groups.end() && group->second->resource && handle.resource)
            ext_workspace_group_handle_v1_send_workspace_leave(group->second->resource, handle.resource);
        if (handle.resource) {
            ext_workspace_handle_v1_send_removed(handle.resource);
            make_inert(handle.resource);
        }
        it = manager.handles.erase(it);
        sent = true;
    }
    // Groups gone (their outputs left the layout or went): output_leave, then removed.
    for (auto it = manager.groups.begin(); it != manager.groups.end();) {
        Group& group = *it->second;
        if (std::any_of(shown.begin(), shown.end(), [&group](Output* o) { return o->group_id == group.id; })) {
            ++it;
            continue;
        }
        group.leave();
        if (group.resource) {
            ext_workspace_group_handle_v1_send_removed(group.resource);
            make_inert(group.resource);
        }
        it = manager.groups.erase(it);
        sent = true;
    }
    // New groups, with the outputs the client has bound.
    const int version = wl_resource_get_version(manager.resource);
    for (Output* output : shown) {
        if (manager.groups.contains(output->group_id))
            continue;
        wl_resource* resource =
            wl_resource_create(manager.client, &ext_workspace_group_handle_v1_interface, version, 0);
        if (!resource) {
            wl_client_post_no_memory(manager.client);
            return;
        }
        auto group = std::make_unique<Group>(manager, output->group_id, resource);
        static const struct ext_workspace_group_handle_v1_interface group_requests = {
            .create_workspace = [](wl_client*, wl_resource* resource, const char* name) noexcept {
                if (auto* group = static_cast<Group*>(wl_resource_get_user_data(resource)))
                    group->manager.pending.push_back({Pending::Kind::create, group->id, name});
            },
            .destroy = [](wl_client*, wl_resource* resource) noexcept { wl_resource_destroy(resource); },
        };
        wl_resource_set_implementation(resource, &group_requests, group.get(), [](wl_resource* resource) noexcept {
            if (auto* group = static_cast<Group*>(wl_resource_get_user_data(resource)))
                group->resource = nullptr;
        });
        ext_workspace_manager_v1_send_workspace_group(manager.resource, resource);
        ext_workspace_group_handle_v1_send_capabilities(
            resource, EXT_WORKSPACE_GROUP_HANDLE_V1_GROUP_CAPABILITIES_CREATE_WORKSPACE);
        Group& added = *manager.groups.emplace(output->group_id, std::move(group)).first->second;
        for_client_outputs(output->output, manager.client, [&added](wl_resource* output_resource) {
            added.enter(output_resource);
        });
        sent = true;
    }
    // New workspaces, and what changed of the others.
    for (const Now& n : now) {
        const auto coordinates = [&n](wl_resource* resource) {
            wl_array array;
            wl_array_init(&array);
            if (auto* slot = static_cast<uint32_t*>(wl_array_add(&array, sizeof(uint32_t))))
                *slot = n.index;
            ext_workspace_handle_v1_send_coordinates(resource, &array);
            wl_array_release(&array);
        };
        auto known = manager.handles.find(n.workspace->serial);
        if (known != manager.handles.end()) {
            Handle& handle = *known->second;
            if (handle.group_id != n.output->group_id) {
                // Assigned to another output: workspace_leave on the old group, workspace_enter on the new.
                auto old_group = manager.groups.find(handle.group_id);
                if (old_group != manager.groups.end() && old_group->second->resource && handle.resource)
                    ext_workspace_group_handle_v1_send_workspace_leave(old_group->second->resource, handle.resource);
                auto new_group = manager.groups.find(n.output->group_id);
                if (new_group != manager.groups.end() && new_group->second->resource && handle.resource)
                    ext_workspace_group_handle_v1_send_workspace_enter(new_group->second->resource, handle.resource);
                handle.group_id = n.output->group_id;
                sent = true;
            }
            if (handle.index != n.index) {
                handle.index = n.index;
                if (handle.resource)
                    coordinates(handle.resource);
                sent = true;
            }
            if (handle.state != n.state) {
                handle.state = n.state;
                if (handle.resource)
                    ext_workspace_handle_v1_send_state(handle.resource, n.state);
                sent = true;
            }
            continue;
        }
        wl_resource* resource = wl_resource_create(manager.client, &ext_workspace_handle_v1_interface, version, 0);
        if (!resource) {
            wl_client_post_no_memory(manager.client);
            return;
        }
        auto handle = std::make_unique<Handle>(manager, n.workspace->serial, n.output->group_id, resource, n.index,
                                               n.state);
        static const struct ext_workspace_handle_v1_interface handle_requests = {
            .destroy = [](wl_client*, wl_resource* resource) noexcept { wl_resource_destroy(resource); },
            .activate = [](wl_client*, wl_resource* resource) noexcept {
                if (auto* handle = static_cast<Handle*>(wl_resource_get_user_data(resource)))
                    handle->manager.pending.push_back({Pending::Kind::activate, handle->serial, {}});
            },
            .deactivate = [](wl_client*, wl_resource* resource) noexcept {
                if (auto* handle = static_cast<Handle*>(wl_resource_get_user_data(resource)))
                    handle->manager.pending.push_back({Pending::Kind::deactivate, handle->serial, {}});
            },
            .assign = [](wl_client*, wl_resource* resource, wl_resource* group_resource) noexcept {
                auto* handle = static_cast<Handle*>(wl_resource_get_user_data(resource));
                auto* group = static_cast<Group*>(wl_resource_get_user_data(group_resource));
                // A removed group (inert) or one of another manager of the client's names no group of this one.
                if (handle && group && &group->manager == &handle->manager)
                    handle->manager.pending.push_back({Pending::Kind::assign, handle->serial, {}, group->id});
            },
            .remove = [](wl_client*, wl_resource* resource) noexcept {
                if (auto* handle = static_cast<Handle*>(wl_resource_get_user_data(resource)))
                    handle->manager.pending.push_back({Pending::Kind::remove, handle->serial, {}});
            },
        };
        wl_resource_set_implementation(resource, &handle_requests, handle.get(), [](wl_resource* resource) noexcept {
            if (auto* handle = static_cast<Handle*>(wl_resource_get_user_data(resource)))
                handle->resource = nullptr;
        });
        ext_workspace_manager_v1_send_workspace(manager.resource, resource);
        // Stable across sessions as far as kiln's names are: the output's name and the workspace's.
        const std::string id = std::string(n.output->output->name) + "/" + n.workspace->name;
        ext_workspace_handle_v1_send_id(resource, id.c_str());
        ext_workspace_handle_v1_send_name(resource, n.workspace->name.c_str());
        coordinates(resource);
        ext_workspace_handle_v1_send_state(resource, n.state);
        ext_workspace_handle_v1_send_capabilities(resource, workspace_capabilities);
        auto group = manager.groups.find(n.output->group_id);
        if (group != manager.groups.end() && group->second->resource)
            ext_workspace_group_handle_v1_send_workspace_enter(group->second->resource, resource);
        manager.handles.emplace(n.workspace->serial, std::move(handle));
        sent = true;
    }
    if (sent)
        ext_workspace_manager_v1_send_done(manager.resource);
}

void ExtWorkspaceV1::commit(Manager& manager)
{
    // In the order sent; the model tells every manager of the outcome as one batch (schedule()).
    std::vector<Pending> pending = std::move(manager.pending);
    manager.pending.clear();
    for (const Pending& request : pending) {
        switch (request.kind) {
        case Pending::Kind::activate:
            if (Workspace* workspace = workspace_of(request.id))
                workspaces_.activate(*workspace);
            break;
        case Pending::Kind::deactivate:
            if (Workspace* workspace = workspace_of(request.id))
                workspaces_.deactivate(*workspace);  // back to the one shown before; else nothing
            break;
        case Pending::Kind::assign:
            if (Workspace* workspace = workspace_of(request.id))
                if (Output* output = output_of(request.group_id))
                    workspaces_.assign(*workspace, output->output);  // refused for a name taken there
            break;
        case Pending::Kind::remove:
            if (Workspace* workspace = workspace_of(request.id))
                workspaces_.remove(*workspace);  // refused while it is shown or holds windows
            break;
        case Pending::Kind::create:
            if (Output* output = output_of(request.id); output && !request.name.empty())
                workspaces_.create(output->output, request.name);
            break;
        }
    }
}

void ExtWorkspaceV1::drop(Manager& manager)
{
    for (const auto& [id, group] : manager.groups)
        make_inert(group->resource);
    for (const auto& [serial, handle] : manager.handles)
        make_inert(handle->resource);
    make_inert(manager.resource);
    managers_.remove_if([&manager](const auto& m) { return m.get() == &manager; });
}

void ExtWorkspaceV1::bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
{
    wl_resource* resource =
        wl_resource_create(client, &ext_workspace_manager_v1_interface, static_cast<int>(version), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    auto* self = static_cast<ExtWorkspaceV1*>(data);
    static const struct ext_workspace_manager_v1_interface requests = {
        .commit = [](wl_client*, wl_resource* resource) noexcept {
            if (auto* manager = static_cast<Manager*>(wl_resource_get_user_data(resource)))
                manager->owner.commit(*manager);
        },
        .stop = [](wl_client*, wl_resource* resource) noexcept {
            // finished is a destructor: the object is gone, and a request on it is libwayland's invalid_object.
            ext_workspace_manager_v1_send_finished(resource);
            wl_resource_destroy(resource);
        },
    };
    Manager& manager = *self->managers_.emplace_back(std::make_unique<Manager>(*self, resource, client));
    wl_resource_set_implementation(resource, &requests, &manager, [](wl_resource* resource) noexcept {
        if (auto* manager = static_cast<Manager*>(wl_resource_get_user_data(resource)))
            manager->owner.drop(*manager);
    });
    self->sync(manager, true);  // done even with no output yet: the client knows the list is complete
}

}  // namespace kiln::compositor
