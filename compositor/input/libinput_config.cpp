// libinput's configuration calls behind DeviceConfig; each setter's status is libinput's to report (a device
// that says it has a feature accepts every value the interface allows).
#include "compositor/input/libinput_config.hpp"

#include <libinput.h>

namespace kiln::compositor {
namespace {

libinput_config_accel_profile to_libinput(AccelProfile profile)
{
    return profile == AccelProfile::flat ? LIBINPUT_CONFIG_ACCEL_PROFILE_FLAT : LIBINPUT_CONFIG_ACCEL_PROFILE_ADAPTIVE;
}

}  // namespace

bool LibinputConfig::has_tap() const { return libinput_device_config_tap_get_finger_count(device_) > 0; }
bool LibinputConfig::default_tap() const
{
    return libinput_device_config_tap_get_default_enabled(device_) == LIBINPUT_CONFIG_TAP_ENABLED;
}
void LibinputConfig::set_tap(bool enabled)
{
    libinput_device_config_tap_set_enabled(device_, enabled ? LIBINPUT_CONFIG_TAP_ENABLED : LIBINPUT_CONFIG_TAP_DISABLED);
}

bool LibinputConfig::has_natural_scroll() const { return libinput_device_config_scroll_has_natural_scroll(device_); }
bool LibinputConfig::default_natural_scroll() const
{
    return libinput_device_config_scroll_get_default_natural_scroll_enabled(device_);
}
void LibinputConfig::set_natural_scroll(bool enabled)
{
    libinput_device_config_scroll_set_natural_scroll_enabled(device_, enabled);
}

bool LibinputConfig::has_left_handed() const { return libinput_device_config_left_handed_is_available(device_); }
bool LibinputConfig::default_left_handed() const { return libinput_device_config_left_handed_get_default(device_); }
void LibinputConfig::set_left_handed(bool enabled) { libinput_device_config_left_handed_set(device_, enabled); }

bool LibinputConfig::has_disable_while_typing() const { return libinput_device_config_dwt_is_available(device_); }
bool LibinputConfig::default_disable_while_typing() const
{
    return libinput_device_config_dwt_get_default_enabled(device_) == LIBINPUT_CONFIG_DWT_ENABLED;
}
void LibinputConfig::set_disable_while_typing(bool enabled)
{
    libinput_device_config_dwt_set_enabled(device_, enabled ? LIBINPUT_CONFIG_DWT_ENABLED : LIBINPUT_CONFIG_DWT_DISABLED);
}

bool LibinputConfig::has_accel() const { return libinput_device_config_accel_is_available(device_); }
bool LibinputConfig::has_accel_profile(AccelProfile profile) const
{
    return (libinput_device_config_accel_get_profiles(device_) & to_libinput(profile)) != 0;
}
AccelProfile LibinputConfig::default_accel_profile() const
{
    return libinput_device_config_accel_get_default_profile(device_) == LIBINPUT_CONFIG_ACCEL_PROFILE_FLAT
               ? AccelProfile::flat
               : AccelProfile::adaptive;
}
void LibinputConfig::set_accel_profile(AccelProfile profile)
{
    libinput_device_config_accel_set_profile(device_, to_libinput(profile));
}
double LibinputConfig::default_accel_speed() const { return libinput_device_config_accel_get_default_speed(device_); }
void LibinputConfig::set_accel_speed(double speed) { libinput_device_config_accel_set_speed(device_, speed); }

}  // namespace kiln::compositor
