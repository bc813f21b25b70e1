// restore_data: ("kiln", 1, <{"source_type": <u>, "output": <s>} or {"source_type", "app_id", "title"}>).
#include "restore_data.hpp"

#include <cstring>

namespace portal {

namespace {

constexpr const char* vendor = "kiln";
constexpr uint32_t version = 1;

// Reads the a{sv} of our data; false where the message cannot be read.
bool read_fields(sd_bus_message* message, SourceChoice& choice) {
    if (sd_bus_message_enter_container(message, 'a', "{sv}") < 0)
        return false;
    int entered;
    while ((entered = sd_bus_message_enter_container(message, 'e', "sv")) > 0) {
        const char* key = nullptr;
        if (sd_bus_message_read(message, "s", &key) < 0)
            return false;
        const char* text = nullptr;
        int read;
        if (std::strcmp(key, "source_type") == 0) {
            read = sd_bus_message_read(message, "v", "u", &choice.type);
        } else if (std::strcmp(key, "output") == 0 || std::strcmp(key, "app_id") == 0 ||
                   std::strcmp(key, "title") == 0) {
            std::string& field = key[0] == 'o' ? choice.output : key[0] == 'a' ? choice.app_id : choice.title;
            read = sd_bus_message_read(message, "v", "s", &text);
            if (read >= 0)
                field = text;
        } else {
            read = sd_bus_message_skip(message, "v");
        }
        if (read < 0 || sd_bus_message_exit_container(message) < 0)
            return false;
    }
    return entered >= 0 && sd_bus_message_exit_container(message) >= 0;
}

}  // namespace

bool read_restore_data(sd_bus_message* message, SourceChoice& choice) {
    choice = {};
    if (sd_bus_message_enter_container(message, 'v', "(suv)") < 0 ||
        sd_bus_message_enter_container(message, 'r', "suv") < 0)
        return false;
    const char* who = nullptr;
    uint32_t what = 0;
    if (sd_bus_message_read(message, "su", &who, &what) < 0)
        return false;
    bool ours = std::strcmp(who, vendor) == 0 && what == version;
    const char* contents = nullptr;
    if (sd_bus_message_peek_type(message, nullptr, &contents) < 0)
        return false;
    if (ours && contents && std::strcmp(contents, "a{sv}") == 0) {
        if (sd_bus_message_enter_container(message, 'v', "a{sv}") < 0 || !read_fields(message, choice) ||
            sd_bus_message_exit_container(message) < 0)
            return false;
    } else if (sd_bus_message_skip(message, "v") < 0) {
        return false;
    }
    if (!ours)
        choice = {};
    return sd_bus_message_exit_container(message) >= 0 && sd_bus_message_exit_container(message) >= 0;
}

int append_restore_data(sd_bus_message* reply, const SourceChoice& choice, uint32_t persist_mode) {
    int r = sd_bus_message_append(reply, "{sv}", "persist_mode", "u", persist_mode);
    if (r >= 0) r = sd_bus_message_open_container(reply, 'e', "sv");
    if (r >= 0) r = sd_bus_message_append(reply, "s", "restore_data");
    if (r >= 0) r = sd_bus_message_open_container(reply, 'v', "(suv)");
    if (r >= 0) r = sd_bus_message_open_container(reply, 'r', "suv");
    if (r >= 0) r = sd_bus_message_append(reply, "su", vendor, version);
    if (r >= 0 && choice.type == 1)  // an output (source_monitor)
        r = sd_bus_message_append(reply, "v", "a{sv}", 2, "source_type", "u", choice.type, "output", "s",
                                  choice.output.c_str());
    else if (r >= 0)
        r = sd_bus_message_append(reply, "v", "a{sv}", 3, "source_type", "u", choice.type, "app_id", "s",
                                  choice.app_id.c_str(), "title", "s", choice.title.c_str());
    for (int i = 0; i < 3 && r >= 0; ++i)
        r = sd_bus_message_close_container(reply);
    return r;
}

}  // namespace portal
