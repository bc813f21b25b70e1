// kiln's command line: every flag parses, every mistake is reported.
#include "compositor/session/options.hpp"

#include <catch2/catch_test_macros.hpp>

#include <initializer_list>
#include <vector>

using namespace kiln::compositor;

namespace {

ParseResult parse(std::initializer_list<const char*> args)
{
    std::vector<const char*> argv{"kiln"};
    argv.insert(argv.end(), args);
    return parse_options(static_cast<int>(argv.size()), argv.data());
}

}  // namespace

TEST_CASE("defaults match the documented ones")
{
    auto result = parse({});
    REQUIRE(result.options);
    CHECK(result.options->backend == BackendChoice::automatic);
    CHECK(result.options->headless_width == 1920);
    CHECK(result.options->headless_height == 1080);
    CHECK(result.options->precompile == PrecompileMode::automatic);
    CHECK(result.options->startup.empty());
    CHECK(result.options->restricted.empty());
    CHECK_FALSE(result.options->restricts(PrivilegedProtocol::screencopy));
    CHECK(result.options->background.rgb == 0x202830);  // a dark slate blue, not black (doc/using-kiln.md)
}

TEST_CASE("--background takes 0xRRGGBB, in both spellings, and wins over kiln.ini")
{
    auto result = parse({"--background", "0x000000"});
    REQUIRE(result.options);
    CHECK(result.options->background.rgb == 0);
    Options from_file;
    from_file.background.rgb = 0x336699;
    std::vector<const char*> argv{"kiln", "--background=0x0a0b0c"};
    result = parse_options(static_cast<int>(argv.size()), argv.data(), from_file);
    REQUIRE(result.options);
    CHECK(result.options->background.rgb == 0x0a0b0c);
    for (const char* bad : {"#336699", "0x3366", "black"}) {
        std::vector<const char*> wrong{"kiln", "--background", bad};
        INFO(bad);
        CHECK_FALSE(parse_options(static_cast<int>(wrong.size()), wrong.data()).options);
    }
}

TEST_CASE("every flag is understood, in both spellings")
{
    auto result = parse({"--backend", "x11", "--socket=kiln-1", "-s", "foot", "--startup", "grim",
                         "--exit-with-startup", "--headless-size", "800x600", "--outputs=3", "--cache-dir", "/tmp/c",
                         "--system-cache=/usr/share/kiln", "--precompile", "background", "--stats", "s.json", "-d"});
    REQUIRE(result.options);
    const Options& o = *result.options;
    CHECK(o.backend == BackendChoice::x11);
    CHECK(o.socket == "kiln-1");
    CHECK(o.startup == std::vector<std::string>{"foot", "grim"});
    CHECK(o.exit_with_startup);
    CHECK(o.headless_width == 800);
    CHECK(o.headless_height == 600);
    CHECK(o.backend_outputs == 3);
    CHECK(o.cache_dir == "/tmp/c");
    CHECK(o.system_cache_dir == "/usr/share/kiln");
    CHECK(o.precompile == PrecompileMode::background);
    CHECK(o.stats_file == "s.json");
    CHECK(o.debug);
}

TEST_CASE("mistakes are refused with a reason")
{
    for (auto args : std::vector<std::vector<const char*>>{{"--bogus"},
                                                           {"--backend", "metal"},
                                                           {"--backend"},
                                                           {"--headless-size", "800"},
                                                           {"--headless-size", "0x600"},
                                                           {"--headless-size", "800x600x2"},
                                                           {"--headless-size", "99999x10"},
                                                           {"--outputs", "0"},
                                                           {"--outputs", "9"},
                                                           {"--outputs", "2x"},
                                                           {"--outputs"},
                                                           {"--socket", "a/b"},
                                                           {"--precompile=eager"},
                                                           {"--help=yes"},
                                                           {"--exit-with-startup"},
                                                           {"--stats"},
                                                           {"--restrict"},
                                                           {"--restrict", "data-device"},
                                                           {"--restrict="}}) {
        std::vector<const char*> argv{"kiln"};
        argv.insert(argv.end(), args.begin(), args.end());
        auto result = parse_options(static_cast<int>(argv.size()), argv.data());
        INFO(args.front());
        CHECK_FALSE(result.options);
        CHECK_FALSE(result.error.empty());
    }
}

