// SourceChoice and restore_data: what a session shared, as xdg-desktop-portal keeps it to share it again unasked.
#pragma once

#include <cstdint>
#include <string>

#include <systemd/sd-bus.h>

namespace portal {

// An output by name, or a window by app_id and title (kiln's window identifiers do not outlive kiln).
struct SourceChoice {
    uint32_t type = 0;  // SourceType; 0: nothing chosen
    std::string output;
    std::string app_id;
    std::string title;
};

enum PersistMode : uint32_t { persist_none = 0, persist_transient = 1, persist_persistent = 2 };

// Reads the variant of SelectSources' "restore_data" option, <("kiln", 1, <a{sv}>)>, into `choice`. Returns false
// only where the message cannot be read further; data of another vendor or version leaves `choice` empty.
bool read_restore_data(sd_bus_message* message, SourceChoice& choice);
// Appends Start's "restore_data" and "persist_mode" entries (inside its open a{sv}) for `choice`.
int append_restore_data(sd_bus_message* reply, const SourceChoice& choice, uint32_t persist_mode);

}  // namespace portal
