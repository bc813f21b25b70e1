// The global filter behind --restrict: hidden globals for clients whose process kiln did not start.
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

PrivilegedGlobals::PrivilegedGlobals(wl_display* display, std::function<bool(pid_t)> started)
    : display_(display), started_(std::move(started))
{
    wl_display_set_global_filter(display_, &PrivilegedGlobals::filter, this);
}

PrivilegedGlobals::~PrivilegedGlobals()
{
    wl_display_set_global_filter(display_, nullptr, nullptr);
}

void PrivilegedGlobals::hide(const wl_global* global)
{
    if (global)
        hidden_.push_back(global);
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

bool PrivilegedGlobals::filter(const wl_client* client, const wl_global* global, void* data) noexcept
{
    auto* self = static_cast<PrivilegedGlobals*>(data);
    if (std::find(self->hidden_.begin(), self->hidden_.end(), global) == self->hidden_.end())
        return true;
    pid_t pid = 0;
    wl_client_get_credentials(const_cast<wl_client*>(client), &pid, nullptr, nullptr);
    return self->trusted(pid);
}

}  // namespace kiln::compositor
