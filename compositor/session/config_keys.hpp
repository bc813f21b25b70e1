// kiln.ini's sections and their keys: what each key accepts and where its value lands in Options.
#pragma once

#include "compositor/session/options.hpp"

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::compositor::ini {

// What a key's value lands in besides Options: its [output NAME], [input (NAME)] or [rule (NAME)] entry, its line.
struct Entry {
    OutputSettings* output = nullptr;
    InputSettings* input = nullptr;
    WindowRule* rule = nullptr;  // [rule] / [rule NAME] only
    int line = 0;
};

// What a key does with its value: nullopt when applied, else what it accepts (for the message).
using KeyHandler = std::function<std::optional<std::string>(std::string_view value, Options& options, Entry entry)>;

struct KeySpec {
    std::string_view name;
    bool repeatable;  // may appear more than once, each adding one (like a repeated flag)
    KeyHandler apply;
};

struct SectionSpec {
    std::string_view name;
    const std::vector<KeySpec>& (*keys)();
};

// Every section kiln.ini knows, by name.
std::span<const SectionSpec> sections();
// The keys' names, comma-separated, for "unknown key" messages.
std::string key_names(const std::vector<KeySpec>& keys);

}  // namespace kiln::compositor::ini
