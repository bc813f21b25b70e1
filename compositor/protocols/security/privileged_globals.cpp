// The global filter behind --restrict and security contexts: which client sees which guarded global.
#include "compositor/protocols/security/privileged_globals.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

namespace kiln::compositor {

pid_t parent_pid(pid_t pid)
{
    std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(file, line))
        return 0;
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
    const auto close = line.rfind(')');
    if (close == std::string::npos)
        return 0;
    std::istringstream rest(line.substr(close + 1));
    char state = 0;
    pid_t parent = 0;
    rest >> state >> parent;
    return rest ? parent : 0;
}

PrivilegedGlobals::PrivilegedGlobals(wl_display* display, RequestHooks& hooks, std::function<bool(pid_t)> started,
                                     std::vector<SandboxGrant> grants)
    : display_(display), started_(std::move(started)), grants_(std::move(grants))
{
    wl_display_set_global_filter(display_, &PrivilegedGlobals::filter, this);
    bind_hook_ = hooks.add(wl_registry_interface, "bind", HookOrder::hidden_globals,
                           [this](const wl_protocol_logger_message& message) { refuse_hidden_bind(message); });
}

PrivilegedGlobals::~PrivilegedGlobals()
{
    wl_display_set_global_filter(display_, nullptr, nullptr);
}

void PrivilegedGlobals::guard(const wl_global* global, std::string_view name, bool restricted)
{
    if (global)
        guarded_.push_back({global, std::string(name), restricted});
}

void PrivilegedGlobals::set_sandbox_lookup(std::function<std::optional<SandboxedIdentity>(const wl_client*)> sandbox_of)
{
    sandbox_of_ = std::move(sandbox_of);
}

bool PrivilegedGlobals::trusted(pid_t pid) const
{
    // A -s command runs through /bin/sh, which may fork before exec'ing the client: walk up a few generations.
    for (int depth = 0; depth < 16 && pid > 1; ++depth) {
        if (started_(pid))
            return true;
        pid = parent_pid(pid);
    }
    return false;
}

bool PrivilegedGlobals::trusted(const wl_client* client) const
{
    if (sandbox_of_ && sandbox_of_(client))
        return false;
    pid_t pid = 0;
    wl_client_get_credentials(const_cast<wl_client*>(client), &pid, nullptr, nullptr);
    return trusted(pid);
}

bool PrivilegedGlobals::visible(const wl_client* client, const wl_global* global) const
{
    auto guarded = std::find_if(guarded_.begin(), guarded_.end(), [global](const Guarded& g) { return g.global == global; });
    if (guarded == guarded_.end())
        return true;
    if (auto sandbox = sandbox_of_ ? sandbox_of_(client) : std::nullopt) {
        // Sandboxed: only what kiln.ini grants this app, however it was started, and of that only what the
        // context's maker could bind itself (anyone may make a context and name any app in it).
        if (guarded->restricted && !sandbox->creator_trusted)
            return false;
        for (const auto& grant : grants_)
            if (grant.app_id == sandbox->app_id)
                return std::find(grant.protocols.begin(), grant.protocols.end(), guarded->name) !=
                       grant.protocols.end();
        return false;
    }
    if (!guarded->restricted)
        return true;
    pid_t pid = 0;
    wl_client_get_credentials(const_cast<wl_client*>(client), &pid, nullptr, nullptr);
    return trusted(pid);
}

void PrivilegedGlobals::refuse_hidden_bind(const wl_protocol_logger_message& message) const
{
    // bind(name: uint, interface: string, version: uint, id: new_id), as the client sent it.
    if (message.arguments_count < 2)
        return;
    const wl_client* client = wl_resource_get_client(message.resource);
    const uint32_t name = message.arguments[0].u;
    for (const Guarded& guarded : guarded_) {
        if (name_of(guarded.global, client) != name || visible(client, guarded.global))
            continue;
        // Word for word what libwayland answers for a name no global has; its own answer, which would name the
        // hidden interface or version, is dropped, since a client gets only its first error.
        const char* interface = message.arguments[1].s;
        wl_resource_post_error(message.resource, WL_DISPLAY_ERROR_INVALID_OBJECT, "invalid global %s (%d)",
                               interface ? interface : "(null)", static_cast<int>(name));
        return;
    }
}

uint32_t PrivilegedGlobals::name_of(const wl_global* global, const wl_client* client) const
{
    // libwayland answers 0 for a global its filter hides from `client`: the filter lets everything through meanwhile.
    revealing_ = true;
    const uint32_t name = wl_global_get_name(global, client);
    revealing_ = false;
    return name;
}

bool PrivilegedGlobals::filter(const wl_client* client, const wl_global* global, void* data) noexcept
{
    const auto* self = static_cast<const PrivilegedGlobals*>(data);
    return self->revealing_ || self->visible(client, global);
}

}  // namespace kiln::compositor
