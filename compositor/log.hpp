// kiln's one logging path: log::error() for what went wrong and a user must see, log::notice() for what a user should
// see that is no error (banners, status: "reloaded kiln.ini", a VT switch), both on stderr, always; log::info() and
// log::debug() for what --debug shows (through wlroots' log, so they also land in the start-up failure log); every
// line starts "kiln: ".
#pragma once

#include <cstdarg>

namespace kiln::compositor::log {

enum class Level { error, notice, info, debug };

// printf-style `format`; the line gets "kiln: " in front and a newline after.
void error(const char* format, ...) __attribute__((format(printf, 1, 2)));
void notice(const char* format, ...) __attribute__((format(printf, 1, 2)));
void info(const char* format, ...) __attribute__((format(printf, 1, 2)));
void debug(const char* format, ...) __attribute__((format(printf, 1, 2)));
void write(Level level, const char* format, va_list args) __attribute__((format(printf, 2, 0)));

}  // namespace kiln::compositor::log
