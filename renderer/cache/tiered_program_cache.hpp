// TieredProgramCache: kiln's ProgramCache. Memory LRU of linked program binaries → user disk tier → read-only
// system tier, plus the driver's own blob cache served from the same tiers, a precompile list, and statistics.
#pragma once

#include "renderer/cache/blob_cache.hpp"
#include "renderer/cache/cache_stats.hpp"
#include "renderer/cache/disk_tier.hpp"
#include "renderer/cache/memory_tier.hpp"
#include "renderer/cache/precompile_list.hpp"
#include "renderer/cache/program_key.hpp"
#include "renderer/cache/status_cache.hpp"
#include "renderer/program_cache.hpp"

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace kiln::cache {

struct CacheOptions {
    std::filesystem::path user_dir;    // empty: no user tier (memory only)
    std::filesystem::path system_dir;  // empty: no system tier
    size_t memory_budget = MemoryTier::default_budget;
    uint64_t disk_max_bytes = 64u << 20;
    int max_age_days = 30;
    bool blob_cache = true;
    uint64_t blob_memory_budget = 32u << 20;
    std::function<void(const std::string&)> log;  // one line per message; default: stderr
};

// $XDG_CACHE_HOME/kiln, else ~/.cache/kiln; empty when neither can be named.
std::filesystem::path default_user_cache_dir();

class TieredProgramCache final : public renderer::ProgramCache {
public:
    explicit TieredProgramCache(CacheOptions options);
    ~TieredProgramCache() override;
    TieredProgramCache(const TieredProgramCache&) = delete;
    TieredProgramCache& operator=(const TieredProgramCache&) = delete;

    void context_ready(void* display, const std::string& device) override;  // an EGLDisplay
    void context_lost() override;
    std::optional<renderer::ProgramResult> get(const renderer::ProgramSource& source, std::string& error) override;
    uint64_t linked_from_source() const override { return stats_.linked_from_source; }

    // Precompile: whether a program was used in an earlier run (and whether any run recorded a list at all).
    bool listed(const renderer::ProgramSource& source) const;
    bool has_precompile_list() const { return had_list_; }
    // The names of the programs the list held when it was loaded and those used since (colour variants among them).
    std::vector<std::string> listed_names() const;

    // Waits for queued disk writes and saves the precompile list.
    void flush();
    // Drops the memory tier and the status caches (disk tiers stay).
    void clear_memory();
    // Blocks until the background index of the disk tiers is done (tests, tools, and kiln's --stats at exit: frames
    // never wait).
    void wait_for_disk_load();

    const CacheStats& stats() const { return stats_; }
    double disk_load_ms() const;
    uint64_t disk_discarded() const;
    const DriverIdentity& identity() const { return identity_; }
    MemoryTier& memory() { return memory_; }
    ShaderStatusCache& shaders() { return shaders_; }
    LinkStatusCache& links() { return links_; }
    DiskTier* user_tier() { return user_.get(); }
    DiskTier* system_tier() { return system_.get(); }
    bool blob_cache_installed() const { return blob_cache_ && blob_cache_->installed(); }

private:
    renderer::Program load_binary(const ProgramBinary& binary);
    std::optional<renderer::ProgramResult> compile(const ProgramKey& key, const renderer::ProgramSource& source,
                                                   std::string& error);
    void remember(const ProgramKey& key, ProgramBinary binary);
    std::vector<uint8_t> full_key(std::span<const uint8_t> key) const;
    size_t blob_get(std::span<const uint8_t> key, std::span<uint8_t> out);
    void blob_set(std::span<const uint8_t> key, std::span<const uint8_t> value);
    void store_blob_locked(std::vector<uint8_t> key, std::vector<uint8_t> value);
    void log(const std::string& message) const;

    CacheOptions options_;
    DriverIdentity identity_;
    Sha1 driver_hash_{};
    bool context_known_ = false;
    MemoryTier memory_;
    ShaderStatusCache shaders_;
    LinkStatusCache links_;
    PrecompileList precompile_;
    bool had_list_ = false;
    bool precompile_save_warned_ = false;
    std::unique_ptr<DiskTier> user_;
    std::unique_ptr<DiskTier> system_;
    std::unique_ptr<BlobCache> blob_cache_;
    CacheStats stats_;

    // Driver blobs by driver key; the driver may call from its own threads.
    mutable std::mutex blob_mutex_;
    std::map<std::vector<uint8_t>, std::vector<uint8_t>> blobs_;
    uint64_t blob_bytes_ = 0;
};

}  // namespace kiln::cache
