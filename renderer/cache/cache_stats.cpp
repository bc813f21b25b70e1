// Histogram buckets and the stats report.
#include "renderer/cache/cache_stats.hpp"

#include <algorithm>
#include <cmath>

namespace kiln::cache {
namespace {

// Bucket i holds values in [2^(i-16), 2^(i-15)): from ~15 microseconds (or bytes) up.
size_t bucket_of(double value)
{
    if (value <= 0)
        return 0;
    const int exponent = static_cast<int>(std::floor(std::log2(value))) + 16;
    return static_cast<size_t>(std::clamp(exponent, 0, 47));
}

double bucket_upper(size_t i)
{
    return std::ldexp(1.0, static_cast<int>(i) - 15);
}

}  // namespace

void Histogram::add(double value)
{
    ++buckets_[bucket_of(value)];
    ++count_;
    sum_ += value;
    max_ = std::max(max_, value);
}

double Histogram::quantile(double fraction) const
{
    if (count_ == 0)
        return 0;
    const double target = fraction * static_cast<double>(count_);
    double seen = 0;
    for (size_t i = 0; i < bucket_count; ++i) {
        seen += static_cast<double>(buckets_[i]);
        if (seen >= target)
            return std::min(bucket_upper(i), max_);
    }
    return max_;
}

void CacheStats::report(const std::function<void(const std::string&, uint64_t)>& count,
                        const std::function<void(const std::string&, double)>& value) const
{
    count("linked_from_source", linked_from_source);
    count("loaded_from_memory", loaded_from_memory);
    count("loaded_from_disk", loaded_from_disk);
    count("loaded_from_system_tier", loaded_from_system);
    count("binary_rejected", binary_rejected);
    count("shaders_compiled", shaders_compiled);
    count("shaders_reused", shaders_reused);
    count("new_programs", new_programs);
    count("blob_hits", blob_hits);
    count("blob_misses", blob_misses);
    count("blob_stores", blob_stores);
    const std::pair<const char*, const Histogram*> histograms[] = {
        {"histograms.binary_bytes", &binary_bytes}, {"histograms.memory_hit_ms", &memory_hit_ms},
        {"histograms.disk_hit_ms", &disk_hit_ms},   {"histograms.miss_link_ms", &miss_link_ms},
        {"histograms.compile_ms", &compile_ms},     {"histograms.disk_read_ms", &disk_read_ms},
    };
    for (const auto& [name, h] : histograms) {
        const std::string base = name;
        count(base + ".count", h->count());
        value(base + ".mean", h->mean());
        value(base + ".p50", h->quantile(0.5));
        value(base + ".p95", h->quantile(0.95));
        value(base + ".max", h->max());
    }
}

}  // namespace kiln::cache
