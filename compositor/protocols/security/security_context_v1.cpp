// wp_security_context_manager_v1, its wp_security_context_v1 objects, the listening sockets they commit and the
// sandboxed clients accepted there.
#include "compositor/protocols/security/security_context_v1.hpp"

#include "compositor/listener.hpp"
#include "compositor/log.hpp"
#include "compositor/protocols/security/client_limits.hpp"

#include "security-context-v1-protocol.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <sys/socket.h>
#include <unistd.h>

namespace kiln::compositor {

// One committed context: kiln accepts on its socket until the close fd hangs up.
class SecurityContextV1::ListenSocket {
public:
    ListenSocket(SecurityContextV1& owner, int listen_fd, int close_fd, Metadata metadata, pid_t creator)
        : owner_(owner), listen_fd_(listen_fd), close_fd_(close_fd), creator_(creator),
          metadata_(std::make_shared<const Metadata>(std::move(metadata)))
    {
        wl_event_loop* loop = wl_display_get_event_loop(owner.display_);
        accept_ = wl_event_loop_add_fd(loop, listen_fd_, WL_EVENT_READABLE, &ListenSocket::on_accept, this);
        // No events asked for: epoll still reports the hangup and error this waits for.
        close_ = wl_event_loop_add_fd(loop, close_fd_, 0, &ListenSocket::on_close, this);
    }

    ~ListenSocket()
    {
        // libwayland polls its own duplicates of the fds; these are the ones the engine sent.
        if (accept_)
            wl_event_source_remove(accept_);
        if (close_)
            wl_event_source_remove(close_);
        close(listen_fd_);
        close(close_fd_);
        owner_.release(creator_);
    }

    ListenSocket(const ListenSocket&) = delete;
    ListenSocket& operator=(const ListenSocket&) = delete;

    bool started() const { return accept_ && close_; }

private:
    static int on_accept(int fd, uint32_t mask, void* data) noexcept
    {
        auto* self = static_cast<ListenSocket*>(data);
        if (mask & (WL_EVENT_HANGUP | WL_EVENT_ERROR)) {
            self->owner_.stop(self);  // the engine's socket is gone: nothing more can connect
            return 0;
        }
        const int client_fd = accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (client_fd < 0) {
            if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
                log::error("security context (%s): accept failed: %s",
                           self->metadata_->app_id.c_str(), std::strerror(errno));
            return 0;
        }
        self->owner_.accepted(client_fd, self->metadata_);
        return 0;
    }

    static int on_close(int, uint32_t mask, void* data) noexcept
    {
        auto* self = static_cast<ListenSocket*>(data);
        if (mask & (WL_EVENT_HANGUP | WL_EVENT_ERROR))
            self->owner_.stop(self);  // frees self; libwayland skips a removed source's later events
        return 0;
    }

