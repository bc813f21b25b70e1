// The logging path: one formatted line, "kiln: " in front, to stderr (errors, notices) or to wlroots' log (info,
// debug).
#include "compositor/log.hpp"

#include "compositor/wlr.hpp"

#include <cstdio>
#include <string>

namespace kiln::compositor::log {

void write(Level level, const char* format, va_list args)
{
    va_list measure;
    va_copy(measure, args);
    const int size = std::vsnprintf(nullptr, 0, format, measure);
    va_end(measure);
    std::string message(size > 0 ? static_cast<size_t>(size) : 0, '\0');
    if (size > 0)
        std::vsnprintf(message.data(), message.size() + 1, format, args);
    switch (level) {
    // A notice reads as an error does on stderr: what tells them apart is the call, for the reader of the code.
    case Level::error:
    case Level::notice: std::fprintf(stderr, "kiln: %s\n", message.c_str()); break;
    // Straight to wlroots' log function: its wlr_log macro would put this file's name and line in front.
    case Level::info: _wlr_log(WLR_INFO, "kiln: %s", message.c_str()); break;
    case Level::debug: _wlr_log(WLR_DEBUG, "kiln: %s", message.c_str()); break;
    }
}

void error(const char* format, ...)
{
    va_list args;
    va_start(args, format);
    write(Level::error, format, args);
    va_end(args);
}

void notice(const char* format, ...)
{
    va_list args;
    va_start(args, format);
    write(Level::notice, format, args);
    va_end(args);
}

void info(const char* format, ...)
{
    va_list args;
    va_start(args, format);
    write(Level::info, format, args);
    va_end(args);
}

void debug(const char* format, ...)
{
    va_list args;
    va_start(args, format);
    write(Level::debug, format, args);
    va_end(args);
}

}  // namespace kiln::compositor::log
