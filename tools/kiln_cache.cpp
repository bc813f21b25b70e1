// kiln-cache: inspect and maintain kiln's program cache (stats, list, verify, prune, clear, train-dictionary).
#include "renderer/cache/disk_tier.hpp"
#include "renderer/cache/driver_shader_cache.hpp"
#include "renderer/cache/entry_file.hpp"
#include "renderer/cache/precompile_list.hpp"
#include "renderer/cache/program_key.hpp"
#include "renderer/cache/tiered_program_cache.hpp"
#include "renderer/colour/colour_variant.hpp"

#include <chrono>
#include <fcntl.h>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;
using namespace kiln::cache;

namespace {

constexpr const char* usage_text = R"(Usage: kiln-cache [--cache-dir DIR] [--json] COMMAND [options]
Inspect and maintain kiln's program cache (default DIR: $XDG_CACHE_HOME/kiln).

Commands:
  stats                      entries, bytes and dictionaries per driver, the colour conversion variants its
                             precompile list names; files and bytes of the drivers' own shader caches (DIR/mesa,
                             DIR/nvidia)
  list                       every entry: kind, size, last use, program name
  verify                     check every entry's checksum and decompression (progress bar on a terminal), and
                             that the drivers' shader caches hold no symbolic link or other user's file (their
                             contents are the drivers' to check)
  prune [--older-than DAYS] [--max-bytes N]
                             remove entries unused for DAYS, then least recently used ones above N bytes
  clear                      remove everything: entries, dictionaries, precompile lists, the driver's own
                             shader caches (DIR/mesa, DIR/nvidia)
  train-dictionary           train a zstd dictionary from the entries; new entries use it
)";

int usage_error(const std::string& message)
{
    std::fprintf(stderr, "kiln-cache: %s\n\n%s", message.c_str(), usage_text);
    return 2;
}

struct Driver {
    Sha1 hash{};
    fs::path dir;
    std::unique_ptr<DiskTier> tier;
};

std::string json_escape(const std::string& s)
{
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\')
            out += '\\';
        if (static_cast<unsigned char>(c) >= 0x20)
            out += c;
    }
    return out;
}

std::string age_text(fs::file_time_type when)
{
    const auto age = std::chrono::duration_cast<std::chrono::seconds>(fs::file_time_type::clock::now() - when).count();
    if (age < 120)
        return std::to_string(age) + " s ago";
    if (age < 7200)
        return std::to_string(age / 60) + " min ago";
    if (age < 172800)
        return std::to_string(age / 3600) + " h ago";
    return std::to_string(age / 86400) + " days ago";
}

// Opens every driver directory of the cache at `root` (never through a symbolic link); an error string when it is
// not a usable kiln cache. `root_fd` keeps the cache directory itself open for clear.
std::optional<std::vector<Driver>> open_cache(const fs::path& root, bool writable, UniqueFd& root_fd, std::string& error)
{
    Opened opened = open_cache_root(root, false, true, error);
    if (!opened.fd) {
        if (opened.status == OpenStatus::missing)
            error = "no cache at " + root.string();
        return std::nullopt;
    }
    root_fd = std::move(opened.fd);
    const std::string version = "v" + std::to_string(cache_format_version);
    const auto items = list_directory(root_fd.get());
    const auto versioned = std::find_if(items.begin(), items.end(), [&](auto& i) { return i.name == version; });
    if (versioned == items.end()) {
        if (items.empty())
            return std::vector<Driver>{};
        error = root.string() + " is not a kiln program cache (no " + version + "/ in it)";
        return std::nullopt;
    }
    Opened versioned_dir = open_private_dir(root_fd.get(), version, false, geteuid());
    if (!versioned_dir.fd) {
        error = (root / version).string() + (versioned_dir.status == OpenStatus::refused ? " " : ": ") +
                versioned_dir.why;
        return std::nullopt;
    }
    std::vector<Driver> drivers;
    for (const auto& item : list_directory(versioned_dir.fd.get())) {
        Driver d;
        if (!from_hex(item.name, d.hash))
            continue;
        if (!item.directory) {
            // Never followed: a link here could point kiln-cache at anything, and clear would empty it.
            std::fprintf(stderr, "kiln-cache: %s is %s: skipped\n", (root / version / item.name).c_str(),
                         item.symlink ? "a symbolic link" : "not a directory");
            continue;
        }
        std::string why;
        std::string note;
        DiskTierOptions options;
        options.writable = writable && faccessat(versioned_dir.fd.get(), item.name.c_str(), W_OK, AT_EACCESS) == 0;
        d.tier = DiskTier::open(root, d.hash, options, why, note);
        if (!d.tier) {
            error = why;
            return std::nullopt;
        }
        d.dir = root / version / item.name;
        drivers.push_back(std::move(d));
    }
    return drivers;
}

