// The driver fingerprint: what decides which EGL display kiln opens and what it imports, read without starting EGL
// (DRM devices and their kernel drivers, Mesa's and glvnd's files, the environment that steers them, kiln's
// version). It keys the cached DisplayProfile, so a start that finds it need not open EGL to describe the display.
#pragma once

#include "renderer/cache/digest.hpp"

#include <string>

namespace kiln::cache {

// One line per fact, for logs and tests; `drm_fd` is the backend's DRM fd, -1 when there is none.
std::string driver_fingerprint(int drm_fd);
inline Sha1 driver_fingerprint_key(const std::string& fingerprint) { return sha1(fingerprint); }

}  // namespace kiln::cache
