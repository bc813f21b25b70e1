// What [input] and [input NAME] ask of one pointing device, through an interface a test fakes (no libinput here).
#pragma once

#include "compositor/session/settings.hpp"

namespace kiln::compositor {

// One device's configurable features: whether it has each, its default, and the setter.
class DeviceConfig {
public:
    virtual ~DeviceConfig() = default;

    virtual bool has_tap() const = 0;
    virtual bool default_tap() const = 0;
    virtual void set_tap(bool enabled) = 0;

    virtual bool has_natural_scroll() const = 0;
    virtual bool default_natural_scroll() const = 0;
    virtual void set_natural_scroll(bool enabled) = 0;

    virtual bool has_left_handed() const = 0;
    virtual bool default_left_handed() const = 0;
    virtual void set_left_handed(bool enabled) = 0;

    virtual bool has_disable_while_typing() const = 0;
    virtual bool default_disable_while_typing() const = 0;
    virtual void set_disable_while_typing(bool enabled) = 0;

    virtual bool has_accel() const = 0;
    virtual bool has_accel_profile(AccelProfile profile) const = 0;
    virtual AccelProfile default_accel_profile() const = 0;
    virtual void set_accel_profile(AccelProfile profile) = 0;
    virtual double default_accel_speed() const = 0;
    virtual void set_accel_speed(double speed) = 0;
};

// Sets each feature the device has to the settings' value, or to the device's default where the settings leave it
// out (so a key removed from kiln.ini is undone on reload). A feature the device lacks is left alone.
void apply_input_settings(const InputSettings& settings, DeviceConfig& device);

}  // namespace kiln::compositor
