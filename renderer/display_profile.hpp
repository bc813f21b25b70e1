// DisplayProfile: what kiln tells clients and wlroots about its EGL display (kind, driver, device, dma-buf formats),
// known from the open display or from the cache before the display is opened.
#pragma once

#include "renderer/types.hpp"

#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace kiln::renderer {

class EglDisplay;

struct DisplayProfile {
    DisplayKind kind = DisplayKind::surfaceless;
    std::string driver_name;
    std::string device_path;           // the render node clients allocate from; empty when there is none
    std::optional<dev_t> main_device;  // device_path's device number (stat: not stored in the cache)
    bool software = false;             // GL runs on the CPU
    std::vector<FormatModifier> dmabuf_formats;  // as probed: only formats the driver really imports

    bool can_import_dmabuf() const { return !dmabuf_formats.empty(); }
    const char* kind_name() const;
    // What an open display says about itself (EGL must be current for is_software's fallback).
    static DisplayProfile of(const EglDisplay& display);
    // Same display as far as clients can tell (main_device aside, which follows device_path).
    bool same_as(const DisplayProfile& other) const;
};

}  // namespace kiln::renderer
