// Stats: named counters and timings from every subsystem, written as nested JSON by `kiln --stats FILE`.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace kiln::compositor {

class Stats {
public:
    using Clock = std::chrono::steady_clock;
    using Value = std::variant<int64_t, uint64_t, double, std::string>;
    // Adds its keys when the file is written, so subsystems report their own numbers without the writer knowing them.
    using Provider = std::function<void(Stats&)>;

    explicit Stats(Clock::time_point process_start) : start_(process_start) {}

    // Dotted keys ("startup.first_frame_ms") become nested objects.
    void set(const std::string& key, Value value) { values_[key] = std::move(value); }
    void add_provider(Provider provider) { providers_.push_back(std::move(provider)); }

    double ms_since_start(Clock::time_point when = Clock::now()) const
    {
        return std::chrono::duration<double, std::milli>(when - start_).count();
    }
    static double ms_since(Clock::time_point start)
    {
        return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    }
    // Records `key` as milliseconds since process start, once (the first call wins).
    void mark_once(const std::string& key);

    std::string to_json();
    bool write(const std::string& path, std::string& error);

private:
    Clock::time_point start_;
    std::map<std::string, Value> values_;
    std::vector<Provider> providers_;
};

// Median of samples (0 when empty); used for per-frame CPU time.
double median(std::vector<double> samples);
// The sample at fraction `p` (0 to 1) of the sorted samples, nearest rank; 0 without samples.
double percentile(std::vector<double> samples, double p);

}  // namespace kiln::compositor
