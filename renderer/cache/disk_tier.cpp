// Disk tier I/O: atomic writes on a writer thread, verified reads, background indexing, GC and dictionaries.
#include "renderer/cache/disk_tier.hpp"

#include "renderer/cache/program_key.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <csignal>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln::cache {
namespace fs = std::filesystem;

namespace {

const char* subdir(EntryKind kind)
{
    return kind == EntryKind::program ? "programs" : "blobs";
}

std::optional<std::vector<uint8_t>> read_file(const fs::path& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return std::nullopt;
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (64 << 20)) {
        close(fd);
        return std::nullopt;
    }
    std::vector<uint8_t> bytes(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
        if (n <= 0)
            break;
        done += static_cast<size_t>(n);
    }
    close(fd);
    bytes.resize(done);
    return bytes;
}

// Writes `bytes` to a unique temp file beside `path` and renames it into place: readers see all or nothing.
bool write_atomically(const fs::path& path, std::span<const uint8_t> bytes, std::string& why)
{
    static std::atomic<uint64_t> counter{0};
    const fs::path temp = path.parent_path() / (".tmp-" + std::to_string(getpid()) + "-" +
                                                std::to_string(counter.fetch_add(1)));
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        why = std::strerror(errno);
        return false;
    }
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n <= 0) {
            why = std::strerror(n < 0 ? errno : ENOSPC);
            close(fd);
            unlink(temp.c_str());
            return false;
        }
        done += static_cast<size_t>(n);
    }
    if (close(fd) != 0 || rename(temp.c_str(), path.c_str()) != 0) {
        why = std::strerror(errno);
        unlink(temp.c_str());
        return false;
    }
    return true;
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

bool prepare_private_directory(const fs::path& dir, bool create, std::string& error)
{
    std::error_code ec;
    if (create)
        fs::create_directories(dir, ec);
    struct stat st {};
    if (lstat(dir.c_str(), &st) != 0) {
        error = dir.string() + ": " + std::strerror(errno);
        return false;
    }
    if (!S_ISDIR(st.st_mode)) {
        error = dir.string() + " is not a directory";
        return false;
    }
    if (st.st_uid != geteuid()) {
        error = dir.string() + " is owned by uid " + std::to_string(st.st_uid) + ", not by this user: refused";
        return false;
    }
    if (create && (st.st_mode & 077) != 0)
        chmod(dir.c_str(), 0700);  // a cache of driver binaries is private to its user
    return true;
}

std::unique_ptr<DiskTier> DiskTier::open(const fs::path& root, const Sha1& driver, DiskTierOptions options,
                                         std::string& error, std::string& note)
{
    const fs::path dir = root / ("v" + std::to_string(cache_format_version)) / to_hex(driver);
    bool writable = options.writable;
    if (writable) {
        std::string why;
        if (!prepare_private_directory(root, true, why)) {
            error = why;
            return nullptr;
        }
        std::error_code ec;
        for (const char* sub : {"programs", "blobs", "dictionaries"})
            fs::create_directories(dir / sub, ec);
        if (ec || access(dir.c_str(), W_OK) != 0 || access((dir / "programs").c_str(), W_OK) != 0) {
            writable = false;
            note = dir.string() + " cannot be written (" + (ec ? ec.message() : std::strerror(errno)) +
                   "): using it read-only";
        }
    }
    if (!writable) {
        std::string why;
        if (!fs::is_directory(root) || !prepare_private_directory(root, false, why)) {
            error = why.empty() ? root.string() + " does not exist" : why;
            if (!fs::is_directory(root))
                return nullptr;
            // A read-only system tier may be owned by root: only the user tier must be our own.
            if (options.writable)
                return nullptr;
            error.clear();
        }
    }
    std::unique_ptr<DiskTier> tier(new DiskTier(dir, options, writable));
    tier->load_dictionaries();
    return tier;
}

DiskTier::DiskTier(fs::path dir, DiskTierOptions options, bool writable)
    : dir_(std::move(dir)), options_(options), writable_(writable)
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
    return dir_ / subdir(kind) / (to_hex(sha1(key)) + ".entry");
}

