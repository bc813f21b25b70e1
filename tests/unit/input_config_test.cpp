// [input] and [input NAME] reach a device: set keys applied, left-out keys back to the device's defaults, missing
// features left alone, [input NAME] over [input]; a recording fake stands in for libinput.
#include "compositor/input/input_config.hpp"
#include "compositor/session/config.hpp"

#include <catch2/catch_test_macros.hpp>

#include <map>
#include <optional>
#include <string>

using namespace kiln::compositor;

namespace {

// A touchpad-like device: every feature, libinput's usual defaults (tap off, adaptive, speed 0), calls recorded.
class FakeDevice final : public DeviceConfig {
public:
    bool features = true;
    bool flat_profile = true;
    std::map<std::string, double> set;  // feature -> last value set

    bool has_tap() const override { return features; }
    bool default_tap() const override { return false; }
    void set_tap(bool on) override { set["tap"] = on; }
    bool has_natural_scroll() const override { return features; }
    bool default_natural_scroll() const override { return false; }
    void set_natural_scroll(bool on) override { set["natural_scroll"] = on; }
    bool has_left_handed() const override { return features; }
    bool default_left_handed() const override { return false; }
    void set_left_handed(bool on) override { set["left_handed"] = on; }
    bool has_disable_while_typing() const override { return features; }
    bool default_disable_while_typing() const override { return true; }
    void set_disable_while_typing(bool on) override { set["dwt"] = on; }
    bool has_accel() const override { return features; }
    bool has_accel_profile(AccelProfile profile) const override
    {
        return profile == AccelProfile::adaptive || flat_profile;
    }
    AccelProfile default_accel_profile() const override { return AccelProfile::adaptive; }
    void set_accel_profile(AccelProfile profile) override { set["flat"] = profile == AccelProfile::flat; }
    double default_accel_speed() const override { return 0.0; }
    void set_accel_speed(double speed) override { set["speed"] = speed; }
};

Options parse(std::string_view text, std::vector<ConfigProblem>* problems_out = nullptr)
{
    Options options;
    std::vector<ConfigProblem> problems;
    apply_config_text(text, "kiln.ini", options, problems);
    if (problems_out)
        *problems_out = problems;
    else
        REQUIRE(problems.empty());
    return options;
}

}  // namespace

TEST_CASE("every [input] key reaches a device that has the feature")
{
    const Options options = parse("[input]\nenable-tap=true\nnatural-scroll=true\nleft-handed=true\n"
                                  "disable-while-typing=false\naccel-profile=flat\naccel-speed=-0.5\n");
    FakeDevice device;
    apply_input_settings(options.input_for("Some Touchpad"), device);
    CHECK(device.set == std::map<std::string, double>{{"tap", 1}, {"natural_scroll", 1}, {"left_handed", 1},
                                                       {"dwt", 0}, {"flat", 1}, {"speed", -0.5}});
}

TEST_CASE("keys left out put the device's defaults back (a reload that drops a key undoes it)")
{
    FakeDevice device;
    apply_input_settings(parse("[input]\nenable-tap=true\n").input_for("pad"), device);
    CHECK(device.set["tap"] == 1);
    apply_input_settings(parse("").input_for("pad"), device);
    CHECK(device.set == std::map<std::string, double>{{"tap", 0}, {"natural_scroll", 0}, {"left_handed", 0},
                                                       {"dwt", 1}, {"flat", 0}, {"speed", 0}});
}

TEST_CASE("a device without a feature is not asked to change it")
{
    FakeDevice mouse;
    mouse.features = false;
    apply_input_settings(parse("[input]\nenable-tap=true\naccel-speed=1\n").input_for("mouse"), mouse);
    CHECK(mouse.set.empty());
    FakeDevice no_flat;
    no_flat.flat_profile = false;
    apply_input_settings(parse("[input]\naccel-profile=flat\n").input_for("mouse"), no_flat);
    CHECK(no_flat.set.count("flat") == 0);
    CHECK(no_flat.set["speed"] == 0);
}

TEST_CASE("[input NAME] wins over [input] for that device only")
{
    const Options options = parse("[input]\nenable-tap=true\naccel-speed=0.25\n"
                                  "[input SynPS/2 Synaptics TouchPad]\nenable-tap=false\nnatural-scroll=true\n");
    const InputSettings pad = options.input_for("SynPS/2 Synaptics TouchPad");
    CHECK(pad.tap == false);
    CHECK(pad.natural_scroll == true);
    CHECK(pad.accel_speed == 0.25);
    const InputSettings other = options.input_for("Logitech Mouse");
    CHECK(other.tap == true);
    CHECK(!other.natural_scroll);
}

TEST_CASE("bad [input] values are reported with their line and change nothing")
{
    std::vector<ConfigProblem> problems;
    const Options options = parse("[input]\nenable-tap=yes\naccel-profile=fast\naccel-speed=2\naccel-speed=0.1\n"
                                  "tap=true\n[input pad]\nleft-handed=1\n",
                                  &problems);
    REQUIRE(problems.size() == 6);
    CHECK(problems[0].line == 2);
    CHECK(problems[0].reason.find("bad value 'yes' for enable-tap in [input]: expected true or false") == 0);
    CHECK(problems[1].line == 3);
    CHECK(problems[1].reason.find("flat or adaptive") != std::string::npos);
    CHECK(problems[2].line == 4);
    CHECK(problems[2].reason.find("-1 (slowest) to 1 (fastest)") != std::string::npos);
    CHECK(problems[3].line == 5);  // the key was given on line 4, even if badly
    CHECK(problems[3].reason.find("duplicate key 'accel-speed'") == 0);
    CHECK(problems[4].line == 6);
    CHECK(problems[4].reason.find("unknown key 'tap' in [input]") == 0);
    CHECK(problems[5].line == 8);
    CHECK(problems[5].reason.find("for left-handed in [input pad]") != std::string::npos);
    CHECK(!options.input.tap);
    CHECK(!options.input.accel_profile);
    CHECK(!options.input.accel_speed);
}