// The driver's precompile list; a refused one is reported and read as empty.
void load_precompile_list(Driver& d, PrecompileList& list)
{
    std::string why;
    if (!list.load(d.tier->directory_fd(), "precompile.list", d.tier->owner(), why))
        std::fprintf(stderr, "kiln-cache: %s: %s\n", (d.dir / "precompile.list").c_str(), why.c_str());
}

int cmd_stats(std::vector<Driver>& drivers, const fs::path& root, bool json)
{
    const std::vector<DriverCacheUsage> driver_caches = driver_cache_usage(root);
    if (json)
        std::printf("{\"drivers\": [");
    for (size_t i = 0; i < drivers.size(); ++i) {
        auto& d = drivers[i];
        uint64_t programs = 0, blobs = 0, bytes = 0;
        for (const auto& e : d.tier->list()) {
            (e.kind == EntryKind::program ? programs : blobs) += 1;
            bytes += e.size;
        }
        PrecompileList list;
        load_precompile_list(d, list);
        // The colour conversion programs kiln used with this driver, which a warm start prepares (by their names).
        std::vector<std::pair<std::string, std::string>> colour;  // program name, in words
        for (const auto& listed : list.entries())
            if (auto variant = kiln::renderer::parse_colour_program_name(listed.name))
                colour.emplace_back(listed.name, kiln::renderer::describe_colour_variant(*variant));
        const uint32_t dictionary = d.tier->compressor().dictionary_id();
        if (json) {
            std::printf("%s{\"driver\": \"%s\", \"programs\": %llu, \"blobs\": %llu, \"bytes\": %llu, "
                        "\"dictionary\": %u, \"precompile_list\": %zu, \"colour_variants\": [",
                        i ? ", " : "", to_hex(d.hash).c_str(), static_cast<unsigned long long>(programs),
                        static_cast<unsigned long long>(blobs), static_cast<unsigned long long>(bytes), dictionary,
                        list.size());
            for (size_t c = 0; c < colour.size(); ++c)
                std::printf("%s{\"program\": \"%s\", \"variant\": \"%s\"}", c ? ", " : "",
                            json_escape(colour[c].first).c_str(), json_escape(colour[c].second).c_str());
            std::printf("]}");
        } else {
            std::printf("driver %s: %llu programs, %llu driver blobs, %llu bytes, dictionary %s, %zu programs in the "
                        "precompile list, %zu of them colour variants\n",
                        to_hex(d.hash).substr(0, 12).c_str(), static_cast<unsigned long long>(programs),
                        static_cast<unsigned long long>(blobs), static_cast<unsigned long long>(bytes),
                        dictionary ? std::to_string(dictionary).c_str() : "none", list.size(), colour.size());
            for (const auto& [name, words] : colour)
                std::printf("  colour %s\n", words.c_str());
        }
    }
    if (json) {
        std::printf("], \"driver_shader_caches\": {");
        for (size_t i = 0; i < driver_caches.size(); ++i)
            std::printf("%s\"%s\": {\"files\": %llu, \"bytes\": %llu}", i ? ", " : "",
                        driver_caches[i].subdir.c_str(), static_cast<unsigned long long>(driver_caches[i].files),
                        static_cast<unsigned long long>(driver_caches[i].bytes));
        std::printf("}}\n");
        return 0;
    }
    if (drivers.empty())
        std::printf("the cache is empty\n");
    for (const auto& usage : driver_caches)
        if (usage.present)
            std::printf("driver shader cache %s/: %llu files, %llu bytes\n", usage.subdir.c_str(),
                        static_cast<unsigned long long>(usage.files), static_cast<unsigned long long>(usage.bytes));
    return 0;
}

