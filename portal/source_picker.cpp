// SourcePicker: the order of preference for Start's source, and the chooser's line format both ways.
#include "source_picker.hpp"

#include <cstdio>

#include "portal_options.hpp"
#include "screencast_session.hpp"
#include "wayland_outputs.hpp"

namespace portal {

namespace {

std::string output_line(const Output& output) {
    return "output " + output.name + " (" + std::to_string(output.width) + "x" + std::to_string(output.height) + ")";
}

// One line whatever the title holds.
std::string window_line(const Window& window) {
    std::string line = "window " + window.identifier + " " + window.app_id + ": " + window.title;
    for (char& c : line)
        if (c == '\n' || c == '\r')
            c = ' ';
    return line;
}

// A line without the spaces and carriage return around it.
std::string trimmed(const std::string& line) {
    size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos)
        return {};
    size_t last = line.find_last_not_of(" \t\r");
    return line.substr(first, last - first + 1);
}

}  // namespace

Pick SourcePicker::restored_or_named(uint32_t type, const SourceChoice& restore) const {
    Pick pick;
    if (type == source_window) {
        if (restore.type == source_window) {
            if ((pick.window = wayland_.windows().find(restore.app_id, restore.title)))
                pick.how = "restored";
            else
                std::fprintf(stderr, "kiln-portal: the window to restore ('%s', %s) is gone: choosing anew\n",
                             restore.title.c_str(), restore.app_id.c_str());
        }
        if (!pick.window && !options_.window.empty() && (pick.window = wayland_.windows().choose(options_.window)))
            pick.how = "named";  // choose() falls back to the newest where none matches, as it always did
    } else {
        if (restore.type == source_monitor) {
            if ((pick.output = wayland_.named(restore.output)))
                pick.how = "restored";
            else
                std::fprintf(stderr, "kiln-portal: the output to restore (%s) is gone: choosing anew\n",
                             restore.output.c_str());
        }
        if (!pick.output && !options_.output.empty() && (pick.output = wayland_.choose(options_.output)))
            pick.how = "named";
    }
    return pick;
}

Pick SourcePicker::focused(uint32_t type) const {
    const bool window = type == source_window;
    Pick pick;
    KilnFocus focus;
    std::string why;
    if (!control_.focus(focus, why)) {
        std::fprintf(stderr, "kiln-portal: cannot learn kiln's focused %s (%s): sharing the %s\n",
                     window ? "window" : "output", why.c_str(), window ? "newest window" : "first output");
    } else if (window && !(pick.window = wayland_.windows().identified(focus.identifier))) {
        std::fprintf(stderr, "kiln-portal: kiln reports %s focused window%s%s: sharing the newest window\n",
                     focus.identifier.empty() ? "no" : "a", focus.identifier.empty() ? "" : " not listed yet: ",
                     focus.identifier.c_str());
    } else if (!window && !(pick.output = wayland_.named(focus.output))) {
        std::fprintf(stderr, "kiln-portal: kiln reports %s focused output%s%s: sharing the first output\n",
                     focus.output.empty() ? "no" : "a", focus.output.empty() ? "" : " not announced yet: ",
                     focus.output.c_str());
    }
    if (!pick.empty()) {
        pick.how = "focused";
        return pick;
    }
    if (window && (pick.window = wayland_.windows().choose({})))
        pick.how = "newest";
    if (!window && (pick.output = wayland_.choose({})))
        pick.how = "first";
    return pick;
}

std::string SourcePicker::choices(uint32_t type) const {
    Pick first = focused(type);
    std::string text;
    if (type == source_window) {
        if (first.window)
            text += window_line(*first.window) + "\n";
        for (const Window* window : wayland_.windows().all())
            if (window != first.window)
                text += window_line(*window) + "\n";
    } else {
        if (first.output)
            text += output_line(*first.output) + "\n";
        for (const Output* output : wayland_.all())
            if (output != first.output)
                text += output_line(*output) + "\n";
    }
    return text;
}

Pick SourcePicker::chosen(uint32_t type, const std::vector<std::string>& lines) const {
    const char* kind = type == source_window ? "window" : "output";
    for (const std::string& raw : lines) {
        std::string line = trimmed(raw);
        if (line.empty())
            continue;
        // "output NAME ..." / "window IDENTIFIER ...", else the line is the name or identifier itself.
        std::string key = line;
        if (line.rfind(std::string(kind) + " ", 0) == 0) {
            key = trimmed(line.substr(std::string(kind).size()));
            key = key.substr(0, key.find(' '));
        }
        Pick pick;
        pick.how = "chosen";
        if (type == source_window)
            pick.window = wayland_.windows().identified(key);
        else
            pick.output = wayland_.named(key);
        if (!pick.empty())
            return pick;
    }
    return {};
}

}  // namespace portal
