// AccessPortal: org.freedesktop.impl.portal.Access, the yes-or-no question other portals put to the user (a
// Screenshot taken without a dialog, the camera). kiln shows no dialogs: kiln-portal answers by its policy.
#pragma once

#include <string_view>

#include <systemd/sd-bus.h>

#include "portal_options.hpp"

namespace portal {

enum class AccessAnswer {
    granted,           // an unsandboxed app (which could reach the same thing without a portal), or one --allow names
    denied_listed,     // --deny names the app (or is "*")
    denied_sandboxed,  // a sandboxed app that --allow does not name: a sandbox gets nothing unasked
};

// The policy alone, for its unit test: unsandboxed apps have the id "".
AccessAnswer access_answer(const PortalOptions& options, std::string_view app_id);

// The same policy for what kiln-portal gives without asking Access first (a screen cast, an interactive screenshot,
// a colour pick): whether `what` is refused to `app_id`, with a line on stderr saying why and how to grant it.
bool refused(const PortalOptions& options, std::string_view app_id, const char* what);

class AccessPortal {
public:
    AccessPortal(sd_bus* bus, const PortalOptions& options);
    ~AccessPortal();
    AccessPortal(const AccessPortal&) = delete;
    AccessPortal& operator=(const AccessPortal&) = delete;

private:
    static int access_dialog(sd_bus_message* message, void* data, sd_bus_error* error) noexcept;

    const PortalOptions& options_;
    sd_bus_slot* slot_ = nullptr;
};

}  // namespace portal
