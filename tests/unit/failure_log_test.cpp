// The start-up failure log: keeps the last lines only, lands in $XDG_STATE_HOME/kiln (or ~/.local/state/kiln).
#include "compositor/session/failure_log.hpp"

#include <catch2/catch_test_macros.hpp>

#include <fstream>
#include <map>
#include <sstream>
#include <unistd.h>

using namespace kiln::compositor;

namespace {

EnvLookup env(std::map<std::string, std::string> values)
{
    return [values = std::move(values)](const char* name) -> const char* {
        auto it = values.find(name);
        return it == values.end() ? nullptr : it->second.c_str();
    };
}

std::string read(const std::filesystem::path& path)
{
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

TEST_CASE("the failure log keeps the last lines, without their newlines")
{
    FailureLog log(3);
    for (const char* line : {"one\n", "two", "three\n", "four"})
        log.add(line);
    CHECK(std::vector<std::string>(log.lines().begin(), log.lines().end()) ==
          std::vector<std::string>{"two", "three", "four"});
}

TEST_CASE("the failure log's directory follows the XDG base directory spec")
{
    CHECK(FailureLog::directory(env({{"XDG_STATE_HOME", "/s"}, {"HOME", "/h"}})) == "/s/kiln");
    CHECK(FailureLog::directory(env({{"HOME", "/h"}})) == "/h/.local/state/kiln");
    CHECK(FailureLog::directory(env({{"XDG_STATE_HOME", "relative"}, {"HOME", "/h"}})) == "/h/.local/state/kiln");
    CHECK(FailureLog::directory(env({})).empty());
}

TEST_CASE("the failure log is written where the state directory is, created if needed")
{
    std::string pattern = (std::filesystem::temp_directory_path() / "kiln-failure-log-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()));
    const std::filesystem::path tmp = pattern;
    FailureLog log;
    log.add("kiln: cannot start the drm backend");
    std::string error;
    auto file = log.write(env({{"XDG_STATE_HOME", (tmp / "state").string()}}), error);
    REQUIRE(file);
    CHECK(*file == tmp / "state" / "kiln" / "startup-failure.log");
    CHECK(read(*file) == "kiln: cannot start the drm backend\n");
    // Unwritable: a file where the directory should be.
    std::ofstream(tmp / "blocked") << "x";
    CHECK(!log.write(env({{"XDG_STATE_HOME", (tmp / "blocked").string()}}), error));
    CHECK(error.find("cannot create") == 0);
    std::filesystem::remove_all(tmp);
}
