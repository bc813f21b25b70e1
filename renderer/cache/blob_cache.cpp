// Slots and trampolines for EGL_ANDROID_blob_cache.
#include "renderer/cache/blob_cache.hpp"

#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <array>
#include <mutex>
#include <string_view>
#include <utility>

namespace kiln::cache {
namespace {

constexpr size_t slot_count = 4;

struct Slots {
    std::mutex mutex;
    std::array<BlobCache*, slot_count> caches{};
};

Slots& slots()
{
    static Slots s;  // the binding table the driver's context-free callbacks need; holds no cache state itself
    return s;
}

template <size_t I>
void set_trampoline(const void* key, EGLsizeiANDROID key_size, const void* value, EGLsizeiANDROID value_size)
{
    std::lock_guard lock(slots().mutex);
    if (BlobCache* cache = slots().caches[I]; cache && key_size > 0 && value_size > 0)
        cache->set({static_cast<const uint8_t*>(key), static_cast<size_t>(key_size)},
                   {static_cast<const uint8_t*>(value), static_cast<size_t>(value_size)});
}

template <size_t I>
EGLsizeiANDROID get_trampoline(const void* key, EGLsizeiANDROID key_size, void* value, EGLsizeiANDROID value_size)
{
    std::lock_guard lock(slots().mutex);
    BlobCache* cache = slots().caches[I];
    if (!cache || key_size <= 0 || value_size < 0)
        return 0;
    return static_cast<EGLsizeiANDROID>(cache->get({static_cast<const uint8_t*>(key), static_cast<size_t>(key_size)},
                                                   {static_cast<uint8_t*>(value), static_cast<size_t>(value_size)}));
}

template <size_t... I>
constexpr auto make_table(std::index_sequence<I...>)
{
    return std::array<std::pair<EGLSetBlobFuncANDROID, EGLGetBlobFuncANDROID>, sizeof...(I)>{
        std::pair{&set_trampoline<I>, &get_trampoline<I>}...};
}

const auto trampolines = make_table(std::make_index_sequence<slot_count>{});

}  // namespace

BlobCache::BlobCache(Get get, Set set) : get_(std::move(get)), set_(std::move(set)) {}

BlobCache::~BlobCache()
{
    if (slot_ >= 0) {
        std::lock_guard lock(slots().mutex);
        slots().caches[static_cast<size_t>(slot_)] = nullptr;
    }
}

bool BlobCache::install(EGLDisplay display, std::string& why)
{
    const char* exts = eglQueryString(display, EGL_EXTENSIONS);
    if (!exts || std::string_view(exts).find("EGL_ANDROID_blob_cache") == std::string_view::npos) {
        why = "the EGL display has no EGL_ANDROID_blob_cache";
        return false;
    }
    auto set_funcs = reinterpret_cast<PFNEGLSETBLOBCACHEFUNCSANDROIDPROC>(eglGetProcAddress("eglSetBlobCacheFuncsANDROID"));
    if (!set_funcs) {
        why = "eglSetBlobCacheFuncsANDROID is missing";
        return false;
    }
    {
        std::lock_guard lock(slots().mutex);
        for (size_t i = 0; i < slot_count && slot_ < 0; ++i)
            if (!slots().caches[i]) {
                slots().caches[i] = this;
                slot_ = static_cast<int>(i);
            }
    }
    if (slot_ < 0) {
        why = "every blob cache slot is taken";
        return false;
    }
    const auto& [set, get] = trampolines[static_cast<size_t>(slot_)];
    set_funcs(display, set, get);
    return true;
}

}  // namespace kiln::cache
