// Reads kiln.ini (weston.ini's syntax: [section], [output NAME], key=value, # comments) into Options.
#include "compositor/session/config.hpp"

#include "compositor/session/config_keys.hpp"
#include "compositor/session/config_values.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <system_error>

namespace kiln::compositor {
namespace {

using namespace ini;

// The section the parser is in: its keys, its [output NAME] entry, and the keys it has had (for duplicates).
struct Section {
    std::string title;  // as written in messages: [keyboard], [output DP-1]
    const std::vector<KeySpec>* keys = nullptr;  // null: no section yet, or an unknown one (already reported)
    std::string output_name;                     // [output NAME] only
    bool input = false;                          // [input] or [input NAME]
    std::string input_name;                      // [input NAME] only
    int rule = -1;  // [rule (NAME)]: its index in Options::rules (each header starts a new rule)
};

// A [rule] that names no window to match would move every window, and one without a workspace or output does
// nothing: each is one problem, on its header's line, and is dropped.
void check_rules(const std::string& file, Options& options, size_t first, std::vector<ConfigProblem>& problems)
{
    for (size_t i = first; i < options.rules.size();) {
        const WindowRule& rule = options.rules[i];
        const std::string title = "[rule" + (rule.name.empty() ? "" : " " + rule.name) + "]";
        std::string reason;
        if (rule.tag.empty() && rule.app_id.empty())
            reason = title + " matches no window: give it tag= and/or app-id=; the rule is ignored";
        else if (rule.workspace.empty() && rule.output.empty())
            reason = title + " does nothing: give it workspace= and/or output=; the rule is ignored";
        if (reason.empty()) {
            ++i;
            continue;
        }
        problems.push_back({file, rule.line, std::move(reason)});
        options.rules.erase(options.rules.begin() + static_cast<std::ptrdiff_t>(i));
    }
}

}  // namespace

std::string describe(const ConfigProblem& problem)
{
    if (problem.line == 0)
        return problem.file + ": " + problem.reason;
    return problem.file + ":" + std::to_string(problem.line) + ": " + problem.reason;
}

void apply_config_text(std::string_view text, const std::string& file, Options& options,
                       std::vector<ConfigProblem>& problems)
{
    Section section;
    bool in_unknown_section = false;
    std::map<std::string, int> first_seen;  // "[title] key" -> line, for duplicates
    int line_number = 0;
    auto report = [&](std::string reason) { problems.push_back({file, line_number, std::move(reason)}); };
    const size_t rules_before = options.rules.size();

    size_t start = 0;
    while (start <= text.size()) {
        const size_t end = std::min(text.find('\n', start), text.size());
        const std::string_view line = trim(text.substr(start, end - start));
        start = end + 1;
        ++line_number;
        if (line.empty() || line.starts_with('#')) {
            if (end == text.size())
                break;
            continue;
        }

        if (line.starts_with('[')) {
            section = Section{};
            in_unknown_section = false;
            if (!line.ends_with(']')) {
                report("a section header needs a closing ']': " + std::string(line));
                in_unknown_section = true;  // its keys would land in the wrong place: ignore them quietly
                continue;
            }
            const std::string_view inside = trim(line.substr(1, line.size() - 2));
            const auto space = inside.find_first_of(" \t");
            const std::string_view name = inside.substr(0, space);
            const std::string_view argument = space == std::string_view::npos ? "" : trim(inside.substr(space));
            const SectionSpec* spec = nullptr;
            for (const auto& candidate : sections())
                if (candidate.name == name)
                    spec = &candidate;
            if (!spec) {
                report("unknown section [" + std::string(inside) +
                       "] (keyboard, output NAME, input, input NAME, bindings, startup, background, cache, "
                       "security, xwayland, decorations, bell, workspaces or rule); its keys are ignored");
                in_unknown_section = true;
                continue;
            }
            if (name == "output" && argument.empty()) {
                report("[output] needs the output's name, e.g. [output HDMI-A-1]; its keys are ignored");
                in_unknown_section = true;
                continue;
            }
            if (name != "output" && name != "input" && name != "rule" && !argument.empty()) {
                report("[" + std::string(name) + "] takes no name; its keys are ignored");
                in_unknown_section = true;
                continue;
            }
            section.title = "[" + std::string(name) + (argument.empty() ? "" : " " + std::string(argument)) + "]";
            section.keys = &spec->keys();
            if (name == "rule") {
                section.rule = static_cast<int>(options.rules.size());
                options.rules.push_back(WindowRule{.name = std::string(argument), .line = line_number});
                continue;
            }
            if (name == "input") {
                section.input = true;
                section.input_name = argument;
                if (!argument.empty() &&
                    std::none_of(options.inputs.begin(), options.inputs.end(),
                                 [&](const InputSettings& input) { return input.name == section.input_name; }))
                    options.inputs.push_back(InputSettings{.name = section.input_name});
                continue;
            }
            section.output_name = argument;
            if (!argument.empty() && !options.output(section.output_name))
                options.outputs.push_back(OutputSettings{.name = section.output_name});
            continue;
        }

        const auto eq = line.find('=');
        if (eq == std::string_view::npos) {
            report("neither a [section] nor key=value: " + std::string(line));
            continue;
        }
        const std::string key(trim(line.substr(0, eq)));
        const std::string_view value = trim(line.substr(eq + 1));
        if (in_unknown_section)
            continue;
        if (!section.keys) {
            report("'" + key + "' is outside any section; put it under one, e.g. [keyboard]");
            continue;
        }
        const KeySpec* spec = nullptr;
        for (const auto& candidate : *section.keys)
            if (candidate.name == key)
                spec = &candidate;
        if (!spec) {
            report("unknown key '" + key + "' in " + section.title + " (" + key_names(*section.keys) + ")");
            continue;
        }
        if (!spec->repeatable) {
            // Each [rule] header is a rule of its own, even where two share a name.
            const std::string scope = section.rule >= 0 ? std::to_string(section.rule) + " " : "";
            auto [seen, inserted] = first_seen.emplace(scope + section.title + " " + key, line_number);
            if (!inserted) {
                report("duplicate key '" + key + "' in " + section.title + " (first set on line " +
                       std::to_string(seen->second) + ", which applies)");
                continue;
            }
        }
        Entry entry{.line = line_number};
        if (!section.output_name.empty())
            for (auto& candidate : options.outputs)
                if (candidate.name == section.output_name)
                    entry.output = &candidate;
        if (section.input) {
            entry.input = &options.input;
            if (!section.input_name.empty())
                for (auto& candidate : options.inputs)
                    if (candidate.name == section.input_name)
                        entry.input = &candidate;
        }
        if (section.rule >= 0)
            entry.rule = &options.rules[static_cast<size_t>(section.rule)];
        if (auto accepted = spec->apply(value, options, entry))
            report("bad value '" + std::string(value) + "' for " + key + " in " + section.title + ": expected " +
                   *accepted);
    }
    check_rules(file, options, rules_before, problems);
}

void apply_config_file(const std::filesystem::path& path, Options& options, std::vector<ConfigProblem>& problems)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        problems.push_back({path.string(), 0, "is a directory, not a file"});
        return;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        problems.push_back({path.string(), 0, std::string("cannot read: ") + std::strerror(errno)});
        return;
    }
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) {
        problems.push_back({path.string(), 0, std::string("cannot read: ") + std::strerror(errno)});
        return;
    }
    const std::string content = text.str();
    // Text never holds a NUL byte: a binary file (an image or random bytes saved by mistake) is one problem, not a
    // warning for each of its thousand "lines".
    if (const size_t nul = content.find('\0'); nul != std::string::npos) {
        problems.push_back({path.string(), 0, "not a text file (a NUL byte at offset " + std::to_string(nul) + ")"});
        return;
    }
    apply_config_text(content, path.string(), options, problems);
}

