// PortalOptions: what kiln-portal's command line and environment chose (sources, who is granted or refused, rate).
#pragma once

#include <string>
#include <vector>

namespace portal {

struct PortalOptions {
    std::string output;                // the output to share; empty: the first kiln announces
    std::string window;                // the window to share (app_id or title); empty or unmatched: the newest
    std::vector<std::string> denied;   // app ids refused ("*": every app); unsandboxed apps have the id ""
    std::vector<std::string> allowed;  // sandboxed app ids granted Access, screen casts, colour picks
    int max_fps = 60;
};

}  // namespace portal
