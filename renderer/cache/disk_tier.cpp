// Disk tier I/O: atomic writes on a writer thread, verified reads, background indexing, GC and dictionaries.
#include "renderer/cache/disk_tier.hpp"

#include "renderer/cache/program_key.hpp"
#include "renderer/elapsed.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <csignal>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>

namespace kiln::cache {
namespace fs = std::filesystem;

namespace {

const char* subdir(EntryKind kind)
{
    return kind == EntryKind::program ? "programs" : "blobs";
}

constexpr size_t max_file_bytes = 64u << 20;

std::string entry_name(std::span<const uint8_t> key)
{
    return to_hex(sha1(key)) + ".entry";
}

// "path: why" for an error, "path why" for a refusal (its text reads on from the path).
std::string describe(const fs::path& path, const Opened& opened)
{
    return path.string() + (opened.status == OpenStatus::refused ? " " : ": ") + opened.why;
}

// Worker threads take no signals: the compositor reads SIGTERM/SIGINT/SIGCHLD through a signalfd on its own
// thread, and a thread that left them unblocked would receive them instead (and die of SIGTERM).
// They also run at idle priority: indexing, collection, dictionary training and compression only use CPU time the
// compositor thread (and the GL driver's threads) leave over, so start-up never competes with them.
template <typename F>
std::thread start_quiet_thread(F&& body)
{
    sigset_t all;
    sigset_t previous;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &previous);
    std::thread thread([body = std::forward<F>(body)]() mutable {
        sched_param param{};
        pthread_setschedparam(pthread_self(), SCHED_IDLE, &param);
        body();
    });
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return thread;
}

}  // namespace

