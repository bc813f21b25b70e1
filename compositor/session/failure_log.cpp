// Keeps the last lines of kiln's start-up log and writes them to the XDG state directory when start-up fails.
#include "compositor/session/failure_log.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

namespace kiln::compositor {

void FailureLog::add(std::string line)
{
    while (!line.empty() && line.back() == '\n')
        line.pop_back();
    lines_.push_back(std::move(line));
    while (lines_.size() > max_lines_)
        lines_.pop_front();
}

std::filesystem::path FailureLog::directory(const EnvLookup& getenv)
{
    // The base directory spec: a relative path in these variables is invalid and ignored.
    const char* state_home = getenv("XDG_STATE_HOME");
    if (state_home && state_home[0] == '/')
        return std::filesystem::path(state_home) / "kiln";
    const char* home = getenv("HOME");
    if (home && home[0] == '/')
        return std::filesystem::path(home) / ".local" / "state" / "kiln";
    return {};
}

std::optional<std::filesystem::path> FailureLog::write(const EnvLookup& getenv, std::string& error) const
{
    const std::filesystem::path dir = directory(getenv);
    if (dir.empty()) {
        error = "neither XDG_STATE_HOME nor HOME names a directory";
        return std::nullopt;
    }
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        error = "cannot create " + dir.string() + ": " + ec.message();
        return std::nullopt;
    }
    const std::filesystem::path file = dir / "startup-failure.log";
    std::ofstream out(file, std::ios::trunc);
    for (const auto& line : lines_)
        out << line << '\n';
    out.flush();
    if (!out) {
        error = "cannot write " + file.string() + ": " + std::strerror(errno);
        return std::nullopt;
    }
    return file;
}

}  // namespace kiln::compositor
