// The settings kiln.ini adds to the command line's: keyboard layout and repeat, per-output mode and placement.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kiln::compositor {

// xkbcommon's rule names (empty: xkbcommon's default, which also reads XKB_DEFAULT_*) and key repeat.
struct KeyboardSettings {
    std::string rules;
    std::string model;
    std::string layout;
    std::string variant;
    std::string options;
    int32_t repeat_rate = 25;    // keys per second; 0: no repeat
    int32_t repeat_delay = 600;  // ms before a held key repeats
};

struct OutputMode {
    int32_t width = 0;
    int32_t height = 0;
    int32_t refresh_mhz = 0;  // 0: whatever rate the output has at this size
};

// wl_output's transforms, in its order, so a cast gives the protocol value.
enum class OutputTransform { normal, rotate_90, rotate_180, rotate_270, flipped, flipped_90, flipped_180, flipped_270 };

struct OutputPosition {
    int32_t x = 0;
    int32_t y = 0;
};

// One [output NAME] section: what is not set stays as the backend offers it.
struct OutputSettings {
    std::string name;  // the backend's connector name, e.g. HEADLESS-1, WL-1, X11-1, DP-1
    std::optional<OutputMode> mode;
    std::optional<int32_t> scale;
    std::optional<OutputTransform> transform;
    std::optional<OutputPosition> position;  // unset: right of the outputs placed before it
    std::optional<bool> enabled;
};

// 0xRRGGBB, what no window covers.
struct BackgroundSettings {
    uint32_t rgb = 0x000000;
};

}  // namespace kiln::compositor
