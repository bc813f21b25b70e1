// Commands: what each `kiln msg` request asks (outputs, workspaces, windows, focus, move, close, workspace,
// move-workspace, reload, subscribe, version), its fields checked by name and type before anything changes, answered as one JSON line.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace kiln::compositor::ipc {

class DesktopControl;

class Commands {
public:
    // `reload` reads kiln.ini again: empty when it did, else why it did not.
    Commands(DesktopControl& desktop, std::function<std::string()> reload)
        : desktop_(desktop), reload_(std::move(reload))
    {
    }

    struct Answer {
        std::string reply;       // one JSON object, no newline
        bool subscribe = false;  // the client asked for events from now on
    };
    Answer answer(std::string_view line);

    // The longest workspace name a request may give.
    static constexpr size_t max_name = 64;

private:
    DesktopControl& desktop_;
    std::function<std::string()> reload_;
};

}  // namespace kiln::compositor::ipc
