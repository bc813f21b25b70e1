// memfd_import_verdict: whether a GL test that hands the driver a memfd as a dma-buf runs, skips or fails, from what
// the display answered. Mesa's software driver maps any fd it is given, so a memfd stands in for a dma-buf there and
// a refusal is kiln's fault (red); a hardware driver (NVIDIA's, a Mesa GPU driver) imports only real dma-bufs from
// an exporter, so its refusal means the test has no buffer it could use there (skipped, with the driver's words).
#pragma once

#include <string>

namespace kiln::test {

struct MemfdImportAnswer {
    std::string driver;    // the display's renderer, for the reason
    std::string format;    // e.g. "NV12"
    bool software = false;  // Mesa's software driver (llvmpipe, softpipe): it maps memfds
    bool offered = false;   // the format is among those the display offers
    bool imported = false;  // a memfd buffer of that format was turned into a texture
    std::string error;      // why not, when it was not
};

struct MemfdImportVerdict {
    enum class Kind { run, skip, fail } kind;
    std::string reason;  // for skip and fail
};

inline MemfdImportVerdict memfd_import_verdict(const MemfdImportAnswer& a)
{
    using Kind = MemfdImportVerdict::Kind;
    if (a.software) {
        if (!a.offered)
            return {Kind::fail, a.format + " is not offered on " + a.driver + ", which maps any fd it is handed"};
        if (!a.imported)
            return {Kind::fail, a.driver + " refused a memfd " + a.format + " buffer: " + a.error};
        return {Kind::run, {}};
    }
    if (!a.offered)
        return {Kind::skip, a.driver + " does not offer " + a.format + " dma-bufs"};
    if (!a.imported)
        return {Kind::skip, "a memfd is no dma-buf to " + a.driver + " (it refused a " + a.format +
                                " one: " + a.error + "); this case needs a driver that maps memfds"};
    return {Kind::run, {}};
}

}  // namespace kiln::test