TEST_CASE("usage names every flag")
{
    const std::string text = usage("kiln");
    for (const char* flag : {"--help", "--version", "--backend", "--socket", "--startup", "--exit-with-startup",
                             "--headless-size", "--cache-dir", "--system-cache", "--precompile", "--stats", "--restrict",
                             "--background"})
        CHECK(text.find(flag) != std::string::npos);
}

TEST_CASE("--restrict takes a protocol name, in both spellings, and may repeat")
{
    for (auto args : std::vector<std::vector<const char*>>{{"--restrict", "screencopy"},
                                                           {"--restrict=screencopy"},
                                                           {"--restrict", "screencopy", "--restrict=screencopy"}}) {
        std::vector<const char*> argv{"kiln"};
        argv.insert(argv.end(), args.begin(), args.end());
        auto result = parse_options(static_cast<int>(argv.size()), argv.data());
        INFO(args.size());
        REQUIRE(result.options);
        CHECK(result.options->restricts(PrivilegedProtocol::screencopy));
        CHECK(result.options->restricted.size() == 1);
    }
    auto unknown = parse({"--restrict", "data-device"});
    CHECK(unknown.error.find("data-device") != std::string::npos);
    CHECK(std::string(protocol_name(PrivilegedProtocol::screencopy)) == "screencopy");
}

TEST_CASE("--restrict names output management and output power too, and each name reads back")
{
    auto result = parse({"--restrict", "output-management", "--restrict=output-power"});
    REQUIRE(result.options);
    CHECK(result.options->restricts(PrivilegedProtocol::output_management));
    CHECK(result.options->restricts(PrivilegedProtocol::output_power));
    CHECK_FALSE(result.options->restricts(PrivilegedProtocol::screencopy));
    for (auto protocol : {PrivilegedProtocol::screencopy, PrivilegedProtocol::output_management,
                          PrivilegedProtocol::output_power, PrivilegedProtocol::session_lock,
                          PrivilegedProtocol::input_method, PrivilegedProtocol::gamma_control,
                          PrivilegedProtocol::export_dmabuf, PrivilegedProtocol::input_inhibit})
        CHECK(parse_privileged(protocol_name(protocol)) == protocol);
}

TEST_CASE("--restrict input-method hides the input method (fcitx5, IBus) alone")
{
    auto result = parse({"--restrict", "input-method"});
    REQUIRE(result.options);
    CHECK(result.options->restricts(PrivilegedProtocol::input_method));
    CHECK_FALSE(result.options->restricts(PrivilegedProtocol::screencopy));
    CHECK(std::string(protocol_name(PrivilegedProtocol::input_method)) == "input-method");
}

TEST_CASE("--xwayland is lazy by default, and takes eager or off")
{
    auto none = parse({});
    REQUIRE(none.options);
    CHECK(none.options->xwayland == XwaylandMode::lazy);
    auto eager = parse({"--xwayland", "eager"});
    REQUIRE(eager.options);
    CHECK(eager.options->xwayland == XwaylandMode::eager);
    auto off = parse({"--xwayland=off"});
    REQUIRE(off.options);
    CHECK(off.options->xwayland == XwaylandMode::off);
    CHECK(parse({"--xwayland", "sometimes"}).error.find("lazy, eager or off") != std::string::npos);
    CHECK_FALSE(parse({"--xwayland"}).options);
}

TEST_CASE("--restrict knows gamma-control and export-dmabuf")
{
    auto result = parse({"--restrict", "gamma-control", "--restrict=export-dmabuf"});
    REQUIRE(result.options);
    CHECK(result.options->restricts(PrivilegedProtocol::gamma_control));
    CHECK(result.options->restricts(PrivilegedProtocol::export_dmabuf));
    CHECK_FALSE(result.options->restricts(PrivilegedProtocol::screencopy));
    CHECK(std::string(protocol_name(PrivilegedProtocol::gamma_control)) == "gamma-control");
    CHECK(std::string(protocol_name(PrivilegedProtocol::export_dmabuf)) == "export-dmabuf");
}
