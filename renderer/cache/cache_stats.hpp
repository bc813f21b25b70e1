// Counters and histograms of the program cache, reported under programs.* by kiln --stats.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>

namespace kiln::cache {

// Power-of-two buckets: enough to see the shape (and the tail) of sizes and times without storing samples.
class Histogram {
public:
    void add(double value);
    uint64_t count() const { return count_; }
    double sum() const { return sum_; }
    double max() const { return max_; }
    double mean() const { return count_ ? sum_ / static_cast<double>(count_) : 0.0; }
    // Value below which `fraction` of the samples fall, at bucket resolution.
    double quantile(double fraction) const;

private:
    static constexpr size_t bucket_count = 48;
    std::array<uint64_t, bucket_count> buckets_{};
    uint64_t count_ = 0;
    double sum_ = 0;
    double max_ = 0;
};

struct CacheStats {
    uint64_t linked_from_source = 0;
    uint64_t loaded_from_memory = 0;
    uint64_t loaded_from_disk = 0;
    uint64_t loaded_from_system = 0;
    uint64_t binary_rejected = 0;  // a stored binary the driver refused: dropped, then compiled
    uint64_t shaders_compiled = 0;
    uint64_t shaders_reused = 0;
    uint64_t new_programs = 0;
    uint64_t blob_hits = 0;
    uint64_t blob_misses = 0;
    uint64_t blob_stores = 0;
    Histogram binary_bytes;
    Histogram memory_hit_ms;
    Histogram disk_hit_ms;   // a disk hit whole: the entry read and checked, then handed to the driver
    Histogram disk_read_ms;  // its first part only, kiln's own: open, read, checksum, decompress
    Histogram miss_link_ms;
    Histogram compile_ms;

    // Calls `count` with every counter and `value` with every measurement, named as kiln --stats writes them
    // (without the "programs." prefix).
    void report(const std::function<void(const std::string&, uint64_t)>& count,
                const std::function<void(const std::string&, double)>& value) const;
};

}  // namespace kiln::cache
