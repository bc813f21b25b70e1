// BlobCache: the driver's own shader cache (EGL_ANDROID_blob_cache) served from kiln's tiers.
//
// The driver calls back with no user pointer and no display, so each installed BlobCache takes one of a few
// process-wide slots, each with its own pair of C trampolines. The slot is cleared when the BlobCache dies; a driver
// calling a cleared slot just misses.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace kiln::cache {

class BlobCache {
public:
    // `get` copies the value for `key` into `out` when it fits and returns its size (0: miss); `set` stores one.
    using Get = std::function<size_t(std::span<const uint8_t> key, std::span<uint8_t> out)>;
    using Set = std::function<void(std::span<const uint8_t> key, std::span<const uint8_t> value)>;

    BlobCache(Get get, Set set);
    ~BlobCache();
    BlobCache(const BlobCache&) = delete;
    BlobCache& operator=(const BlobCache&) = delete;

    // Must run after the display's first eglCreateContext: Mesa ignores callbacks set earlier.
    // `display` is the EGLDisplay (a pointer, kept plain so that this header carries no EGL).
    bool install(void* display, std::string& why);
    bool installed() const { return slot_ >= 0; }

    size_t get(std::span<const uint8_t> key, std::span<uint8_t> out) const { return get_(key, out); }
    void set(std::span<const uint8_t> key, std::span<const uint8_t> value) const { set_(key, value); }

private:
    Get get_;
    Set set_;
    int slot_ = -1;
};

}  // namespace kiln::cache