int cmd_list(std::vector<Driver>& drivers, bool json)
{
    bool first = true;
    if (json)
        std::printf("[");
    for (auto& d : drivers) {
        PrecompileList list;
        load_precompile_list(d, list);
        for (const auto& e : d.tier->list()) {
            std::string why;
            const auto bytes = d.tier->read_bytes(e, why);
            auto header = bytes ? decode_header(*bytes, why) : std::nullopt;
            std::string label = e.kind == EntryKind::program ? "program" : "blob";
            std::string program_name = "-";
            if (header && header->kind == EntryKind::program && header->key.size() == 40) {
                Sha1 key{};
                std::copy(header->key.begin() + 20, header->key.end(), key.begin());
                if (const std::string name = list.name(key); !name.empty())
                    program_name = name;
            }
            if (json)
                std::printf("%s{\"driver\": \"%s\", \"kind\": \"%s\", \"file\": \"%s\", \"bytes\": %llu, "
                            "\"raw_bytes\": %llu, \"name\": \"%s\", \"valid_header\": %s}",
                            first ? "" : ", ", to_hex(d.hash).c_str(), label.c_str(),
                            json_escape(e.path.filename().string()).c_str(), static_cast<unsigned long long>(e.size),
                            static_cast<unsigned long long>(header ? header->raw_size : 0),
                            json_escape(program_name).c_str(), header ? "true" : "false");
            else
                std::printf("%-8s %-20s %8llu bytes (%llu raw)  %-14s %s\n", label.c_str(), program_name.c_str(),
                            static_cast<unsigned long long>(e.size),
                            static_cast<unsigned long long>(header ? header->raw_size : 0),
                            age_text(e.last_use).c_str(), header ? "" : ("damaged: " + why).c_str());
            first = false;
        }
    }
    if (json)
        std::printf("]\n");
    return 0;
}

int cmd_verify(std::vector<Driver>& drivers, const fs::path& root, bool json)
{
    size_t total = 0;
    for (auto& d : drivers)
        total += d.tier->list().size();
    const bool bar = !json && isatty(STDERR_FILENO);
    size_t done = 0, bad = 0;
    std::vector<std::string> problems;
    for (auto& d : drivers)
        for (const auto& e : d.tier->list()) {
            std::string why;
            const auto bytes = d.tier->read_bytes(e, why);
            if (!bytes || !decode_entry(*bytes, d.tier->compressor(), why)) {
                ++bad;
                problems.push_back(e.path.string() + ": " + why);
            }
            ++done;
            if (bar) {
                const int width = 40;
                const int filled = total ? static_cast<int>(done * width / total) : width;
                std::fprintf(stderr, "\r[%s%s] %zu/%zu", std::string(static_cast<size_t>(filled), '#').c_str(),
                             std::string(static_cast<size_t>(width - filled), ' ').c_str(), done, total);
            }
        }
    if (bar)
        std::fprintf(stderr, "\n");
    // The drivers' files are theirs to check; kiln checks only that nothing in them points elsewhere.
    for (const auto& usage : driver_cache_usage(root))
        for (const auto& problem : usage.problems) {
            ++bad;
            problems.push_back(problem);
        }
    if (json) {
        std::printf("{\"entries\": %zu, \"bad\": %zu, \"problems\": [", done, bad);
        for (size_t i = 0; i < problems.size(); ++i)
            std::printf("%s\"%s\"", i ? ", " : "", json_escape(problems[i]).c_str());
        std::printf("]}\n");
    } else {
        for (const auto& p : problems)
            std::printf("bad: %s\n", p.c_str());
        std::printf("%zu entries checked, %zu bad\n", done, bad);
    }
    return bad ? 1 : 0;
}

int cmd_prune(std::vector<Driver>& drivers, std::optional<int> days, std::optional<uint64_t> max_bytes, bool json)
{
    uint64_t removed = 0, before = 0, after = 0;
    for (auto& d : drivers) {
        auto r = d.tier->prune(days, max_bytes);
        removed += r.removed;
        before += r.bytes_before;
        after += r.bytes_after;
    }
    if (json)
        std::printf("{\"removed\": %llu, \"bytes_before\": %llu, \"bytes_after\": %llu}\n",
                    static_cast<unsigned long long>(removed), static_cast<unsigned long long>(before),
                    static_cast<unsigned long long>(after));
    else
        std::printf("removed %llu entries: %llu -> %llu bytes\n", static_cast<unsigned long long>(removed),
                    static_cast<unsigned long long>(before), static_cast<unsigned long long>(after));
    return 0;
}

