// zstd compression with prepared dictionaries (the design's advice: CDict/DDict, not raw-dictionary calls).
#include "renderer/cache/compressor.hpp"

#define ZSTD_STATIC_LINKING_ONLY
#include <zdict.h>
#include <zstd.h>

namespace kiln::cache {
namespace {
constexpr int level = 9;
// Sanity bound on what one entry may expand to (program binaries and driver blobs are far smaller).
constexpr uint64_t max_raw_size = 64u << 20;
}  // namespace

Compressor::Compressor() : cctx_(ZSTD_createCCtx()), dctx_(ZSTD_createDCtx()) {}

Compressor::~Compressor()
{
    ZSTD_freeCDict(cdict_);
    for (auto& d : read_dictionaries_)
        ZSTD_freeDDict(d.ddict);
    ZSTD_freeCCtx(cctx_);
    ZSTD_freeDCtx(dctx_);
}

uint32_t Compressor::id_of(std::span<const uint8_t> dictionary)
{
    return ZDICT_getDictID(dictionary.data(), dictionary.size());
}

bool Compressor::add_read_dictionary(std::vector<uint8_t> dictionary)
{
    std::lock_guard lock(mutex_);
    return add_read_dictionary_locked(std::move(dictionary));
}

bool Compressor::add_read_dictionary_locked(std::vector<uint8_t> dictionary)
{
    const uint32_t id = id_of(dictionary);
    if (id == 0)
        return false;
    for (const auto& d : read_dictionaries_)
        if (d.id == id)
            return true;
    ZSTD_DDict_s* ddict = ZSTD_createDDict(dictionary.data(), dictionary.size());
    if (!ddict)
        return false;
    read_dictionaries_.push_back({id, std::move(dictionary), ddict});
    return true;
}

bool Compressor::set_dictionary(std::vector<uint8_t> dictionary)
{
    const uint32_t id = id_of(dictionary);
    if (id == 0)
        return false;
    ZSTD_CDict_s* cdict = ZSTD_createCDict(dictionary.data(), dictionary.size(), level);
    if (!cdict)
        return false;
    std::lock_guard lock(mutex_);
    if (!add_read_dictionary_locked(dictionary)) {
        ZSTD_freeCDict(cdict);
        return false;
    }
    ZSTD_freeCDict(cdict_);
    cdict_ = cdict;
    dictionary_id_ = id;
    return true;
}

std::vector<uint8_t> Compressor::compress(std::span<const uint8_t> raw) const
{
    std::lock_guard lock(mutex_);
    std::vector<uint8_t> out(ZSTD_compressBound(raw.size()));
    const size_t n = cdict_ ? ZSTD_compress_usingCDict(cctx_, out.data(), out.size(), raw.data(), raw.size(), cdict_)
                            : ZSTD_compressCCtx(cctx_, out.data(), out.size(), raw.data(), raw.size(), level);
    if (ZSTD_isError(n))
        return {};
    out.resize(n);
    return out;
}

std::optional<std::vector<uint8_t>> Compressor::decompress(std::span<const uint8_t> packed, uint32_t dictionary_id,
                                                           uint64_t raw_size, std::string* why) const
{
    if (raw_size > max_raw_size) {
        if (why)
            *why = "entry claims an implausible size";
        return std::nullopt;
    }
    const unsigned long long frame_size = ZSTD_getFrameContentSize(packed.data(), packed.size());
    if (frame_size == ZSTD_CONTENTSIZE_ERROR || frame_size == ZSTD_CONTENTSIZE_UNKNOWN || frame_size != raw_size) {
        if (why)
            *why = "not a zstd frame of the recorded size";
        return std::nullopt;
    }
    std::unique_lock dict_lock(mutex_);
    const ZSTD_DDict_s* ddict = nullptr;
    if (dictionary_id != 0) {
        for (const auto& d : read_dictionaries_)
            if (d.id == dictionary_id)
                ddict = d.ddict;
        if (!ddict) {
            if (why)
                *why = "compressed with dictionary " + std::to_string(dictionary_id) + ", which is gone";
            return std::nullopt;
        }
    }
    std::vector<uint8_t> out(static_cast<size_t>(raw_size));
    const size_t n = ddict ? ZSTD_decompress_usingDDict(dctx_, out.data(), out.size(), packed.data(), packed.size(), ddict)
                           : ZSTD_decompressDCtx(dctx_, out.data(), out.size(), packed.data(), packed.size());
    if (ZSTD_isError(n) || n != raw_size) {
        if (why)
            *why = ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short frame";
        return std::nullopt;
    }
    return out;
}

std::vector<uint8_t> Compressor::train(const std::vector<std::vector<uint8_t>>& samples, size_t capacity)
{
    if (samples.size() < 8)
        return {};
    std::vector<uint8_t> joined;
    std::vector<size_t> sizes;
    for (const auto& s : samples) {
        joined.insert(joined.end(), s.begin(), s.end());
        sizes.push_back(s.size());
    }
    std::vector<uint8_t> dictionary(capacity);
    const size_t n = ZDICT_trainFromBuffer(dictionary.data(), dictionary.size(), joined.data(), sizes.data(),
                                           static_cast<unsigned>(sizes.size()));
    if (ZDICT_isError(n))
        return {};
    dictionary.resize(n);
    return dictionary;
}

}  // namespace kiln::cache
