// The global filter behind --restrict and security contexts: which client sees which guarded global.
#include "compositor/protocols/privileged_globals.hpp"

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

PrivilegedGlobals::PrivilegedGlobals(wl_display* display, std::function<bool(pid_t)> started,
                                     std::vector<SandboxGrant> grants)
    : display_(display), started_(std::move(started)), grants_(std::move(grants))
{
    wl_display_set_global_filter(display_, &PrivilegedGlobals::filter, this);
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

void PrivilegedGlobals::set_sandbox_lookup(std::function<const std::string*(const wl_client*)> app_id_of)
{
    app_id_of_ = std::move(app_id_of);
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

bool PrivilegedGlobals::visible(const wl_client* client, const wl_global* global) const
{
    auto guarded = std::find_if(guarded_.begin(), guarded_.end(), [global](const Guarded& g) { return g.global == global; });
    if (guarded == guarded_.end())
        return true;
    if (const std::string* app_id = app_id_of_ ? app_id_of_(client) : nullptr) {
        // Sandboxed: only what kiln.ini grants this app, however it was started.
        for (const auto& grant : grants_)
            if (grant.app_id == *app_id)
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

bool PrivilegedGlobals::filter(const wl_client* client, const wl_global* global, void* data) noexcept
{
    return static_cast<const PrivilegedGlobals*>(data)->visible(client, global);
}

}  // namespace kiln::compositor
