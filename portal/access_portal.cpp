// AccessPortal: AccessDialog answered at once from --deny and --allow; the frontend (xdg-desktop-portal) keeps the
// answer in its permission store, so each app is asked once per permission.
#include "access_portal.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace portal {

namespace {

constexpr uint32_t response_granted = 0;
constexpr uint32_t response_denied = 2;

bool names(const std::vector<std::string>& list, std::string_view app_id, bool star) {
    return std::any_of(list.begin(), list.end(),
                       [&](const std::string& entry) { return (star && entry == "*") || entry == app_id; });
}

// The `choices` option (a(ssa(ss)s): id, label, values, initial) as results want them (a(ss): id, chosen): the
// initial value of each, since nobody is asked to change it.
bool read_choices(sd_bus_message* message, std::vector<std::pair<std::string, std::string>>& choices) {
    if (sd_bus_message_enter_container(message, 'a', "{sv}") < 0)
        return false;
    while (sd_bus_message_enter_container(message, 'e', "sv") > 0) {
        const char* key = nullptr;
        if (sd_bus_message_read(message, "s", &key) < 0)
            return false;
        if (std::string_view(key) != "choices" || sd_bus_message_enter_container(message, 'v', "a(ssa(ss)s)") <= 0) {
            if (sd_bus_message_skip(message, "v") < 0)
                return false;
        } else {
            if (sd_bus_message_enter_container(message, 'a', "(ssa(ss)s)") < 0)
                return false;
            while (sd_bus_message_enter_container(message, 'r', "ssa(ss)s") > 0) {
                const char *id = nullptr, *label = nullptr, *initial = nullptr;
                if (sd_bus_message_read(message, "ss", &id, &label) < 0 || sd_bus_message_skip(message, "a(ss)") < 0 ||
                    sd_bus_message_read(message, "s", &initial) < 0 || sd_bus_message_exit_container(message) < 0)
                    return false;
                choices.emplace_back(id, initial);
            }
            if (sd_bus_message_exit_container(message) < 0 || sd_bus_message_exit_container(message) < 0)
                return false;
        }
        if (sd_bus_message_exit_container(message) < 0)
            return false;
    }
    return sd_bus_message_exit_container(message) >= 0;
}

int reply(sd_bus_message* message, uint32_t response,
          const std::vector<std::pair<std::string, std::string>>& choices) {
    sd_bus_message* answer = nullptr;
    int r = sd_bus_message_new_method_return(message, &answer);
    if (r >= 0)
        r = sd_bus_message_append(answer, "u", response);
    if (r >= 0)
        r = sd_bus_message_open_container(answer, 'a', "{sv}");
    if (r >= 0 && !choices.empty()) {
        r = sd_bus_message_open_container(answer, 'e', "sv");
        if (r >= 0)
            r = sd_bus_message_append(answer, "s", "choices");
        if (r >= 0)
            r = sd_bus_message_open_container(answer, 'v', "a(ss)");
        if (r >= 0)
            r = sd_bus_message_open_container(answer, 'a', "(ss)");
        for (const auto& [id, chosen] : choices)
            if (r >= 0)
                r = sd_bus_message_append(answer, "(ss)", id.c_str(), chosen.c_str());
        for (int i = 0; i < 3 && r >= 0; ++i)
            r = sd_bus_message_close_container(answer);
    }
    if (r >= 0)
        r = sd_bus_message_close_container(answer);
    if (r >= 0)
        r = sd_bus_send(nullptr, answer, nullptr);
    sd_bus_message_unref(answer);
    return r;
}

}  // namespace

AccessAnswer access_answer(const PortalOptions& options, std::string_view app_id) {
    if (names(options.denied, app_id, true))
        return AccessAnswer::denied_listed;
    if (app_id.empty() || names(options.allowed, app_id, false))
        return AccessAnswer::granted;
    return AccessAnswer::denied_sandboxed;
}

bool refused(const PortalOptions& options, std::string_view app_id, const char* what) {
    const std::string id(app_id);
    switch (access_answer(options, app_id)) {
    case AccessAnswer::granted:
        return false;
    case AccessAnswer::denied_listed:
        std::fprintf(stderr, "kiln-portal: %s for app '%s' denied by --deny\n", what, id.c_str());
        return true;
    case AccessAnswer::denied_sandboxed:
        std::fprintf(stderr, "kiln-portal: %s for sandboxed app '%s' denied (grant it with --allow %s)\n", what,
                     id.c_str(), id.c_str());
        return true;
    }
    return true;
}

AccessPortal::AccessPortal(sd_bus* bus, const PortalOptions& options) : options_(options) {
    static const sd_bus_vtable vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("AccessDialog", "osssssa{sv}", "ua{sv}", access_dialog, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
    };
    sd_bus_add_object_vtable(bus, &slot_, "/org/freedesktop/portal/desktop", "org.freedesktop.impl.portal.Access",
                             vtable, this);
}

AccessPortal::~AccessPortal() { sd_bus_slot_unref(slot_); }

int AccessPortal::access_dialog(sd_bus_message* message, void* data, sd_bus_error*) noexcept {
    auto* self = static_cast<AccessPortal*>(data);
    const char *handle = nullptr, *app_id = nullptr, *parent = nullptr, *title = nullptr, *subtitle = nullptr,
               *body = nullptr;
    std::vector<std::pair<std::string, std::string>> choices;
    if (sd_bus_message_read(message, "osssss", &handle, &app_id, &parent, &title, &subtitle, &body) < 0 ||
        !read_choices(message, choices))
        return reply(message, response_denied, {});
    switch (access_answer(self->options_, app_id)) {
    case AccessAnswer::granted:
        std::fprintf(stderr, "kiln-portal: granted '%s' to app '%s'\n", title, app_id);
        return reply(message, response_granted, choices);
    case AccessAnswer::denied_listed:
        std::fprintf(stderr, "kiln-portal: '%s' for app '%s' denied by --deny\n", title, app_id);
        break;
    case AccessAnswer::denied_sandboxed:
        std::fprintf(stderr, "kiln-portal: '%s' for sandboxed app '%s' denied (grant it with --allow %s)\n", title,
                     app_id, app_id);
        break;
    }
    return reply(message, response_denied, {});
}

}  // namespace portal