// Empties the cache: every driver directory and the driver's own shader cache go, the cache directory stays.
int cmd_clear(std::vector<Driver>& drivers, int root_fd, bool json)
{
    uint64_t removed = 0, before = 0;
    for (auto& d : drivers)
        for (const auto& e : d.tier->list()) {
            ++removed;
            before += e.size;
        }
    drivers.clear();  // their writer threads and descriptors go before the directories do
    int status = 0;
    std::vector<std::string> names{"v" + std::to_string(cache_format_version)};
    names.insert(names.end(), std::begin(driver_cache_subdirs), std::end(driver_cache_subdirs));
    for (const std::string& name : names) {
        std::string why;
        if (!remove_tree(root_fd, name, why)) {
            std::fprintf(stderr, "kiln-cache: cannot remove %s\n", why.c_str());
            status = 1;
        }
    }
    if (json)
        std::printf("{\"removed\": %llu, \"bytes_before\": %llu, \"bytes_after\": 0}\n",
                    static_cast<unsigned long long>(removed), static_cast<unsigned long long>(before));
    else
        std::printf("removed %llu entries (%llu bytes), the precompile lists, dictionaries and driver shader caches\n",
                    static_cast<unsigned long long>(removed), static_cast<unsigned long long>(before));
    return status;
}

}  // namespace

int main(int argc, char** argv)
{
    fs::path dir = default_user_cache_dir();
    bool json = false;
    std::string command;
    std::optional<int> older_than;
    std::optional<uint64_t> max_bytes;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&](const char* what) -> const char* {
            if (i + 1 >= argc)
                return nullptr;
            (void)what;
            return argv[++i];
        };
        if (arg == "-h" || arg == "--help") {
            std::fputs(usage_text, stdout);
            return 0;
        } else if (arg == "--json") {
            json = true;
        } else if (arg == "--cache-dir") {
            const char* v = value("a directory");
            if (!v || !*v)
                return usage_error("--cache-dir needs a directory");
            dir = v;
        } else if (arg == "--older-than") {
            const char* v = value("days");
            char* end = nullptr;
            const long days = v ? std::strtol(v, &end, 10) : -1;
            if (!v || *end || days < 0)
                return usage_error("--older-than needs a number of days");
            older_than = static_cast<int>(days);
        } else if (arg == "--max-bytes") {
            const char* v = value("bytes");
            char* end = nullptr;
            const unsigned long long n = v ? std::strtoull(v, &end, 10) : 0;
            if (!v || *end || *v == '-')
                return usage_error("--max-bytes needs a byte count");
            max_bytes = n;
        } else if (command.empty() && !arg.starts_with("-")) {
            command = arg;
        } else {
            return usage_error("unknown argument '" + arg + "'");
        }
    }
    static const char* const commands[] = {"stats", "list", "verify", "prune", "clear", "train-dictionary"};
    if (command.empty())
        return usage_error("no command given");
    if (std::find(std::begin(commands), std::end(commands), command) == std::end(commands))
        return usage_error("unknown command '" + command + "'");
    if ((older_than || max_bytes) && command != "prune")
        return usage_error("--older-than and --max-bytes go with prune");
    if (dir.empty())
        return usage_error("no cache directory: set --cache-dir, XDG_CACHE_HOME or HOME");

    const bool writes = command == "prune" || command == "clear" || command == "train-dictionary";
    std::string error;
    UniqueFd root_fd;
    auto drivers = open_cache(dir, writes, root_fd, error);
    if (!drivers) {
        std::fprintf(stderr, "kiln-cache: %s\n", error.c_str());
        return 1;
    }
    if (command == "stats")
        return cmd_stats(*drivers, dir, json);
    if (command == "list")
        return cmd_list(*drivers, json);
    if (command == "verify")
        return cmd_verify(*drivers, dir, json);
    if (command == "prune")
        return cmd_prune(*drivers, older_than, max_bytes, json);
    if (command == "clear")
        return cmd_clear(*drivers, root_fd.get(), json);
    // train-dictionary
    int status = 0;
    for (auto& d : *drivers) {
        std::string why;
        if (d.tier->train_dictionary(why))
            std::printf("driver %s: dictionary %u\n", to_hex(d.hash).substr(0, 12).c_str(),
                        d.tier->compressor().dictionary_id());
        else {
            std::fprintf(stderr, "kiln-cache: driver %s: %s\n", to_hex(d.hash).substr(0, 12).c_str(), why.c_str());
            status = 1;
        }
    }
    return status;
}
