// SourcePicker: which output or window a Start shares: the one restored or named (--output, --window), the one the
// chooser command picked, or kiln's focused one (asked over kiln's control socket), else the first or newest.
#pragma once

#include <string>
#include <vector>

#include "kiln_control.hpp"
#include "restore_data.hpp"

namespace portal {

struct Output;
struct PortalOptions;
struct Window;
class WaylandOutputs;

struct Pick {
    const Output* output = nullptr;  // a monitor source
    const Window* window = nullptr;  // a window source
    const char* how = "";            // for the log: "restored", "named", "chosen", "focused", "first", "newest"
    bool empty() const { return !output && !window; }
};

class SourcePicker {
public:
    SourcePicker(WaylandOutputs& wayland, const PortalOptions& options) : wayland_(wayland), options_(options) {}

    // What the app shared before (while it is there) or what --output/--window name; empty where neither does.
    Pick restored_or_named(uint32_t type, const SourceChoice& restore) const;
    // kiln's focused output or window; where kiln's control socket cannot say, the first output or the newest
    // window, with one log line saying why. Empty where there is nothing to share.
    Pick focused(uint32_t type) const;
    // The chooser's stdin: one line per source of `type`, the focused one first (see `Choosing a source` in
    // doc/using-kiln.md): "output NAME (WxH)" or "window IDENTIFIER APP_ID: TITLE".
    std::string choices(uint32_t type) const;
    // The first of the chooser's `lines` that names a source of `type` (the whole line, or the NAME/IDENTIFIER in
    // it, or a bare NAME/IDENTIFIER); empty where none does.
    Pick chosen(uint32_t type, const std::vector<std::string>& lines) const;

private:
    WaylandOutputs& wayland_;
    const PortalOptions& options_;
    KilnControl control_;
};

}  // namespace portal
