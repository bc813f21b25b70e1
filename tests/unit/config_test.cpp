// kiln.ini: every section and key applies, every kind of mistake is reported once with its line, flags win.
#include "compositor/session/config.hpp"
#include "compositor/session/key_combo.hpp"

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <map>
#include <unistd.h>

using namespace kiln::compositor;

namespace {

struct Applied {
    Options options;
    std::vector<ConfigProblem> problems;
};

Applied apply(std::string_view text)
{
    Applied out;
    apply_config_text(text, "kiln.ini", out.options, out.problems);
    return out;
}

// One problem, on `line`, whose message contains `words`.
void check_one_problem(std::string_view text, int line, const std::string& words)
{
    auto applied = apply(text);
    INFO(text);
    REQUIRE(applied.problems.size() == 1);
    CHECK(applied.problems[0].line == line);
    CHECK(applied.problems[0].file == "kiln.ini");
    INFO(describe(applied.problems[0]));
    CHECK(describe(applied.problems[0]).find(words) != std::string::npos);
    CHECK(describe(applied.problems[0]).starts_with("kiln.ini:" + std::to_string(line) + ": "));
}

// A private directory for files, removed with everything in it when the test ends, failed or not.
struct TempDir {
    std::filesystem::path path;
    TempDir()
    {
        std::string pattern = (std::filesystem::temp_directory_path() / "kiln-config-test-XXXXXX").string();
        REQUIRE(mkdtemp(pattern.data()));
        path = pattern;
    }
    ~TempDir() { std::filesystem::remove_all(path); }
    std::filesystem::path write(const std::filesystem::path& relative, std::string_view text) const
    {
        const auto file = path / relative;
        std::filesystem::create_directories(file.parent_path());
        std::ofstream(file) << text;
        return file;
    }
};

EnvLookup env(std::map<std::string, std::string> values)
{
    return [values = std::move(values)](const char* name) -> const char* {
        auto it = values.find(name);
        return it == values.end() ? nullptr : it->second.c_str();
    };
}

}  // namespace

TEST_CASE("[keyboard] sets the xkb names and key repeat")
{
    auto applied = apply(R"(# a comment
[keyboard]
keymap_rules=evdev
keymap_model = pc105
keymap_layout=de,us
keymap_variant=nodeadkeys
keymap_options=grp:alt_shift_toggle,caps:escape
repeat-rate=40
repeat-delay=250
)");
    CHECK(applied.problems.empty());
    const auto& keyboard = applied.options.keyboard;
    CHECK(keyboard.rules == "evdev");
    CHECK(keyboard.model == "pc105");
    CHECK(keyboard.layout == "de,us");
    CHECK(keyboard.variant == "nodeadkeys");
    CHECK(keyboard.options == "grp:alt_shift_toggle,caps:escape");
    CHECK(keyboard.repeat_rate == 40);
    CHECK(keyboard.repeat_delay == 250);
}

TEST_CASE("an empty file changes nothing")
{
    auto applied = apply("");
    CHECK(applied.problems.empty());
    const Options defaults;
    CHECK(applied.options.keyboard.layout.empty());
    CHECK(applied.options.keyboard.repeat_rate == defaults.keyboard.repeat_rate);
    CHECK(applied.options.background.rgb == defaults.background.rgb);
    CHECK(applied.options.outputs.empty());
    CHECK(applied.options.precompile == defaults.precompile);
}

TEST_CASE("[output NAME] lease=true keeps a connector for drm-lease; left out, it is not")
{
    auto applied = apply("[output DP-2]\nlease=true\n[output DP-1]\nmode=1920x1080\n");
    CHECK(applied.problems.empty());
    REQUIRE(applied.options.output("DP-2"));
    CHECK(applied.options.output("DP-2")->lease == true);
    REQUIRE(applied.options.output("DP-1"));
    CHECK_FALSE(applied.options.output("DP-1")->lease);
}