std::vector<std::filesystem::path> config_candidates(const EnvLookup& getenv)
{
    std::vector<std::filesystem::path> candidates;
    const char* config_home = getenv("XDG_CONFIG_HOME");
    const char* home = getenv("HOME");
    // The base directory spec: relative paths in these variables are invalid and ignored.
    if (config_home && config_home[0] == '/')
        candidates.push_back(std::filesystem::path(config_home) / "kiln" / "kiln.ini");
    else if (home && home[0] == '/')
        candidates.push_back(std::filesystem::path(home) / ".config" / "kiln" / "kiln.ini");
    const char* dirs = getenv("XDG_CONFIG_DIRS");
    const std::string_view list = dirs && dirs[0] ? dirs : "/etc/xdg";
    size_t start = 0;
    while (start <= list.size()) {
        const size_t end = std::min(list.find(':', start), list.size());
        const std::string_view dir = list.substr(start, end - start);
        if (dir.starts_with('/'))
            candidates.push_back(std::filesystem::path(dir) / "kiln" / "kiln.ini");
        start = end + 1;
    }
    return candidates;
}

std::optional<std::filesystem::path> find_config(const EnvLookup& getenv)
{
    for (const auto& candidate : config_candidates(getenv)) {
        std::error_code ec;
        if (std::filesystem::exists(candidate, ec))
            return candidate;
    }
    return std::nullopt;
}

}  // namespace kiln::compositor