Opened open_cache_root(const fs::path& root, bool create, bool must_be_mine, std::string& error)
{
    const uid_t me = geteuid();
    uid_t owner = me;
    if (create) {
        // Parents are the user's own path (~/.cache may itself be a link): only the cache directory is kiln's.
        std::error_code ec;
        if (root.has_parent_path())
            fs::create_directories(root.parent_path(), ec);
    } else if (!must_be_mine) {
        // A read-only system tier may belong to root; whoever owns it must own what is in it.
        struct stat st {};
        if (fstatat(AT_FDCWD, root.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
            owner = st.st_uid;
    }
    Opened opened = open_private_dir(AT_FDCWD, root, create, owner);
    if (!opened.fd)
        error = describe(root, opened);
    return opened;
}

std::unique_ptr<DiskTier> DiskTier::open(const fs::path& root, const Sha1& driver, DiskTierOptions options,
                                         std::string& error, std::string& note)
{
    const std::string version = "v" + std::to_string(cache_format_version);
    const fs::path dir = root / version / to_hex(driver);
    bool writable = options.writable;
    Opened root_dir = open_cache_root(root, writable, options.writable, error);
    if (!root_dir.fd)
        return nullptr;
    struct stat st {};
    fstat(root_dir.fd.get(), &st);
    const uid_t owner = st.st_uid;

    // Each level is opened relative to the one above, so no path component can be swapped for a link meanwhile.
    // levels: v<format>, <driver>, then its programs, blobs and dictionaries.
    Opened levels[5];
    const fs::path paths[5] = {root / version, dir, dir / "programs", dir / "blobs", dir / "dictionaries"};
    auto open_all = [&](bool create) -> bool {
        levels[0] = open_private_dir(root_dir.fd.get(), version, create, owner);
        if (levels[0].fd)
            levels[1] = open_private_dir(levels[0].fd.get(), to_hex(driver), create, owner);
        for (int i = 2; i < 5 && levels[1].fd; ++i)
            levels[i] = open_private_dir(levels[1].fd.get(), paths[i].filename(), create, owner);
        for (int i = 0; i < 5; ++i)
            if (levels[i].status == OpenStatus::refused) {
                error = describe(paths[i], levels[i]);
                return false;
            }
        return true;
    };
    if (writable) {
        if (!open_all(true))
            return nullptr;
        const Opened* failed = nullptr;
        for (const Opened& level : levels)
            if (!failed && level.status != OpenStatus::ok)
                failed = &level;
        std::string cause = failed ? failed->why : std::string();
        // Directories that exist but cannot be written (a read-only cache the user prepared) are used read-only.
        for (int i : {1, 2, 3})
            if (cause.empty() && faccessat(levels[i].fd.get(), ".", W_OK, AT_EACCESS) != 0)
                cause = std::strerror(errno);
        if (!cause.empty()) {
            writable = false;
            note = dir.string() + " cannot be written (" + cause + "): using it read-only";
        }
    }
    if (!writable) {
        // Read-only: what is missing is simply empty.
        if (!open_all(false))
            return nullptr;
    }
    std::unique_ptr<DiskTier> tier(new DiskTier(dir, options, writable, owner, std::move(levels[1].fd),
                                                std::move(levels[2].fd), std::move(levels[3].fd),
                                                std::move(levels[4].fd)));
    tier->load_dictionaries();
    return tier;
}

DiskTier::DiskTier(fs::path dir, DiskTierOptions options, bool writable, uid_t owner, UniqueFd dir_fd,
                   UniqueFd programs, UniqueFd blobs, UniqueFd dictionaries)
    : dir_(std::move(dir)),
      owner_(owner),
      dir_fd_(std::move(dir_fd)),
      programs_fd_(std::move(programs)),
      blobs_fd_(std::move(blobs)),
      dictionaries_fd_(std::move(dictionaries)),
      options_(options),
      writable_(writable)
{
    writer_ = start_quiet_thread([this] { writer_loop(); });
}

DiskTier::~DiskTier()
{
    if (loader_.joinable())
        loader_.join();
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    writer_.join();
}

fs::path DiskTier::path_for(EntryKind kind, std::span<const uint8_t> key) const
{
    return dir_ / subdir(kind) / entry_name(key);
}

int DiskTier::fd_of(EntryKind kind) const
{
    return kind == EntryKind::program ? programs_fd_.get() : blobs_fd_.get();
}

void DiskTier::refuse(const std::string& path, const std::string& why)
{
    ++stats_.refused;
    std::lock_guard lock(refused_mutex_);
    if (refused_.insert(path).second)
        std::fprintf(stderr, "kiln: program cache: %s%s%s\n", path.c_str(), why.empty() ? "" : " ", why.c_str());
}

std::optional<std::vector<uint8_t>> DiskTier::read_file(int dir, const std::string& name, std::string& why)
{
    if (dir < 0) {
        why = "no such directory";
        return std::nullopt;  // a read-only tier without this subdirectory
    }
    OpenStatus status = OpenStatus::failed;
    auto bytes = read_private_file(dir, name, owner_, max_file_bytes, status, why);
    if (status == OpenStatus::refused) {
        const fs::path where = dir == dictionaries_fd_.get() ? dir_ / "dictionaries" / name
                               : dir == blobs_fd_.get()      ? dir_ / "blobs" / name
                               : dir == programs_fd_.get()   ? dir_ / "programs" / name
                                                             : dir_ / name;
        refuse(where.string(), why);
    }
    return bytes;
}

std::optional<std::vector<uint8_t>> DiskTier::read_bytes(const DiskEntryInfo& info, std::string& why)
{
    return read_file(fd_of(info.kind), info.name, why);
}

void DiskTier::discard(EntryKind kind, const std::string& name, const fs::path& path, const std::string& why)
{
    // The compositor's read and the background check may meet the same defective entry: the one whose unlink
    // succeeds counts and names it. A read-only tier only counts and names it.
    if (writable() && unlinkat(fd_of(kind), name.c_str(), 0) != 0)
        return;
    ++stats_.discarded;
    std::fprintf(stderr, "kiln: discarding cache entry %s: %s\n", path.c_str(), why.c_str());
}

bool DiskTier::torn(const DiskEntryInfo& info, std::string& why)
{
    if (fd_of(info.kind) < 0)
        return false;
    Opened file = open_private_file(fd_of(info.kind), info.name, owner_);
    struct stat st {};
    if (!file.fd || fstat(file.fd.get(), &st) != 0)
        return false;  // gone, or not kiln's to judge: reading it whole says why
    std::vector<uint8_t> prefix(std::min<uint64_t>(max_entry_header_bytes, static_cast<uint64_t>(st.st_size)));
    const ssize_t n = pread(file.fd.get(), prefix.data(), prefix.size(), 0);
    if (n < 0)
        return false;
    prefix.resize(static_cast<size_t>(n));
    return entry_torn(prefix, static_cast<uint64_t>(st.st_size), why);
}

void DiskTier::remove(EntryKind kind, std::span<const uint8_t> key)
{
    if (writable() && fd_of(kind) >= 0)
        unlinkat(fd_of(kind), entry_name(key).c_str(), 0);
}

std::optional<Entry> DiskTier::read(EntryKind kind, std::span<const uint8_t> key)
{
    const std::string name = entry_name(key);
    std::string why;
    auto bytes = read_file(fd_of(kind), name, why);
    if (!bytes) {
        ++stats_.misses;
        return std::nullopt;
    }
    auto entry = decode_entry(*bytes, compressor_, why);
    if (entry && (entry->kind != kind || !std::equal(entry->key.begin(), entry->key.end(), key.begin(), key.end()))) {
        why = "entry holds another key";
        entry.reset();
    }
    if (!entry) {
        ++stats_.misses;
        discard(kind, name, path_for(kind, key), why);
        return std::nullopt;
    }
    ++stats_.hits;
    if (writable())  // last use, for age-based collection; a link swapped in meanwhile is not followed
        utimensat(fd_of(kind), name.c_str(), nullptr, AT_SYMLINK_NOFOLLOW);
    return entry;
}

void DiskTier::write(Entry entry)
{
    if (!writable())
        return;
    {
        std::lock_guard lock(mutex_);
        queue_.push_back(std::move(entry));
    }
    wake_.notify_one();
}

void DiskTier::flush()
{
    std::unique_lock lock(mutex_);
    drained_.wait(lock, [this] { return queue_.empty() && !writing_; });
}

void DiskTier::lost_write_access(const std::string& why)
{
    writable_ = false;
    std::call_once(warned_, [&] {
        std::fprintf(stderr, "kiln: cannot write the program cache at %s (%s): running without writing it\n",
                     dir_.c_str(), why.c_str());
    });
}

void DiskTier::writer_loop()
{
    std::unique_lock lock(mutex_);
    while (true) {
        wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (queue_.empty() && stopping_)
            break;
        Entry entry = std::move(queue_.front());
        queue_.pop_front();
        writing_ = true;
        lock.unlock();
        if (writable()) {
            const auto bytes = encode_entry(entry, compressor_);
            std::string why;
            std::string refused;
            const int dir = fd_of(entry.kind);
            if (write_private_file(dir, entry_name(entry.key), ".tmp-", bytes, why, refused))
                ++stats_.writes;
            else {
                ++stats_.write_failures;
                lost_write_access(why);
            }
            if (!refused.empty())
                refuse((dir_ / subdir(entry.kind) / refused).string(), "");
        }
        lock.lock();
        writing_ = false;
        if (queue_.empty())
            drained_.notify_all();
    }
    drained_.notify_all();
}

void DiskTier::load_dictionaries()
{
    std::vector<std::pair<timespec, std::string>> found;
    if (dictionaries_fd_)
        for (const auto& item : list_directory(dictionaries_fd_.get()))
            if (item.name.ends_with(".dict"))
                found.emplace_back(item.modified, item.name);
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
        return std::tie(a.first.tv_sec, a.first.tv_nsec, a.second) < std::tie(b.first.tv_sec, b.first.tv_nsec, b.second);
    });
    // Every dictionary reads its entries; the newest one also writes.
    for (size_t i = 0; i < found.size(); ++i) {
        std::string why;
        auto bytes = read_file(dictionaries_fd_.get(), found[i].second, why);
        if (!bytes)
            continue;
        if (i + 1 == found.size())
            compressor_.set_dictionary(std::move(*bytes));
        else
            compressor_.add_read_dictionary(std::move(*bytes));
    }
}