TEST_CASE("[output NAME] sets mode, scale, transform, position and enabled per output")
{
    auto applied = apply(R"([output HEADLESS-1]
mode=1280x720
scale=2
transform=90
position=-1280,0
enabled=true

[output DP-1]
mode=2560x1440@59.951
transform=flipped-rotate-270
enabled=false
)");
    CHECK(applied.problems.empty());
    REQUIRE(applied.options.outputs.size() == 2);
    const OutputSettings* headless = applied.options.output("HEADLESS-1");
    REQUIRE(headless);
    REQUIRE(headless->mode);
    CHECK(headless->mode->width == 1280);
    CHECK(headless->mode->height == 720);
    CHECK(headless->mode->refresh_mhz == 0);
    CHECK(headless->scale == 2);
    CHECK(headless->transform == OutputTransform::rotate_90);
    REQUIRE(headless->position);
    CHECK(headless->position->x == -1280);
    CHECK(headless->position->y == 0);
    CHECK(headless->enabled == true);

    const OutputSettings* dp = applied.options.output("DP-1");
    REQUIRE(dp);
    CHECK(dp->mode->refresh_mhz == 59951);
    CHECK(dp->transform == OutputTransform::flipped_270);
    CHECK(dp->enabled == false);
    CHECK_FALSE(dp->scale);
    CHECK_FALSE(dp->position);
    CHECK(applied.options.output("HDMI-A-1") == nullptr);
}

TEST_CASE("every transform name maps to wl_output's value")
{
    const std::pair<const char*, int> names[] = {
        {"normal", 0},       {"90", 1},          {"180", 2},          {"270", 3},
        {"flipped", 4},      {"flipped-90", 5},  {"flipped-180", 6},  {"flipped-270", 7},
        {"rotate-90", 1},    {"rotate-270", 3},  {"flipped-rotate-90", 5},
    };
    for (const auto& [name, value] : names) {
        auto applied = apply(std::string("[output X]\ntransform=") + name + "\n");
        INFO(name);
        REQUIRE(applied.problems.empty());
        CHECK(static_cast<int>(*applied.options.outputs[0].transform) == value);
    }
}

TEST_CASE("[startup] command repeats, in order, like -s")
{
    auto applied = apply("[startup]\ncommand=foot\ncommand = swaybg -c '#336699'\n");
    CHECK(applied.problems.empty());
    CHECK(applied.options.startup == std::vector<std::string>{"foot", "swaybg -c '#336699'"});
}

TEST_CASE("[background], [cache] and [security]")
{
    auto applied = apply(R"([background]
color=0x336699
[cache]
directory=/var/cache/kiln-test
precompile=background
[security]
restrict=screencopy
restrict=screencopy
)");
    CHECK(applied.problems.empty());
    CHECK(applied.options.background.rgb == 0x336699);
    CHECK(applied.options.cache_dir == "/var/cache/kiln-test");
    CHECK(applied.options.precompile == PrecompileMode::background);
    CHECK(applied.options.restricted == std::vector<PrivilegedProtocol>{PrivilegedProtocol::screencopy});
}