std::optional<Entry> DiskTier::read(EntryKind kind, std::span<const uint8_t> key)
{
    const fs::path path = path_for(kind, key);
    auto bytes = read_file(path);
    if (!bytes) {
        ++stats_.misses;
        return std::nullopt;
    }
    std::string why;
    auto entry = decode_entry(*bytes, compressor_, why);
    if (entry && (entry->kind != kind || !std::equal(entry->key.begin(), entry->key.end(), key.begin(), key.end()))) {
        why = "entry holds another key";
        entry.reset();
    }
    if (!entry) {
        ++stats_.discarded;
        ++stats_.misses;
        std::fprintf(stderr, "kiln: discarding cache entry %s: %s\n", path.c_str(), why.c_str());
        if (writable())
            unlink(path.c_str());
        return std::nullopt;
    }
    ++stats_.hits;
    if (writable())
        utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // last use, for age-based collection
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
            if (write_atomically(path_for(entry.kind, entry.key), bytes, why))
                ++stats_.writes;
            else {
                ++stats_.write_failures;
                lost_write_access(why);
            }
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
    std::error_code ec;
    std::vector<std::pair<fs::file_time_type, fs::path>> found;
    for (const auto& f : fs::directory_iterator(dir_ / "dictionaries", ec))
        if (f.path().extension() == ".dict")
            found.emplace_back(f.last_write_time(ec), f.path());
    std::sort(found.begin(), found.end());
    // Every dictionary reads its entries; the newest one also writes.
    for (size_t i = 0; i < found.size(); ++i) {
        auto bytes = read_file(found[i].second);
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
    std::error_code ec;
    for (EntryKind kind : {EntryKind::program, EntryKind::blob})
        for (const auto& f : fs::directory_iterator(dir_ / subdir(kind), ec)) {
            if (f.path().extension() != ".entry")
                continue;
            std::error_code e2;
            out.push_back({f.path(), kind, f.file_size(e2), f.last_write_time(e2)});
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
        if ((too_old || over) && unlink(e.path.c_str()) == 0) {
            result.bytes_after -= e.size;
            ++result.removed;
        }
    }
    // Temp files of writers killed mid-write are never renamed into place; clear away old ones.
    std::error_code ec;
    for (const char* sub : {"programs", "blobs"})
        for (const auto& f : fs::directory_iterator(dir_ / sub, ec))
            if (f.path().filename().string().starts_with(".tmp-") && now - f.last_write_time(ec) > std::chrono::minutes(10))
                fs::remove(f.path(), ec);
    return result;
}

bool DiskTier::train_dictionary(std::string& why)
{
    std::vector<std::vector<uint8_t>> samples;
    for (const auto& info : list()) {
        auto bytes = read_file(info.path);
        if (!bytes)
            continue;
        std::string defect;
        if (auto entry = decode_entry(*bytes, compressor_, defect))
            samples.push_back(std::move(entry->payload));
    }
    auto dictionary = Compressor::train(samples);
    if (dictionary.empty()) {
        why = "too few or too small entries to train from (" + std::to_string(samples.size()) + ")";
        return false;
    }
    const uint32_t id = Compressor::id_of(dictionary);
    std::string write_why;
    if (!write_atomically(dir_ / "dictionaries" / (std::to_string(id) + ".dict"), dictionary, write_why)) {
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
    const auto start = std::chrono::steady_clock::now();
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
    std::vector<Entry> blobs;
    for (const auto& info : entries) {
        if (info.kind != EntryKind::blob)
            continue;
        auto bytes = read_file(info.path);
        std::string why;
        if (auto entry = bytes ? decode_entry(*bytes, compressor_, why) : std::nullopt)
            blobs.push_back(std::move(*entry));
        else if (writable()) {
            ++stats_.discarded;
            unlink(info.path.c_str());
        }
    }
    if (loaded)
        loaded(std::move(blobs));
    stats_.load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    {
        std::lock_guard lock(ready_mutex_);
        ready_ = true;
    }
    ready_cv_.notify_all();
}

}  // namespace kiln::cache