std::vector<DiskEntryInfo> DiskTier::list() const
{
    std::vector<DiskEntryInfo> out;
    for (EntryKind kind : {EntryKind::program, EntryKind::blob}) {
        if (fd_of(kind) < 0)
            continue;
        for (const auto& item : list_directory(fd_of(kind))) {
            // Only our own regular files are entries; anything else is refused when read, never listed.
            if (!item.name.ends_with(".entry") || !item.regular || item.owner != owner_)
                continue;
            const auto since_epoch = std::chrono::seconds(item.modified.tv_sec) +
                                     std::chrono::nanoseconds(item.modified.tv_nsec);
            const auto when = std::chrono::file_clock::from_sys(
                std::chrono::system_clock::time_point(std::chrono::duration_cast<std::chrono::system_clock::duration>(
                    since_epoch)));
            out.push_back({dir_ / subdir(kind) / item.name, item.name, kind, item.size, when});
        }
    }
    return out;
}

DiskTier::PruneResult DiskTier::prune(std::optional<int> older_than_days, std::optional<uint64_t> max_bytes)
{
    PruneResult result;
    auto entries = list();
    for (const auto& e : entries)
        result.bytes_before += e.size;
    result.bytes_after = result.bytes_before;
    if (!writable())
        return result;
    const auto now = fs::file_time_type::clock::now();
    // Oldest last use first, so a size cap trims least recently used entries.
    std::sort(entries.begin(), entries.end(), [](auto& a, auto& b) { return a.last_use < b.last_use; });
    for (const auto& e : entries) {
        const bool too_old =
            older_than_days && now - e.last_use > std::chrono::hours(24) * static_cast<int64_t>(*older_than_days);
        const bool over = max_bytes && result.bytes_after > *max_bytes;
        if ((too_old || over) && unlinkat(fd_of(e.kind), e.name.c_str(), 0) == 0) {
            result.bytes_after -= e.size;
            ++result.removed;
        }
    }
    // Temp files of writers killed mid-write are never renamed into place; clear away old ones.
    const auto stale = std::chrono::system_clock::now() - std::chrono::minutes(10);
    for (int dir : {programs_fd_.get(), blobs_fd_.get(), dir_fd_.get()}) {
        if (dir < 0)
            continue;
        for (const auto& item : list_directory(dir))
            if ((item.name.starts_with(".tmp-") || item.name.starts_with(".precompile-")) && item.regular &&
                item.owner == owner_ && std::chrono::system_clock::from_time_t(item.modified.tv_sec) < stale)
                unlinkat(dir, item.name.c_str(), 0);
    }
    return result;
}