TEST_CASE("[security] allow-sandboxed grants a sandboxed app protocols by name; lines for one app add up")
{
    auto applied = apply(R"([security]
allow-sandboxed=org.example.Recorder:screencopy,export-dmabuf
allow-sandboxed = org.example.Recorder:screencopy,data-control
allow-sandboxed=com.example.Keys:virtual-keyboard
allow-sandboxed=org.example.Panel:layer-shell,keyboard-shortcuts-inhibit,xdg-output
)");
    CHECK(applied.problems.empty());
    REQUIRE(applied.options.sandbox_grants.size() == 3);
    CHECK(applied.options.sandbox_grants[0].app_id == "org.example.Recorder");
    CHECK(applied.options.sandbox_grants[0].protocols ==
          std::vector<std::string>{"screencopy", "export-dmabuf", "data-control"});
    CHECK(applied.options.grants_sandboxed("org.example.Recorder", "data-control"));
    CHECK(applied.options.grants_sandboxed("com.example.Keys", "virtual-keyboard"));
    CHECK_FALSE(applied.options.grants_sandboxed("com.example.Keys", "screencopy"));
    // What sway's security filter hides besides (issue 29) is granted by name too.
    for (const char* name : {"layer-shell", "keyboard-shortcuts-inhibit", "xdg-output"})
        CHECK(applied.options.grants_sandboxed("org.example.Panel", name));
    CHECK_FALSE(applied.options.grants_sandboxed("org.example.Other", "screencopy"));
    CHECK(applied.options.restricted.empty());  // a grant restricts nothing for unsandboxed clients

    check_one_problem("[security]\nallow-sandboxed=screencopy\n", 2, "APP_ID:PROTOCOL");
    check_one_problem("[security]\nallow-sandboxed=:screencopy\n", 2, "APP_ID:PROTOCOL");
    check_one_problem("[security]\nallow-sandboxed=org.example.App:screencopy,keyboard\n", 2,
                      "'keyboard' is not a protocol hidden from sandboxed clients (screencopy, export-dmabuf");
    check_one_problem("[security]\nallow-sandboxed=org.example.App:\n", 2, "'' is not a protocol");
    auto bad = apply("[security]\nallow-sandboxed=org.example.App:screencopy,nope\n");
    CHECK(bad.options.sandbox_grants.empty());  // a bad line grants nothing, not even its good names
}

TEST_CASE("each kind of bad line is one problem with its line, and the rest still applies")
{
    check_one_problem("[keyboard]\n[colours]\nred=1\n", 2, "unknown section [colours]");
    check_one_problem("[keyboard]\nkeymap_layuot=de\n", 2, "unknown key 'keymap_layuot' in [keyboard]");
    check_one_problem("[keyboard]\nrepeat-rate=fast\n", 2, "bad value 'fast' for repeat-rate");
    check_one_problem("[keyboard]\nrepeat-delay=-5\n", 2, "milliseconds");
    check_one_problem("[keyboard]\nkeymap_layout=de\nkeymap_layout=fr\n", 3,
                      "duplicate key 'keymap_layout' in [keyboard] (first set on line 2");
    check_one_problem("[keyboard]\nkeymap_layout de\n", 2, "neither a [section] nor key=value");
    check_one_problem("keymap_layout=de\n", 1, "outside any section");
    check_one_problem("[keyboard\nkeymap_layout=de\n", 1, "closing ']'");
    check_one_problem("[output]\nscale=2\n", 1, "[output] needs the output's name");
    check_one_problem("[keyboard main]\n", 1, "[keyboard] takes no name");
    check_one_problem("[output X]\nmode=1920*1080\n", 2, "WIDTHxHEIGHT");
    check_one_problem("[output X]\nmode=1920x1080@\n", 2, "WIDTHxHEIGHT@HZ");
    check_one_problem("[output X]\nscale=0\n", 2, "a number from 0.25 to 10");
    check_one_problem("[output X]\nscale=11\n", 2, "a number from 0.25 to 10");
    check_one_problem("[output X]\nscale=1,5\n", 2, "a number from 0.25 to 10");
    check_one_problem("[output X]\nscale=nan\n", 2, "a number from 0.25 to 10");
    check_one_problem("[output X]\ntransform=sideways\n", 2, "flipped-90");
    check_one_problem("[output X]\nposition=10\n", 2, "X,Y");
    check_one_problem("[output X]\nenabled=yes\n", 2, "true or false");
    check_one_problem("[output X]\nlease=maybe\n", 2, "true or false");
    check_one_problem("[output X]\nfoo=1\n", 2, "unknown key 'foo' in [output X] (mode, scale, transform");
    check_one_problem("[background]\ncolor=#336699\n", 2, "0xRRGGBB");
    check_one_problem("[background]\ncolor=0x3366\n", 2, "0xRRGGBB");
    check_one_problem("[cache]\nprecompile=sometimes\n", 2, "off, fast or background");
    check_one_problem("[security]\nrestrict=keyboard\n", 2, "screencopy");
    check_one_problem("[startup]\ncommand=\n", 2, "a shell command");

    auto applied = apply(R"([keyboard]
keymap_layout=de
repeat-rate=many
[nonsense]
a=b
c=d
[background]
color=0x102030
)");
    REQUIRE(applied.problems.size() == 2);  // the unknown section once, not once per key under it
    CHECK(applied.problems[0].line == 3);
    CHECK(applied.problems[1].line == 4);
    CHECK(applied.options.keyboard.layout == "de");
    CHECK(applied.options.keyboard.repeat_rate == Options{}.keyboard.repeat_rate);
    CHECK(applied.options.background.rgb == 0x102030);
}

