// DiskTier: one directory of cache entries for one driver identity, one file per entry.
//
// Why one file per entry rather than a pack: a write is a temp file + rename, atomic on its own, so a kill -9 at any
// point leaves either the old entry or the new one and never a torn one, two kiln processes never rewrite each
// other's data, a lookup is one open() by name (no index needed before the first frame), and garbage collection
// deletes files. The price, more inodes and per-file overhead, is small for a few hundred entries of a few KiB.
#pragma once

#include "renderer/cache/compressor.hpp"
#include "renderer/cache/digest.hpp"
#include "renderer/cache/entry_file.hpp"
#include "renderer/cache/private_files.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace kiln::cache {

struct DiskTierOptions {
    bool writable = true;
    uint64_t max_bytes = 64u << 20;
    int max_age_days = 30;
    size_t dictionary_min_entries = 16;  // train a zstd dictionary once this many entries exist
};

struct DiskEntryInfo {
    std::filesystem::path path;  // for messages; I/O goes through the tier's directory descriptors
    std::string name;
    EntryKind kind = EntryKind::program;
    uint64_t size = 0;
    std::filesystem::file_time_type last_use;
};

struct DiskTierStats {
    std::atomic<uint64_t> hits{0};
    std::atomic<uint64_t> misses{0};
    std::atomic<uint64_t> discarded{0};  // corrupt, truncated, foreign or wrong-version entries removed
    std::atomic<uint64_t> refused{0};    // symbolic links, non-regular files, other users' files: never opened
    std::atomic<uint64_t> writes{0};
    std::atomic<uint64_t> write_failures{0};
    std::atomic<uint64_t> collected{0};  // removed by age or size limits
    std::atomic<uint64_t> bytes_before_gc{0};
    std::atomic<uint64_t> bytes_after_gc{0};
    std::atomic<uint64_t> entries{0};
    std::atomic<double> load_ms{0};
};

class DiskTier {
public:
    // Opens (creating when writable) root/v<format>/<driver hash>/ and its subdirectories, each 0700, never through a
    // symbolic link. A directory owned by another user is refused (a read-only tier's by its root's owner).
    // A directory that cannot be written is opened read-only, with `note` saying so.
    static std::unique_ptr<DiskTier> open(const std::filesystem::path& root, const Sha1& driver, DiskTierOptions options,
                                          std::string& error, std::string& note);
    ~DiskTier();
    DiskTier(const DiskTier&) = delete;
    DiskTier& operator=(const DiskTier&) = delete;

    // Reads and verifies one entry by key; a defective entry is removed (when writable) and reported as a miss.
    std::optional<Entry> read(EntryKind kind, std::span<const uint8_t> key);
    // Queues an entry for the writer thread. Never blocks on I/O.
    void write(Entry entry);
    // Waits until queued writes are on disk.
    void flush();

    // Starts the background index: lists entries, collects old ones, trains the dictionary, then calls `loaded`
    // with every blob entry (so the driver blob cache can serve from memory). Returns at once.
    void start_background_load(std::function<void(std::vector<Entry>&& blobs)> loaded);
    bool ready() const { return ready_.load(); }
    void wait_ready();

    bool writable() const { return writable_.load(); }
    const std::filesystem::path& directory() const { return dir_; }
    DiskTierStats& stats() { return stats_; }
    const Compressor& compressor() const { return compressor_; }

    // Maintenance (kiln-cache, GC).
    std::vector<DiskEntryInfo> list() const;
    struct PruneResult {
        uint64_t removed = 0;
        uint64_t bytes_before = 0;
        uint64_t bytes_after = 0;
    };
    PruneResult prune(std::optional<int> older_than_days, std::optional<uint64_t> max_bytes);
    // Trains a dictionary from the entries on disk and uses it for new writes; false with `why` when it cannot.
    bool train_dictionary(std::string& why);
    std::filesystem::path path_for(EntryKind kind, std::span<const uint8_t> key) const;
    // An entry's bytes as listed (kiln-cache list and verify), never through a symbolic link.
    std::optional<std::vector<uint8_t>> read_bytes(const DiskEntryInfo& info, std::string& why);
    // Removes one entry (one the driver refused to load).
    void remove(EntryKind kind, std::span<const uint8_t> key);
    // The driver directory, for files kept beside the entries (the precompile list), and whose files it accepts.
    int directory_fd() const { return dir_fd_.get(); }
    uid_t owner() const { return owner_; }
    // Reports something kiln will not open in the tier, once per path.
    void refuse(const std::string& path, const std::string& why);

private:
    DiskTier(std::filesystem::path dir, DiskTierOptions options, bool writable, uid_t owner, UniqueFd dir_fd,
             UniqueFd programs, UniqueFd blobs, UniqueFd dictionaries);
    int fd_of(EntryKind kind) const;
    std::optional<std::vector<uint8_t>> read_file(int dir, const std::string& name, std::string& why);
    // Removes a defective entry (when writable), counts it and says why, once however many threads find it.
    void discard(EntryKind kind, const std::string& name, const std::filesystem::path& path, const std::string& why);
    // Whether an entry is torn, from its header and size (entry_torn), with `why`; false when it cannot be read.
    bool torn(const DiskEntryInfo& info, std::string& why);
    void writer_loop();
    void load_dictionaries();
    void background_load(std::function<void(std::vector<Entry>&&)> loaded);
    void lost_write_access(const std::string& why);

    std::filesystem::path dir_;
    uid_t owner_;
    UniqueFd dir_fd_;
    UniqueFd programs_fd_;
    UniqueFd blobs_fd_;
    UniqueFd dictionaries_fd_;
    DiskTierOptions options_;
    std::atomic<bool> writable_;
    Compressor compressor_;
    DiskTierStats stats_;

    std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable drained_;
    std::deque<Entry> queue_;
    bool writing_ = false;
    bool stopping_ = false;
    std::thread writer_;

    std::atomic<bool> ready_{false};
    std::mutex ready_mutex_;
    std::condition_variable ready_cv_;
    std::thread loader_;
    std::once_flag warned_;
    std::mutex refused_mutex_;
    std::set<std::string> refused_;
};

// Opens `root` as a private cache directory without following a symbolic link: with `create`, makes it (and missing
// parents) and sets it 0700; refuses one that is not a directory or, with `must_be_mine`, is someone else's.
// `error` says why when the result holds no descriptor.
Opened open_cache_root(const std::filesystem::path& root, bool create, bool must_be_mine, std::string& error);

}  // namespace kiln::cache