    SecurityContextV1& owner_;
    int listen_fd_;
    int close_fd_;
    pid_t creator_;  // counted in the owner's per_creator_ until this goes
    std::shared_ptr<const Metadata> metadata_;  // shared with the clients accepted here, who outlive the socket
    wl_event_source* accept_ = nullptr;
    wl_event_source* close_ = nullptr;
};

// A client accepted on a context's socket, with that context, until the client goes.
class SecurityContextV1::SandboxedClient {
public:
    explicit SandboxedClient(std::shared_ptr<const Metadata> metadata) : metadata(std::move(metadata)) {}
    std::shared_ptr<const Metadata> metadata;
    wl::Listener destroy;
};

namespace {

// A context object before and after commit; owned by its resource. Until commit it holds the engine's fds.
struct Context {
    SecurityContextV1* owner = nullptr;  // null once kiln's side is gone
    int listen_fd = -1;
    int close_fd = -1;
    pid_t creator = 0;  // counted against this process's contexts until committed (then the listener is) or destroyed
    SecurityContextV1::Metadata metadata;
    bool engine_set = false;
    bool app_id_set = false;
    bool instance_id_set = false;
    bool committed = false;
};

Context* context_from(wl_resource* resource)
{
    return static_cast<Context*>(wl_resource_get_user_data(resource));
}

void destroy_request(wl_client*, wl_resource* resource) noexcept
{
    wl_resource_destroy(resource);
}

// A metadata request: refused after commit, twice, or empty (an empty name identifies nothing).
bool set_once(wl_resource* resource, bool& set, std::string& field, const char* value, const char* what)
{
    Context* context = context_from(resource);
    if (context->committed) {
        wl_resource_post_error(resource, WP_SECURITY_CONTEXT_V1_ERROR_ALREADY_USED,
                               "set_%s after commit", what);
        return false;
    }
    if (set) {
        wl_resource_post_error(resource, WP_SECURITY_CONTEXT_V1_ERROR_ALREADY_SET, "%s already set", what);
        return false;
    }
    if (!value || !*value) {
        wl_resource_post_error(resource, WP_SECURITY_CONTEXT_V1_ERROR_INVALID_METADATA, "empty %s", what);
        return false;
    }
    set = true;
    field = value;
    return true;
}

void set_sandbox_engine(wl_client*, wl_resource* resource, const char* name) noexcept
{
    Context* context = context_from(resource);
    set_once(resource, context->engine_set, context->metadata.sandbox_engine, name, "sandbox_engine");
}

void set_app_id(wl_client*, wl_resource* resource, const char* app_id) noexcept
{
    Context* context = context_from(resource);
    set_once(resource, context->app_id_set, context->metadata.app_id, app_id, "app_id");
}

void set_instance_id(wl_client*, wl_resource* resource, const char* instance_id) noexcept
{
    Context* context = context_from(resource);
    set_once(resource, context->instance_id_set, context->metadata.instance_id, instance_id, "instance_id");
}

void commit(wl_client*, wl_resource* resource) noexcept
{
    Context* context = context_from(resource);
    if (context->committed) {
        wl_resource_post_error(resource, WP_SECURITY_CONTEXT_V1_ERROR_ALREADY_USED, "commit twice");
        return;
    }
    context->committed = true;
    if (!context->owner)
        return;  // kiln's side is gone: the fds are closed with the object
    context->owner->listen(context->listen_fd, context->close_fd, std::move(context->metadata), context->creator);
    context->listen_fd = context->close_fd = -1;  // the listener has them now
}

const struct wp_security_context_v1_interface context_requests = {
    .destroy = destroy_request,
    .set_sandbox_engine = set_sandbox_engine,
    .set_app_id = set_app_id,
    .set_instance_id = set_instance_id,
    .commit = commit,
};

void context_destroyed(wl_resource* resource) noexcept
{
    wl_list_remove(wl_resource_get_link(resource));
    Context* context = context_from(resource);
    // Destroyed before commit: the engine's fds were never used.
    if (!context->committed && context->owner)
        context->owner->release(context->creator);
    if (context->listen_fd >= 0)
        close(context->listen_fd);
    if (context->close_fd >= 0)
        close(context->close_fd);
    delete context;
}

bool is_listening_socket(int fd)
{
    int listening = 0;
    socklen_t size = sizeof(listening);
    return getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) == 0 && listening;
}

void create_listener(wl_client* client, wl_resource* manager, uint32_t id, int32_t listen_fd, int32_t close_fd) noexcept
{
    auto* owner = static_cast<SecurityContextV1*>(wl_resource_get_user_data(manager));
    if (owner && owner->context_of(client)) {
        close(listen_fd);
        close(close_fd);
        wl_resource_post_error(manager, WP_SECURITY_CONTEXT_MANAGER_V1_ERROR_NESTED,
                               "a client with a security context may not create one");
        return;
    }
    if (!is_listening_socket(listen_fd)) {
        close(listen_fd);
        close(close_fd);
        wl_resource_post_error(manager, WP_SECURITY_CONTEXT_MANAGER_V1_ERROR_INVALID_LISTEN_FD,
                               "listen_fd is not a listening socket");
        return;
    }
    pid_t creator = 0;
    wl_client_get_credentials(client, &creator, nullptr, nullptr);
    if (owner && !owner->reserve(creator)) {
        close(listen_fd);
        close(close_fd);
        log::error("client %s holds %zu security contexts, kiln's limit per process: disconnected",
                   describe_client(client).c_str(), SecurityContextV1::max_per_creator);
        wl_resource_post_error(wl_client_get_object(client, 1), WL_DISPLAY_ERROR_NO_MEMORY,
                               "too many security contexts: kiln allows %zu per process",
                               SecurityContextV1::max_per_creator);
        return;
    }
    wl_resource* resource =
        wl_resource_create(client, &wp_security_context_v1_interface, wl_resource_get_version(manager), id);
    auto* context = new (std::nothrow) Context;
    if (!resource || !context) {
        if (resource)
            wl_resource_destroy(resource);
        delete context;
        close(listen_fd);
        close(close_fd);
        if (owner)
            owner->release(creator);
        wl_client_post_no_memory(client);
        return;
    }
    context->owner = owner;
    context->creator = creator;
    context->listen_fd = listen_fd;
    context->close_fd = close_fd;
    // Asked now, while the maker is connected and its process is the one its socket names.
    context->metadata.creator_trusted = owner && owner->trusts(client);
    wl_resource_set_implementation(resource, &context_requests, context, context_destroyed);
    if (owner)
        owner->add_context(resource);
    else
        wl_list_init(wl_resource_get_link(resource));
}

const struct wp_security_context_manager_v1_interface manager_requests = {
    .destroy = destroy_request,
    .create_listener = create_listener,
};

void manager_destroyed(wl_resource* resource) noexcept
{
    wl_list_remove(wl_resource_get_link(resource));
}

void bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
{
    wl_resource* resource =
        wl_resource_create(client, &wp_security_context_manager_v1_interface, static_cast<int>(version), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    wl_resource_set_implementation(resource, &manager_requests, data, manager_destroyed);
    static_cast<SecurityContextV1*>(data)->add_manager(resource);
}

}  // namespace

SecurityContextV1::SecurityContextV1(wl_display* display, std::function<bool(const wl_client*)> trusts)
    : display_(display), trusts_(std::move(trusts)),
      global_(wl_global_create(display, &wp_security_context_manager_v1_interface, 1, this, bind))
{
    wl_list_init(&managers_);
    wl_list_init(&contexts_);
}

SecurityContextV1::~SecurityContextV1()
{
    // Managers and contexts that outlive kiln's side go inert; an uncommitted context closes its fds with itself.
    wl_resource* resource = nullptr;
    wl_resource* next = nullptr;
    wl_resource_for_each_safe(resource, next, &managers_) {
        wl_resource_set_user_data(resource, nullptr);
        wl_list_init(wl_resource_get_link(resource));
    }
    wl_resource_for_each_safe(resource, next, &contexts_) {
        context_from(resource)->owner = nullptr;
        wl_list_init(wl_resource_get_link(resource));
    }
    listeners_.clear();
    clients_.clear();
    if (global_)
        wl_global_destroy(global_);
}

void SecurityContextV1::add_manager(wl_resource* manager)
{
    wl_list_insert(&managers_, wl_resource_get_link(manager));
}

void SecurityContextV1::add_context(wl_resource* context)
{
    wl_list_insert(&contexts_, wl_resource_get_link(context));
}

const SecurityContextV1::Metadata* SecurityContextV1::context_of(const wl_client* client) const
{
    auto found = clients_.find(client);
    return found == clients_.end() ? nullptr : found->second->metadata.get();
}

void SecurityContextV1::listen(int listen_fd, int close_fd, Metadata metadata, pid_t creator)
{
    auto socket = std::make_unique<ListenSocket>(*this, listen_fd, close_fd, std::move(metadata), creator);
    if (!socket->started()) {
        log::error("security context: cannot watch its sockets: %s", std::strerror(errno));
        return;  // the socket's destructor closes both fds and gives back the creator's count
    }
    listeners_.push_back(std::move(socket));
}

bool SecurityContextV1::reserve(pid_t creator)
{
    size_t& held = per_creator_[creator];
    if (held >= max_per_creator)
        return false;
    ++held;
    return true;
}

void SecurityContextV1::release(pid_t creator)
{
    auto found = per_creator_.find(creator);
    if (found != per_creator_.end() && --found->second == 0)
        per_creator_.erase(found);
}

void SecurityContextV1::stop(ListenSocket* socket)
{
    listeners_.remove_if([socket](const auto& s) { return s.get() == socket; });
}

void SecurityContextV1::accepted(int fd, const std::shared_ptr<const Metadata>& metadata)
{
    wl_client* client = wl_client_create(display_, fd);
    if (!client) {
        close(fd);
        log::error("security context (%s): cannot create a client: %s", metadata->app_id.c_str(),
                   std::strerror(errno));
        return;
    }
    // Marked before the client's first request is read (not before this callback returns): its registry sees
    // only what a sandboxed client may.
    auto entry = std::make_unique<SandboxedClient>(metadata);
    entry->destroy.connect_client_destroy(client, [this, client](void*) {
        // The closure dies with the entry: copy what the erase needs out of it first.
        SecurityContextV1& owner = *this;
        const wl_client* gone = client;
        owner.clients_.erase(gone);
    });
    clients_[client] = std::move(entry);
}

}  // namespace kiln::compositor