TEST_CASE("a duplicate keeps the first value; the same key in two outputs is no duplicate")
{
    auto applied = apply("[output A]\nscale=2\n[output B]\nscale=3\n[output A]\nscale=4\n");
    REQUIRE(applied.problems.size() == 1);
    CHECK(applied.problems[0].line == 6);
    CHECK(applied.options.output("A")->scale == 2);
    CHECK(applied.options.output("B")->scale == 3);
}

TEST_CASE("[output NAME] scale takes fractions, as sway's and weston's configs do, kept in 120ths")
{
    auto applied = apply("[output A]\nscale=1.5\n[output B]\nscale=1.25\n[output C]\nscale=1.3\n[output D]\nscale=0.25\n");
    REQUIRE(applied.problems.empty());
    CHECK(applied.options.output("A")->scale == 1.5);
    CHECK(applied.options.output("B")->scale == 1.25);
    CHECK(*applied.options.output("C")->scale * 120 == 156);  // 1.3 is 156/120 exactly
    CHECK(applied.options.output("D")->scale == 0.25);
}

TEST_CASE("files: a missing one and a directory are one problem each")
{
    TempDir dir;
    Options options;
    std::vector<ConfigProblem> problems;
    apply_config_file(dir.path / "absent.ini", options, problems);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].line == 0);
    CHECK(describe(problems[0]) == (dir.path / "absent.ini").string() + ": cannot read: No such file or directory");

    problems.clear();
    std::filesystem::create_directory(dir.path / "kiln.ini");
    apply_config_file(dir.path / "kiln.ini", options, problems);
    REQUIRE(problems.size() == 1);
    CHECK(describe(problems[0]) == (dir.path / "kiln.ini").string() + ": is a directory, not a file");

    problems.clear();
    const auto file = dir.write("good.ini", "[keyboard]\nkeymap_layout=fr\n[cache]\nbad\n");
    apply_config_file(file, options, problems);
    CHECK(options.keyboard.layout == "fr");
    REQUIRE(problems.size() == 1);
    CHECK(describe(problems[0]).starts_with(file.string() + ":4: "));

    // A binary file is one problem and none of its settings, not one problem per "line".
    problems.clear();
    Options untouched;
    std::string bytes = "[keyboard]\nkeymap_layout=de\n";
    bytes += '\0';
    bytes += "\x89PNG\n";
    const auto binary = dir.write("binary.ini", bytes);
    apply_config_file(binary, untouched, problems);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].line == 0);
    CHECK(describe(problems[0]) == binary.string() + ": not a text file (a NUL byte at offset 28)");
    CHECK(untouched.keyboard.layout.empty());
}

TEST_CASE("flags win over the file; -s and --restrict add to it")
{
    auto applied = apply(R"([cache]
precompile=off
directory=/from/file
[startup]
command=from-file
[background]
color=0x336699
)");
    REQUIRE(applied.problems.empty());
    std::vector<const char*> argv{"kiln", "--precompile", "background", "-s", "from-flag", "--restrict", "screencopy"};
    auto parsed = parse_options(static_cast<int>(argv.size()), argv.data(), applied.options);
    REQUIRE(parsed.options);
    CHECK(parsed.options->precompile == PrecompileMode::background);
    CHECK(parsed.options->cache_dir == "/from/file");  // not given as a flag: the file's
    CHECK(parsed.options->startup == std::vector<std::string>{"from-file", "from-flag"});
    CHECK(parsed.options->background.rgb == 0x336699);

    std::vector<const char*> cache_flag{"kiln", "--cache-dir=/from/flag", "--exit-with-startup"};
    parsed = parse_options(static_cast<int>(cache_flag.size()), cache_flag.data(), applied.options);
    REQUIRE(parsed.options);  // the file's [startup] command satisfies --exit-with-startup
    CHECK(parsed.options->cache_dir == "/from/flag");
    CHECK_FALSE(parsed.options->headless_size_given);  // the default size: an [output] mode may replace it

    std::vector<const char*> size_flag{"kiln", "--headless-size", "800x600"};
    parsed = parse_options(static_cast<int>(size_flag.size()), size_flag.data(), applied.options);
    REQUIRE(parsed.options);
    CHECK(parsed.options->headless_size_given);  // the server then ignores [output HEADLESS-1] mode
}

