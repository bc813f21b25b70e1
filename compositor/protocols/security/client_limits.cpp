// Counting each client's resources and shm mappings, refusing a client past its limits, and giving memory back.
#include "compositor/protocols/security/client_limits.hpp"

#include "compositor/log.hpp"

#include <algorithm>
#include <fstream>
#include <string_view>
#include <malloc.h>

namespace kiln::compositor {

// One mapped wl_shm pool: libwayland unmaps it when its wl_shm_pool and every wl_buffer made from it are gone.
struct ClientLimits::Pool {
    size_t holders = 1;  // the pool's resource, then its buffers
};

// A client's counts. Lives until the client and every one of its resources are gone (libwayland destroys a
// client's resources after its destroy signal).
class ClientLimits::Tracked {
public:
    Tracked(ClientLimits& owner, wl_client* client) : owner_(owner), client_(client)
    {
        created_.connect_resource_created(client, [this](void* data) { created(static_cast<wl_resource*>(data)); });
        destroyed_.connect_client_destroy(client, [this](void*) {
            gone_ = true;
            ClientLimits& owner = owner_;
            if (objects == 0)
                owner.finished(this);  // frees this
        });
    }

    void created(wl_resource* resource);
    void resource_gone(ResourceWatch* watch);

    ClientLimits& owner_;
    wl_client* client_;
    size_t objects = 0;
    size_t peak = 0;
    size_t shm_mappings = 0;
    bool gone_ = false;
    bool refused_ = false;
    // The wl_buffer id a wl_shm_pool.create_buffer request is about to make, and that pool.
    uint32_t pending_buffer_id = 0;
    Pool* pending_pool = nullptr;

private:
    void refuse(const char* what, size_t limit);

    wl::Listener created_;
    wl::Listener destroyed_;
};

// Per resource: its client's counts, and the shm pool it keeps mapped (a wl_shm_pool or a wl_buffer made from
// one). Found again from the resource through its notify function.
struct ClientLimits::ResourceWatch {
    wl_listener destroy{};
    Tracked* tracked = nullptr;
    Pool* pool = nullptr;

    static void on_destroy(wl_listener* listener, void*) noexcept
    {
        auto* watch = reinterpret_cast<ResourceWatch*>(listener);  // destroy is the first member
        watch->tracked->resource_gone(watch);
    }

    static ResourceWatch* of(wl_resource* resource)
    {
        wl_listener* listener = wl_resource_get_destroy_listener(resource, &ResourceWatch::on_destroy);
        return reinterpret_cast<ResourceWatch*>(listener);
    }
};

std::string describe_client(wl_client* client)
{
    pid_t pid = 0;
    wl_client_get_credentials(client, &pid, nullptr, nullptr);
    std::string name;
    if (pid > 0)
        std::getline(std::ifstream("/proc/" + std::to_string(pid) + "/comm"), name);
    return "pid " + std::to_string(pid) + " (" + (name.empty() ? "?" : name) + ")";
}

void ClientLimits::Tracked::created(wl_resource* resource)
{
    auto* watch = new ResourceWatch;
    watch->tracked = this;
    watch->destroy.notify = &ResourceWatch::on_destroy;
    wl_resource_add_destroy_listener(resource, &watch->destroy);
    ++objects;
    peak = std::max(peak, objects);
    if (objects > owner_.caps_.objects)
        refuse("objects", owner_.caps_.objects);

    const std::string_view kind = wl_resource_get_class(resource);
    if (kind == "wl_shm_pool") {
        watch->pool = new Pool;
        if (++shm_mappings > owner_.caps_.shm_mappings)
            refuse("wl_shm pools", owner_.caps_.shm_mappings);
    } else if (pending_pool && wl_resource_get_id(resource) == pending_buffer_id &&
               kind == "wl_buffer") {
        watch->pool = pending_pool;
        ++pending_pool->holders;
        pending_pool = nullptr;
    }
}

void ClientLimits::Tracked::resource_gone(ResourceWatch* watch)
{
    wl_list_remove(&watch->destroy.link);
    if (Pool* pool = watch->pool; pool && --pool->holders == 0) {
        if (pending_pool == pool)
            pending_pool = nullptr;
        delete pool;
        --shm_mappings;
    }
    delete watch;
    --objects;
    if (gone_ && objects == 0)
        owner_.finished(this);  // frees this
}

void ClientLimits::Tracked::refuse(const char* what, size_t limit)
{
    if (refused_)
        return;
    refused_ = true;
    log::error("client %s holds more than %zu %s, kiln's limit per client: disconnected",
               describe_client(client_).c_str(), limit, what);
    // wl_display.error no_memory, with a message saying which limit (wl_client_post_no_memory says only "no memory").
    wl_resource_post_error(wl_client_get_object(client_, 1), WL_DISPLAY_ERROR_NO_MEMORY,
                           "too many %s: kiln allows %zu per client", what, limit);
}

ClientLimits::ClientLimits(wl_display* display, RequestHooks& hooks, Caps caps)
    : display_(display), caps_(caps),
      create_buffer_(hooks.add(wl_shm_pool_interface, "create_buffer", HookOrder::client_limits,
                               [this](const wl_protocol_logger_message& message) { create_buffer(message); }))
{
    client_created_.connect_client_created(display, [this](void* data) {
        client_created(static_cast<wl_client*>(data));
    });
    // Clients already connected (none when Server makes this before opening its socket) are not counted.
}

ClientLimits::~ClientLimits()
{
    client_created_.disconnect();
    if (trim_)
        wl_event_source_remove(trim_);
    // Clients that outlive this (a host's display): their resources stop reporting here.
    for (auto& [client, tracked] : clients_) {
        if (tracked->gone_)
            continue;
        wl_client_for_each_resource(
            client,
            [](wl_resource* resource, void*) noexcept {
                if (ResourceWatch* watch = ResourceWatch::of(resource)) {
                    wl_list_remove(&watch->destroy.link);
                    if (watch->pool && --watch->pool->holders == 0)
                        delete watch->pool;
                    delete watch;
                }
                return WL_ITERATOR_CONTINUE;
            },
            nullptr);
    }
    clients_.clear();
}

void ClientLimits::client_created(wl_client* client)
{
    clients_[client] = std::make_unique<Tracked>(*this, client);
}

void ClientLimits::finished(Tracked* tracked)
{
    const bool held_many = tracked->peak >= caps_.trim_after;
    clients_.erase(tracked->client_);
    // glibc keeps freed memory for the next allocation; after a client with tens of thousands of objects that
    // is tens or hundreds of MB nobody asked for. Trimmed once the loop is idle: the client's own teardown, in
    // which this runs, is over by then.
    if (held_many && !trim_) {
        trim_ = wl_event_loop_add_idle(
            wl_display_get_event_loop(display_),
            [](void* data) noexcept {
                auto* self = static_cast<ClientLimits*>(data);
                self->trim_ = nullptr;
                malloc_trim(0);
                ++self->trims_;
            },
            this);
    }
}

void ClientLimits::create_buffer(const wl_protocol_logger_message& message)
{
    // create_buffer(id, offset, width, height, stride, format): the buffer about to be made keeps this pool mapped.
    if (message.arguments_count < 1)
        return;
    wl_client* client = wl_resource_get_client(message.resource);
    auto found = clients_.find(client);
    ResourceWatch* pool = ResourceWatch::of(message.resource);
    if (found == clients_.end() || !pool || !pool->pool)
        return;
    found->second->pending_buffer_id = message.arguments[0].n;
    found->second->pending_pool = pool->pool;
}

}  // namespace kiln::compositor
