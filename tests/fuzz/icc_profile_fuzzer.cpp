// libFuzzer target for the ICC profile reader color-management-v1's ICC creator calls: any bytes, read as a client's
// profile; whatever it accepts must be a whole, finite table. lcms2 itself is the system's (not instrumented), so
// this finds kiln's mistakes and lcms2 crashes, not lcms2's silent overreads.
#include "compositor/protocol_kit/icc_profile.hpp"

#include <cmath>
#include <cstdlib>
#include <span>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    kiln::compositor::IccProfile profile;
    std::string why;
    // A small cube: the sampling loop is the same, and the fuzzer runs many more inputs a second.
    constexpr int cube = 5;
    if (!kiln::compositor::read_icc_profile(std::span(data, size), profile, why, cube)) {
        if (why.empty())
            std::abort();  // a refusal always says why (the failed event's message)
        return 0;
    }
    if (!profile.table || profile.table->size != cube || profile.table->xyz.size() != size_t(cube * cube * cube * 3))
        std::abort();
    for (float v : profile.table->xyz)
        if (!std::isfinite(v))
            std::abort();
    return 0;
}