TEST_CASE("--config and --check-config parse")
{
    std::vector<const char*> argv{"kiln", "--config", "/tmp/k.ini", "--check-config"};
    auto parsed = parse_flags(static_cast<int>(argv.size()), argv.data());
    REQUIRE(parsed.options);
    CHECK(parsed.options->config_file == "/tmp/k.ini");
    CHECK(parsed.options->check_config);
    std::vector<const char*> missing{"kiln", "--config"};
    CHECK_FALSE(parse_flags(static_cast<int>(missing.size()), missing.data()).options);
    CHECK(usage("kiln").find("--check-config") != std::string::npos);
}

TEST_CASE("lookup order: XDG_CONFIG_HOME, then each XDG_CONFIG_DIRS entry, else ~/.config and /etc/xdg")
{
    CHECK(config_candidates(env({{"XDG_CONFIG_HOME", "/h"}, {"HOME", "/home/u"}, {"XDG_CONFIG_DIRS", "/a:rel:/b"}})) ==
          std::vector<std::filesystem::path>{"/h/kiln/kiln.ini", "/a/kiln/kiln.ini", "/b/kiln/kiln.ini"});
    CHECK(config_candidates(env({{"HOME", "/home/u"}})) ==
          std::vector<std::filesystem::path>{"/home/u/.config/kiln/kiln.ini", "/etc/xdg/kiln/kiln.ini"});
    CHECK(config_candidates(env({{"XDG_CONFIG_HOME", ""}, {"XDG_CONFIG_DIRS", ""}})) ==
          std::vector<std::filesystem::path>{"/etc/xdg/kiln/kiln.ini"});

    TempDir dir;
    const std::string home = (dir.path / "home").string();
    const std::string first = (dir.path / "first").string();
    const std::string second = (dir.path / "second").string();
    const auto lookup = env({{"XDG_CONFIG_HOME", home}, {"XDG_CONFIG_DIRS", first + ":" + second}});
    CHECK_FALSE(find_config(lookup));
    dir.write("second/kiln/kiln.ini", "");
    CHECK(find_config(lookup) == dir.path / "second/kiln/kiln.ini");
    dir.write("first/kiln/kiln.ini", "");
    CHECK(find_config(lookup) == dir.path / "first/kiln/kiln.ini");
    dir.write("home/kiln/kiln.ini", "");
    CHECK(find_config(lookup) == dir.path / "home/kiln/kiln.ini");
}

namespace {

// The combos bound to `action`, as kiln.ini writes them.
std::vector<std::string> bound(const Options& options, BindingAction action)
{
    std::vector<std::string> out;
    for (const auto& binding : options.bindings.bindings)
        if (binding.action == action)
            out.push_back(describe(binding.combo));
    return out;
}

}  // namespace

