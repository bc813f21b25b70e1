// Applies [input] settings to a device's features, falling back to the device's defaults.
#include "compositor/input/input_config.hpp"

namespace kiln::compositor {

void apply_input_settings(const InputSettings& settings, DeviceConfig& device)
{
    if (device.has_tap())
        device.set_tap(settings.tap.value_or(device.default_tap()));
    if (device.has_natural_scroll())
        device.set_natural_scroll(settings.natural_scroll.value_or(device.default_natural_scroll()));
    if (device.has_left_handed())
        device.set_left_handed(settings.left_handed.value_or(device.default_left_handed()));
    if (device.has_disable_while_typing())
        device.set_disable_while_typing(settings.disable_while_typing.value_or(device.default_disable_while_typing()));
    if (device.has_accel()) {
        const AccelProfile profile = settings.accel_profile.value_or(device.default_accel_profile());
        if (device.has_accel_profile(profile))
            device.set_accel_profile(profile);
        device.set_accel_speed(settings.accel_speed.value_or(device.default_accel_speed()));
    }
}

}  // namespace kiln::compositor
