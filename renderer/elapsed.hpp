// Elapsed time in milliseconds, as the renderer's and the program cache's statistics report it.
#pragma once

#include <chrono>

namespace kiln::renderer {

using Clock = std::chrono::steady_clock;

inline double ms_since(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace kiln::renderer