TEST_CASE("[bindings]: kiln's defaults without a file")
{
    const Options options;
    CHECK(options.bindings.terminal.empty());
    CHECK(bound(options, BindingAction::open_terminal) == std::vector<std::string>{"Super+Return"});
    CHECK(bound(options, BindingAction::close) == std::vector<std::string>{"Super+q"});
    CHECK(bound(options, BindingAction::focus_next) == std::vector<std::string>{"Alt+Tab", "Super+Tab"});
    CHECK(bound(options, BindingAction::fullscreen) == std::vector<std::string>{"Super+f"});
    CHECK(bound(options, BindingAction::maximize) == std::vector<std::string>{"Super+Up"});
    CHECK(bound(options, BindingAction::quit) == std::vector<std::string>{"Super+Shift+e"});
    const auto vts = bound(options, BindingAction::switch_vt);
    REQUIRE(vts.size() == 12);
    CHECK(vts.front() == "Ctrl+Alt+F1");
    CHECK(vts.back() == "Ctrl+Alt+F12");
    // The workspace and window keys, as sway has them.
    const auto workspaces = bound(options, BindingAction::workspace);
    REQUIRE(workspaces.size() == 9);
    CHECK(workspaces.front() == "Super+1");
    CHECK(workspaces.back() == "Super+9");
    CHECK(bound(options, BindingAction::move_to_workspace).front() == "Super+Shift+1");
    CHECK(bound(options, BindingAction::workspace_prev) == std::vector<std::string>{"Super+Ctrl+Left"});
    CHECK(bound(options, BindingAction::workspace_next) == std::vector<std::string>{"Super+Ctrl+Right"});
    CHECK(bound(options, BindingAction::snap_left) == std::vector<std::string>{"Super+Left"});
    CHECK(bound(options, BindingAction::snap_right) == std::vector<std::string>{"Super+Right"});
    CHECK(bound(options, BindingAction::move_to_output_left) == std::vector<std::string>{"Super+Shift+Left"});
    CHECK(bound(options, BindingAction::move_to_output_down) == std::vector<std::string>{"Super+Shift+Down"});
    // No combination is bound twice: a key press runs one action.
    std::vector<std::string> all;
    for (const auto& binding : options.bindings.bindings)
        all.push_back(describe(binding.combo));
    std::sort(all.begin(), all.end());
    CHECK(std::adjacent_find(all.begin(), all.end()) == all.end());
}

TEST_CASE("[workspaces] names and count; [bindings] workspace keys take modifiers")
{
    const Options defaults;
    CHECK(defaults.workspaces.names.empty());
    CHECK(defaults.workspaces.count == 9);
    auto applied = apply("[workspaces]\nnames=web, mail , 3 chat\ncount=4\n[bindings]\nworkspace=Alt\n"
                         "move-to-workspace=none\nsnap-left=Super+H\n");
    INFO((applied.problems.empty() ? "" : describe(applied.problems[0])));
    REQUIRE(applied.problems.empty());
    CHECK(applied.options.workspaces.names == std::vector<std::string>{"web", "mail", "3 chat"});
    CHECK(applied.options.workspaces.count == 4);
    const auto workspaces = bound(applied.options, BindingAction::workspace);
    REQUIRE(workspaces.size() == 9);
    CHECK(workspaces.front() == "Alt+1");
    CHECK(bound(applied.options, BindingAction::move_to_workspace).empty());
    CHECK(bound(applied.options, BindingAction::snap_left) == std::vector<std::string>{"Super+h"});
    check_one_problem("[workspaces]\ncount=0\n", 2, "1 to 99");
    check_one_problem("[workspaces]\nnames=web,,mail\n", 2, "names separated by commas");
    check_one_problem("[workspaces]\nnames=web, web\n", 2, "'web' twice");
    check_one_problem("[bindings]\nworkspace=Super+Hyper\n", 2, "unknown modifier 'Hyper'");
}

TEST_CASE("[output NAME] workspaces: the output's own named workspaces, kept for an output not plugged in")
{
    auto applied = apply("[output HDMI-A-1]\nworkspaces=chat, 7\n[output DP-9]\nworkspaces=away\n");
    INFO((applied.problems.empty() ? "" : describe(applied.problems[0])));
    REQUIRE(applied.problems.empty());
    REQUIRE(applied.options.output("HDMI-A-1"));
    CHECK(applied.options.output("HDMI-A-1")->workspaces == std::vector<std::string>{"chat", "7"});
    REQUIRE(applied.options.output("DP-9"));
    CHECK(applied.options.output("DP-9")->workspaces == std::vector<std::string>{"away"});
    check_one_problem("[output DP-1]\nworkspaces=a,,b\n", 2, "names separated by commas");
    check_one_problem("[output DP-1]\nworkspaces=a, a\n", 2, "'a' twice");
}

