// PortalOptions: what kiln-portal's command line and environment chose (sources, who is granted or refused, rate).
#pragma once

#include <string>
#include <vector>

namespace portal {

struct PortalOptions {
    std::string output;                // the output to share; empty: the chooser's pick, else kiln's focused one
    std::string window;                // the window to share (app_id or title; unmatched: the newest); empty: the
                                       // chooser's pick, else kiln's focused one
    std::string chooser;               // a command (/bin/sh -c) that picks the source; empty: none
    std::vector<std::string> denied;   // app ids refused ("*": every app); unsandboxed apps have the id ""
    std::vector<std::string> allowed;  // sandboxed app ids granted Access, screen casts, colour picks
    int max_fps = 60;
};

}  // namespace portal
