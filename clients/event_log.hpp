// EventLog: one line per event on stdout, stamped with CLOCK_MONOTONIC milliseconds, so a test can line a client's
// events up with its own clock and with screenshots.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <ctime>

namespace kiln::clients {

inline double monotonic_ms()
{
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

// Prints "<ms> <event text>\n" and flushes (the reader is a pipe).
__attribute__((format(printf, 1, 2))) inline void log_event(const char* format, ...)
{
    std::printf("%.3f ", monotonic_ms());
    va_list args;
    va_start(args, format);
    std::vprintf(format, args);
    va_end(args);
    std::putchar('\n');
    std::fflush(stdout);
}

}  // namespace kiln::clients