TEST_CASE("[rule] and [rule NAME]: each header a rule of its own; bad ones reported on their line and dropped")
{
    auto applied = apply("[rule mail]\ntag=e-mail composer\nworkspace=2\n[rule]\napp-id=org.gnome.Terminal\n"
                         "output=HDMI-A-1\nworkspace=mail\n[rule]\ntag=x\nworkspace=3\n");
    INFO((applied.problems.empty() ? "" : describe(applied.problems[0])));
    REQUIRE(applied.problems.empty());
    REQUIRE(applied.options.rules.size() == 3);
    const WindowRule& mail = applied.options.rules[0];
    CHECK(mail.name == "mail");
    CHECK(mail.line == 1);
    CHECK(mail.tag == "e-mail composer");
    CHECK(mail.app_id.empty());
    CHECK(mail.workspace == "2");
    const WindowRule& terminal = applied.options.rules[1];
    CHECK(terminal.name.empty());
    CHECK(terminal.app_id == "org.gnome.Terminal");
    CHECK(terminal.output == "HDMI-A-1");
    CHECK(terminal.workspace == "mail");
    CHECK(applied.options.rules[2].tag == "x");
    check_one_problem("[rule a]\nworkspace=2\n", 1, "matches no window");
    check_one_problem("[rule]\ntag=main window\n", 1, "does nothing");
    check_one_problem("[rule]\ntag=a\nworkspace=2\nworkspace=3\n", 4, "duplicate key 'workspace'");
    // An empty value is reported on its line; the rule, left with nothing to do, is then dropped on its header.
    auto empty = apply("[rule]\ntag=a\nworkspace=\n");
    REQUIRE(empty.problems.size() == 2);
    CHECK(empty.problems[0].line == 3);
    CHECK(describe(empty.problems[0]).find("a workspace's name or number") != std::string::npos);
    CHECK(empty.problems[1].line == 1);
    CHECK(empty.options.rules.empty());
    check_one_problem("[rule]\ntag=a\nworkspace=2\nsticky=yes\n", 4, "unknown key 'sticky'");
    // The bad line is ignored and the rule keeps what was good; a dropped rule leaves the others.
    auto mixed = apply("[rule]\ntag=a\nworkspace=2\nsticky=yes\n[rule]\noutput=X\n[rule b]\napp-id=b\noutput=X\n");
    REQUIRE(mixed.problems.size() == 2);
    REQUIRE(mixed.options.rules.size() == 2);
    CHECK(mixed.options.rules[0].workspace == "2");
    CHECK(mixed.options.rules[1].name == "b");
}

TEST_CASE("[bindings] keys replace an action's defaults; none turns one off; command adds")
{
    auto applied = apply("[bindings]\nterminal=foot --server\nclose=super+w\nfocus-next=Alt+Tab Mod4+shift+TAB\n"
                         "quit=none\nswitch-vt=Super+Ctrl\ncommand=Super+D fuzzel --dmenu\ncommand=Logo+q echo hi\n");
    INFO((applied.problems.empty() ? "" : describe(applied.problems[0])));
    REQUIRE(applied.problems.empty());
    const Options& options = applied.options;
    CHECK(options.bindings.terminal == "foot --server");
    CHECK(bound(options, BindingAction::close) == std::vector<std::string>{"Super+w"});
    CHECK(bound(options, BindingAction::focus_next) == std::vector<std::string>{"Alt+Tab", "Super+Shift+Tab"});
    CHECK(bound(options, BindingAction::quit).empty());
    CHECK(bound(options, BindingAction::switch_vt).front() == "Super+Ctrl+F1");
    CHECK(bound(options, BindingAction::open_terminal) == std::vector<std::string>{"Super+Return"});
    std::vector<std::string> commands;
    for (const auto& binding : options.bindings.bindings)
        if (binding.action == BindingAction::command)
            commands.push_back(describe(binding.combo) + " " + binding.command);
    CHECK(commands == std::vector<std::string>{"Super+d fuzzel --dmenu", "Super+q echo hi"});
}

