// LibinputConfig: DeviceConfig over one libinput device, the way [input] settings reach real touchpads and mice.
#pragma once

#include "compositor/input/input_config.hpp"

struct libinput_device;

namespace kiln::compositor {

class LibinputConfig final : public DeviceConfig {
public:
    explicit LibinputConfig(libinput_device* device) : device_(device) {}

    bool has_tap() const override;
    bool default_tap() const override;
    void set_tap(bool enabled) override;
    bool has_natural_scroll() const override;
    bool default_natural_scroll() const override;
    void set_natural_scroll(bool enabled) override;
    bool has_left_handed() const override;
    bool default_left_handed() const override;
    void set_left_handed(bool enabled) override;
    bool has_disable_while_typing() const override;
    bool default_disable_while_typing() const override;
    void set_disable_while_typing(bool enabled) override;
    bool has_accel() const override;
    bool has_accel_profile(AccelProfile profile) const override;
    AccelProfile default_accel_profile() const override;
    void set_accel_profile(AccelProfile profile) override;
    double default_accel_speed() const override;
    void set_accel_speed(double speed) override;

private:
    libinput_device* device_;
};

}  // namespace kiln::compositor
