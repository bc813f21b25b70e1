// kiln.ini: where it is found, and how its sections and keys become Options, each mistake reported with its line.
#pragma once

#include "compositor/session/options.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::compositor {

// One mistake in a configuration file; line 0 is the file as a whole (unreadable, a directory).
struct ConfigProblem {
    std::string file;
    int line = 0;
    std::string reason;
};

// "FILE:LINE: reason" (or "FILE: reason" for line 0), as kiln prints it after "kiln: ".
std::string describe(const ConfigProblem& problem);

// Where kiln.ini may be, best first: $XDG_CONFIG_HOME/kiln/kiln.ini ($HOME/.config when unset), then
// DIR/kiln/kiln.ini for each absolute DIR of $XDG_CONFIG_DIRS (/etc/xdg when unset).
using EnvLookup = std::function<const char*(const char*)>;
std::vector<std::filesystem::path> config_candidates(const EnvLookup& getenv);
// The first candidate that exists (a directory there counts, and is reported when read); nullopt: none.
std::optional<std::filesystem::path> find_config(const EnvLookup& getenv);

// Applies kiln.ini text onto `options`; each bad line is reported once in `problems` and otherwise ignored.
void apply_config_text(std::string_view text, const std::string& file, Options& options,
                       std::vector<ConfigProblem>& problems);
// Reads `path` and applies it; a file that cannot be read is one problem and changes nothing.
void apply_config_file(const std::filesystem::path& path, Options& options, std::vector<ConfigProblem>& problems);

}  // namespace kiln::compositor
