// FailureLog: the last log lines of a start-up, kept in memory and written to $XDG_STATE_HOME/kiln/ when kiln
// cannot start, so a session that died before anyone saw its terminal leaves a reason behind.
#pragma once

#include "compositor/session/config.hpp"

#include <cstddef>
#include <deque>
#include <filesystem>
#include <optional>
#include <string>

namespace kiln::compositor {

class FailureLog {
public:
    explicit FailureLog(size_t max_lines = 200) : max_lines_(max_lines) {}

    // One line of log (a trailing newline is dropped); the oldest goes when more than max_lines are kept.
    void add(std::string line);
    const std::deque<std::string>& lines() const { return lines_; }

    // Writes the kept lines to DIR/startup-failure.log, DIR being $XDG_STATE_HOME/kiln ($HOME/.local/state/kiln
    // when unset); the file's path, or nullopt with `error` when it cannot be written.
    std::optional<std::filesystem::path> write(const EnvLookup& getenv, std::string& error) const;

    // The directory write() uses; empty when neither variable names an absolute path.
    static std::filesystem::path directory(const EnvLookup& getenv);

private:
    size_t max_lines_;
    std::deque<std::string> lines_;
};

}  // namespace kiln::compositor