TEST_CASE("a combination one of kiln's defaults uses goes to the line that names it")
{
    auto applied = apply("[bindings]\nfullscreen=Super+Q\n");
    REQUIRE(applied.problems.empty());
    CHECK(bound(applied.options, BindingAction::fullscreen) == std::vector<std::string>{"Super+q"});
    CHECK(bound(applied.options, BindingAction::close).empty());
}

TEST_CASE("bad [bindings] lines: each reported with its line and reason, the rest applies")
{
    auto applied = apply("[bindings]\n"
                         "close=Super+Nokey\n"           // 2: unknown key
                         "fullscreen=Hyper+F\n"           // 3: unknown modifier
                         "maximize=Super+\n"              // 4: empty part
                         "quit=Super+Shift\n"             // 5: a modifier, no key
                         "command=Super+D\n"              // 6: no command
                         "focus-next=Super+J\n"           // 7: fine
                         "command=Super+J foot\n"         // 8: bound on line 7
                         "switch-vt=F1\n"                 // 9: not modifiers
                         "open-terminal=\n"               // 10: empty
                         "terminal=foot\n");             // 11: fine
    std::vector<std::pair<int, std::string>> expected = {
        {2, "bad value 'Super+Nokey' for close in [bindings]: expected key combinations"},
        {2, "unknown key 'Nokey'"},
        {3, "unknown modifier 'Hyper'"},
        {4, "an empty part in 'Super+'"},
        {5, "ends in a modifier"},
        {6, "a key combination and a shell command"},
        {8, "Super+j is bound on line 7"},
        {9, "unknown modifier 'F1'"},
        {10, "bad value '' for open-terminal"},
    };
    REQUIRE(applied.problems.size() == 8);
    for (const auto& [line, words] : expected) {
        auto it = std::find_if(applied.problems.begin(), applied.problems.end(),
                               [&](const ConfigProblem& p) { return p.line == line; });
        REQUIRE(it != applied.problems.end());
        INFO(describe(*it));
        CHECK(describe(*it).find(words) != std::string::npos);
    }
    // The bad lines left their actions' defaults; the good ones applied.
    CHECK(bound(applied.options, BindingAction::close) == std::vector<std::string>{"Super+q"});
    CHECK(bound(applied.options, BindingAction::quit) == std::vector<std::string>{"Super+Shift+e"});
    CHECK(bound(applied.options, BindingAction::focus_next) == std::vector<std::string>{"Super+j"});
    CHECK(bound(applied.options, BindingAction::switch_vt).size() == 12);
    CHECK(applied.options.bindings.terminal == "foot");
}

TEST_CASE("[xwayland] mode, and a flag wins over it")
{
    auto applied = apply("[xwayland]\nmode=off\n");
    CHECK(applied.problems.empty());
    CHECK(applied.options.xwayland == XwaylandMode::off);
    CHECK(apply("[xwayland]\nmode=eager\n").options.xwayland == XwaylandMode::eager);
    check_one_problem("[xwayland]\nmode=maybe\n", 2, "lazy, eager or off");
    std::vector<const char*> argv{"kiln", "--xwayland=lazy"};
    auto result = parse_options(static_cast<int>(argv.size()), argv.data(), applied.options);
    REQUIRE(result.options);
    CHECK(result.options->xwayland == XwaylandMode::lazy);
}

TEST_CASE("[decorations] mode: client by default, server or client-preferred when asked")
{
    CHECK(apply("").options.decorations.mode == DecorationMode::client);
    CHECK(apply("[decorations]\nmode=server\n").options.decorations.mode == DecorationMode::server);
    CHECK(apply("[decorations]\nmode=client-preferred\n").options.decorations.mode ==
          DecorationMode::client_preferred);
    CHECK(apply("[decorations]\nmode=client\n").options.decorations.mode == DecorationMode::client);
    check_one_problem("[decorations]\nmode=both\n", 2, "client, server or client-preferred");
}