bool DiskTier::train_dictionary(std::string& why)
{
    std::vector<std::vector<uint8_t>> samples;
    for (const auto& info : list()) {
        std::string defect;
        auto bytes = read_bytes(info, defect);
        if (!bytes)
            continue;
        if (auto entry = decode_entry(*bytes, compressor_, defect))
            samples.push_back(std::move(entry->payload));
    }
    auto dictionary = Compressor::train(samples);
    if (dictionary.empty()) {
        why = "too few or too small entries to train from (" + std::to_string(samples.size()) + ")";
        return false;
    }
    if (!dictionaries_fd_) {
        why = "cannot save the dictionary: " + (dir_ / "dictionaries").string() + " is missing";
        return false;
    }
    const uint32_t id = Compressor::id_of(dictionary);
    std::string write_why;
    std::string refused;
    const bool saved = write_private_file(dictionaries_fd_.get(), std::to_string(id) + ".dict", ".tmp-", dictionary,
                                          write_why, refused);
    if (!refused.empty())
        refuse((dir_ / "dictionaries" / refused).string(), "");
    if (!saved) {
        why = "cannot save the dictionary: " + write_why;
        return false;
    }
    compressor_.set_dictionary(std::move(dictionary));
    return true;
}

void DiskTier::start_background_load(std::function<void(std::vector<Entry>&&)> loaded)
{
    loader_ = start_quiet_thread([this, loaded = std::move(loaded)]() mutable { background_load(std::move(loaded)); });
}

void DiskTier::wait_ready()
{
    std::unique_lock lock(ready_mutex_);
    ready_cv_.wait(lock, [this] { return ready_.load(); });
}

void DiskTier::background_load(std::function<void(std::vector<Entry>&&)> loaded)
{
    const auto start = renderer::Clock::now();
    auto gc = prune(options_.max_age_days, options_.max_bytes);
    stats_.collected += gc.removed;
    stats_.bytes_before_gc = gc.bytes_before;
    stats_.bytes_after_gc = gc.bytes_after;
    const auto entries = list();
    stats_.entries = entries.size();
    if (writable() && compressor_.dictionary_id() == 0 && entries.size() >= options_.dictionary_min_entries) {
        std::string why;
        train_dictionary(why);  // best effort: entries stay readable without one
    }
    // A torn program entry (a copy cut short, another tool's partial write: kiln's own writes are atomic) waits
    // for the one program that reads it, maybe for good (frames composed on the CPU read none): its header gives it
    // away at the cost of one small read, and it goes now. (Blobs are read whole just below.)
    if (writable()) {
        for (const auto& info : entries) {
            std::string why;
            if (info.kind == EntryKind::program && torn(info, why))
                discard(info.kind, info.name, info.path, why);
        }
    }
    std::vector<Entry> blobs;
    for (const auto& info : entries) {
        if (info.kind != EntryKind::blob)
            continue;
        std::string why;
        auto bytes = read_bytes(info, why);
        if (auto entry = bytes ? decode_entry(*bytes, compressor_, why) : std::nullopt)
            blobs.push_back(std::move(*entry));
        else if (bytes && writable()) {
            ++stats_.discarded;
            unlinkat(fd_of(info.kind), info.name.c_str(), 0);
        }
    }
    if (loaded)
        loaded(std::move(blobs));
    stats_.load_ms = renderer::ms_since(start);
    {
        std::lock_guard lock(ready_mutex_);
        ready_ = true;
    }
    ready_cv_.notify_all();
}

}  // namespace kiln::cache
