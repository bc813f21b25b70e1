// The settings kiln.ini adds to the command line's: keyboard, outputs, key bindings, libinput devices, decorations.
#pragma once

#include "renderer/colour/image_description.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

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

// [output NAME] color-profile=: what the output's pixel values mean (doc/colour.md).
enum class OutputColourProfile {
    srgb,        // sRGB primaries and curve, white 80 cd/m²: what kiln draws without conversion
    display_p3,  // Display P3 primaries, sRGB curve
    bt2020_pq,   // BT.2020 primaries, SMPTE ST 2084 (PQ): SDR content's white at sdr_white, clipped at peak
    bt2020_hlg,  // BT.2020 primaries, BT.2100 HLG for a display of nominal peak `peak`: SDR white at sdr_white
    icc,         // an ICC output profile (icc:PATH), read when kiln.ini is
};

struct OutputPosition {
    int32_t x = 0;
    int32_t y = 0;
};

// One [output NAME] section: what is not set stays as the backend offers it.
struct OutputSettings {
    std::string name;  // the backend's connector name, e.g. HEADLESS-1, WL-1, X11-1, DP-1
    std::optional<OutputMode> mode;
    std::optional<double> scale;  // a whole number of 120ths (config.cpp parse_scale)
    std::optional<OutputTransform> transform;
    std::optional<OutputPosition> position;  // unset: right of the outputs placed before it
    std::optional<bool> enabled;
    // lease=true: the connector is kept off the desktop and offered to clients through wp_drm_lease_device_v1 (a
    // headset the kernel does not mark non-desktop); the DRM backend only.
    std::optional<bool> lease;
    // workspaces=NAME, ...: the workspaces this output starts with, named (kept while empty), the first shown; they
    // are not made on other outputs. Kept for an output not plugged in yet and applied when it comes.
    std::vector<std::string> workspaces;
    // color-profile= (unset: sRGB), and for bt2020-pq and bt2020-hlg its sdr-white= (cd/m², default 203) and peak=
    // (default 1000). For icc:PATH, the description read from the profile (OutputColours takes it as it is).
    std::optional<OutputColourProfile> colour_profile;
    std::shared_ptr<const renderer::ImageDescription> icc_description;
    std::optional<double> sdr_white;
    std::optional<double> peak;
};

// 0xRRGGBB, what no window covers.
struct BackgroundSettings {
    // A calm dark slate blue rather than black: an empty output looks switched on, and a black window shows on it.
    uint32_t rgb = 0x202830;
};

// [decorations] mode: who draws window borders and title bars. client: the client always (kiln draws none); server:
// kiln, unless a client asks to draw its own; client-preferred: the client, unless it asks kiln to. A client that
// speaks neither xdg-decoration nor KDE server-decoration draws its own in every mode.
enum class DecorationMode { client, server, client_preferred };

struct DecorationSettings {
    DecorationMode mode = DecorationMode::client;
};

// The modifiers a key binding names, as kiln's own bits (the seat maps wlroots' modifiers onto them).
enum KeyModifier : uint32_t {
    modifier_shift = 1u << 0,
    modifier_ctrl = 1u << 1,
    modifier_alt = 1u << 2,
    modifier_super = 1u << 3,
};

// Modifiers and one key, e.g. Super+Shift+E: the keysym is xkbcommon's, lower case (so Shift+E and Shift+e match).
struct KeyCombo {
    uint32_t modifiers = 0;
    uint32_t keysym = 0;
    bool operator==(const KeyCombo&) const = default;
};

enum class BindingAction {
    open_terminal,
    close,
    focus_next,
    fullscreen,
    maximize,
    quit,
    switch_vt,
    command,
    // Workspaces and window keys (shell/window_keys.hpp).
    workspace,          // show workspace number `vt` (Binding::vt) on the current output
    move_to_workspace,  // the focused window to workspace number `vt`
    workspace_prev,
    workspace_next,
    snap_left,          // the focused window fills that half of its output's usable area (again: back)
    snap_right,
    move_to_output_left,  // the focused window to the output on that side
    move_to_output_right,
    move_to_output_up,
    move_to_output_down,
};

struct Binding {
    KeyCombo combo;
    BindingAction action = BindingAction::command;
    std::string command;  // BindingAction::command: run with /bin/sh -c
    int vt = 0;           // BindingAction::switch_vt: the VT's number; workspace, move_to_workspace: its number
    int line = 0;         // the kiln.ini line that set it; 0: one of kiln's defaults
};

// [bindings]: the program Super+Return starts and what each key combination does.
struct BindingSettings {
    std::string terminal;           // empty: the first of foot, weston-terminal, xterm found on PATH
    std::vector<Binding> bindings;  // kiln's defaults (default_bindings()) until kiln.ini changes them
};

// The bindings a newcomer expects: Super+Return terminal, Super+Q close, Alt+Tab and Super+Tab focus the next
// window, Super+F fullscreen, Super+Up maximize, Super+Shift+E quit, Ctrl+Alt+F1..F12 switch VT; as in sway,
// Super+1..9 show workspace N, Super+Shift+1..9 move the focused window there, Super+Ctrl+Left/Right the previous and
// next workspace, Super+Left/Right snap the window to that half, Super+Shift+arrows move it to the next output.
std::vector<Binding> default_bindings();

// [workspaces]: each output's workspaces are numbered 1..count (Super+1..9), made when first shown and removed once
// empty and hidden; `names` name the first ones instead, and those stay while empty.
struct WorkspaceSettings {
    std::vector<std::string> names;
    int count = 9;
};

// [rule] or [rule NAME]: a window whose tag (xdg-toplevel-tag-v1) and app_id match (each only where given) opens
// on `workspace` and/or `output` (empty: where it would open anyway) instead of where the pointer is.
struct WindowRule {
    std::string name;  // empty for a bare [rule]
    int line = 0;      // its section header's line in kiln.ini
    std::string tag;
    std::string app_id;
    std::string workspace;
    std::string output;
};

enum class AccelProfile { flat, adaptive };

// [input] (every device) or [input NAME] (one device, by libinput's name): what is not set stays libinput's default.
struct InputSettings {
    std::string name;  // empty: [input]
    std::optional<bool> tap;
    std::optional<bool> natural_scroll;
    std::optional<bool> left_handed;
    std::optional<bool> disable_while_typing;
    std::optional<AccelProfile> accel_profile;
    std::optional<double> accel_speed;  // -1 (slowest) to 1 (fastest)
};

}  // namespace kiln::compositor
