// Compressor: thread-safe zstd with an optional dictionary trained from the cache's own entries (prepared CDict/DDict, built
// once and reused for every entry).
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

struct ZSTD_CDict_s;
struct ZSTD_DDict_s;
struct ZSTD_CCtx_s;
struct ZSTD_DCtx_s;

namespace kiln::cache {

class Compressor {
public:
    Compressor();
    ~Compressor();
    Compressor(const Compressor&) = delete;
    Compressor& operator=(const Compressor&) = delete;

    // Uses `dictionary` for new entries (and to read entries made with it). False if zstd rejects it.
    bool set_dictionary(std::vector<uint8_t> dictionary);
    uint32_t dictionary_id() const { return dictionary_id_; }
    // Makes another dictionary known for reading only (entries written before a newer dictionary was trained).
    bool add_read_dictionary(std::vector<uint8_t> dictionary);

    std::vector<uint8_t> compress(std::span<const uint8_t> raw) const;
    // nullopt when the bytes are not a zstd frame, need an unknown dictionary, or do not expand to `raw_size`.
    std::optional<std::vector<uint8_t>> decompress(std::span<const uint8_t> packed, uint32_t dictionary_id,
                                                   uint64_t raw_size, std::string* why = nullptr) const;

    // Trains a dictionary (ZDICT) from samples; empty when there are too few or zstd cannot train.
    static std::vector<uint8_t> train(const std::vector<std::vector<uint8_t>>& samples, size_t capacity = 16 * 1024);
    static uint32_t id_of(std::span<const uint8_t> dictionary);

private:
    bool add_read_dictionary_locked(std::vector<uint8_t> dictionary);

    struct Dictionary {
        uint32_t id = 0;
        std::vector<uint8_t> bytes;
        ZSTD_DDict_s* ddict = nullptr;
    };
    // One writer thread compresses while lookups and the loader decompress: contexts are shared, so guarded.
    mutable std::mutex mutex_;
    ZSTD_CCtx_s* cctx_;
    ZSTD_DCtx_s* dctx_;
    ZSTD_CDict_s* cdict_ = nullptr;
    uint32_t dictionary_id_ = 0;
    std::vector<Dictionary> read_dictionaries_;
};

}  // namespace kiln::cache
