// The cache on disk is private and never written through a planted link: modes 0700/0600 whatever the umask,
// symbolic links at entries, the precompile list, temporary names and directories refused with one warning, and
// failed saves that leave nothing behind and name their cause once.
#include "renderer/cache/disk_tier.hpp"
#include "renderer/cache/precompile_list.hpp"
#include "tests/cache/cache_fixture.hpp"

#include <catch2/catch_test_macros.hpp>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace kiln::cache;
using kiln::test::TempDir;
namespace fs = std::filesystem;

namespace {

Sha1 driver()
{
    return sha1(std::string_view("private files driver"));
}

std::vector<uint8_t> key_for(uint32_t n)
{
    std::vector<uint8_t> key(40, 0);
    std::memcpy(key.data() + 20, &n, sizeof n);
    return key;
}

std::vector<uint8_t> payload_for(uint32_t n)
{
    std::vector<uint8_t> bytes(3000);
    for (size_t i = 0; i < bytes.size(); ++i)
        bytes[i] = static_cast<uint8_t>(n * 7 + i / 50);
    return bytes;
}

std::unique_ptr<DiskTier> open_tier(const fs::path& root, std::string* error_out = nullptr)
{
    std::string error;
    std::string note;
    auto tier = DiskTier::open(root, driver(), {}, error, note);
    if (error_out)
        *error_out = error;
    return tier;
}

std::string read_text(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

size_t count(const std::string& text, const std::string& what)
{
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

// Files under `dir` whose names start with `prefix` (litter from a failed write).
size_t files_starting(const fs::path& dir, const std::string& prefix)
{
    size_t n = 0;
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(dir, ec))
        if (e.path().filename().string().starts_with(prefix))
            ++n;
    return n;
}

// Sends this process's stderr into a pipe for its lifetime (a pipe, not a file: one test forbids writing files);
// text() is what was written meanwhile. Only for the few lines a test provokes: more than a pipe holds would block.
class StderrCapture {
public:
    StderrCapture()
    {
        int ends[2];
        REQUIRE(pipe2(ends, O_CLOEXEC) == 0);
        read_end_ = ends[0];
        std::fflush(stderr);
        saved_ = dup(STDERR_FILENO);
        dup2(ends[1], STDERR_FILENO);
        close(ends[1]);
    }
    ~StderrCapture()
    {
        restore();
        close(read_end_);
    }
    std::string text()
    {
        restore();  // closes the last write end, so the read below ends
        std::string out;
        char buffer[4096];
        ssize_t n;
        while ((n = read(read_end_, buffer, sizeof buffer)) > 0)
            out.append(buffer, static_cast<size_t>(n));
        return out;
    }

private:
    void restore()
    {
        if (saved_ < 0)
            return;
        std::fflush(stderr);
        dup2(saved_, STDERR_FILENO);
        close(saved_);
        saved_ = -1;
    }
    int read_end_ = -1;
    int saved_ = -1;
};

// Sets the umask for a scope.
struct UmaskScope {
    mode_t previous;
    explicit UmaskScope(mode_t mask) : previous(umask(mask)) {}
    ~UmaskScope() { umask(previous); }
};

// Every directory and file below `root` (and root itself) with a mode other than 0700 / 0600.
std::vector<std::string> wrong_modes(const fs::path& root)
{
    std::vector<std::string> wrong;
    auto check = [&](const fs::path& p) {
        struct stat st {};
        REQUIRE(lstat(p.c_str(), &st) == 0);
        const mode_t mode = st.st_mode & 07777;
        if ((S_ISDIR(st.st_mode) && mode != 0700) || (S_ISREG(st.st_mode) && mode != 0600) ||
            (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))) {
            char octal[8];
            std::snprintf(octal, sizeof octal, "%o", mode);
            wrong.push_back(p.string() + " " + octal);
        }
    };
    check(root);
    for (const auto& e : fs::recursive_directory_iterator(root))
        check(e.path());
    return wrong;
}

// Fills a tier with everything kiln writes: entries of both kinds, a dictionary and a precompile list.
void fill(const fs::path& root)
{
    auto tier = open_tier(root);
    REQUIRE(tier);
    for (uint32_t n = 0; n < 24; ++n)
        tier->write(Entry{n % 2 ? EntryKind::blob : EntryKind::program, key_for(n), 1, payload_for(n % 3)});
    tier->flush();
    std::string why;
    REQUIRE(tier->train_dictionary(why));
    PrecompileList list;
    REQUIRE(list.load(tier->directory_fd(), "precompile.list", tier->owner(), why));
    list.record(sha1(std::string_view("p")), 3, "p");
    std::string refused;
    REQUIRE(list.save(why, refused));
}

}  // namespace

namespace kiln::test {

// Child mode: plants symbolic links (to `victim`) at the first temporary names this fresh process will try for an
// entry and for the precompile list, then writes both. Exits 0 when both were saved.
int planted_temp_child(int argc, char** argv)
{
    if (argc < 4)
        return 2;
    const fs::path root = argv[2];
    const fs::path victim = argv[3];
    auto tier = open_tier(root);
    if (!tier)
        return 3;
    const std::string pid = std::to_string(getpid());
    // One counter serves every temporary name in the process: the entry's write tries 0, 1, 2, then takes 3; the
    // list's save tries 4 to 7, then takes 8.
    for (int n = 0; n < 8; ++n) {
        if (n < 3)
            fs::create_symlink(victim, tier->directory() / "programs" / (".tmp-" + pid + "-" + std::to_string(n)));
        fs::create_symlink(victim, tier->directory() / (".precompile-" + pid + "-" + std::to_string(n)));
    }
    tier->write(Entry{EntryKind::program, key_for(1), 1, payload_for(1)});
    tier->flush();
    if (tier->stats().writes != 1)
        return 4;
    PrecompileList list;
    std::string why;
    std::string refused;
    list.load(tier->directory_fd(), "precompile.list", tier->owner(), why);
    list.record(sha1(std::string_view("p")), 1, "p");
    if (!list.save(why, refused) || refused.find("symbolic link") == std::string::npos)
        return 5;
    std::fprintf(stderr, "precompile list: %s\n", refused.c_str());
    return 0;
}

}  // namespace kiln::test

TEST_CASE("the cache's directories are 0700 and its files 0600 under umask 022, 000 and 277", "[cache][private]")
{
    for (mode_t mask : {mode_t(022), mode_t(000), mode_t(0277)}) {
        INFO("umask " << std::oct << mask);
        TempDir dir;
        const fs::path root = dir.path / "cache";
        {
            UmaskScope scope(mask);
            fill(root);
        }
        CHECK(wrong_modes(root).empty());
        for (const auto& w : wrong_modes(root))
            UNSCOPED_INFO(w);
    }
}

TEST_CASE("directories an older kiln made 0755 are made 0700 when the cache opens", "[cache][private]")
{
    TempDir dir;
    const fs::path root = dir.path / "cache";
    {
        UmaskScope scope(022);
        fill(root);
        for (const auto& e : fs::recursive_directory_iterator(root))
            if (e.is_directory())
                fs::permissions(e.path(), fs::perms(0755));
        fs::permissions(root, fs::perms(0755));
    }
    REQUIRE(open_tier(root));
    CHECK(wrong_modes(root).empty());
}

TEST_CASE("a symbolic link at an entry is never read or written through, and is reported once", "[cache][private]")
{
    TempDir dir;
    const fs::path victim = dir.path / "victim";
    std::ofstream(victim) << "precious";
    auto tier = open_tier(dir.path / "cache");
    REQUIRE(tier);
    const fs::path entry = tier->path_for(EntryKind::program, key_for(5));
    fs::create_symlink(victim, entry);

    StderrCapture capture;
    CHECK_FALSE(tier->read(EntryKind::program, key_for(5)));
    CHECK_FALSE(tier->read(EntryKind::program, key_for(5)));
    CHECK(tier->stats().refused == 2);
    tier->write(Entry{EntryKind::program, key_for(5), 1, payload_for(5)});
    tier->flush();
    const std::string log = capture.text();
    INFO(log);
    CHECK(count(log, entry.string() + " is a symbolic link") == 1);
    CHECK(read_text(victim) == "precious");
    // The new entry replaced the link itself.
    CHECK(fs::is_regular_file(fs::symlink_status(entry)));
    auto read_back = tier->read(EntryKind::program, key_for(5));
    REQUIRE(read_back);
    CHECK(read_back->payload == payload_for(5));
    CHECK(read_text(victim) == "precious");
}

TEST_CASE("a FIFO, another user's file or a directory at an entry is refused without blocking", "[cache][private]")
{
    TempDir dir;
    auto tier = open_tier(dir.path / "cache");
    REQUIRE(tier);
    REQUIRE(mkfifo(tier->path_for(EntryKind::program, key_for(1)).c_str(), 0600) == 0);
    fs::create_directory(tier->path_for(EntryKind::program, key_for(2)));
    StderrCapture capture;
    CHECK_FALSE(tier->read(EntryKind::program, key_for(1)));
    CHECK_FALSE(tier->read(EntryKind::program, key_for(2)));
    if (geteuid() == 0) {
        tier->write(Entry{EntryKind::program, key_for(3), 1, payload_for(3)});
        tier->flush();
        REQUIRE(chown(tier->path_for(EntryKind::program, key_for(3)).c_str(), 65534, 65534) == 0);
        CHECK_FALSE(tier->read(EntryKind::program, key_for(3)));
    }
    const std::string log = capture.text();
    INFO(log);
    CHECK(count(log, "is not a regular file: refused") == 2);
    if (geteuid() == 0)
        CHECK(count(log, "is owned by uid 65534") == 1);
    CHECK(tier->list().empty());  // none of them is listed as an entry
}

TEST_CASE("a symbolic link at the precompile list is not read, and saving replaces the link", "[cache][private]")
{
    TempDir dir;
    const fs::path victim = dir.path / "victim";
    std::ofstream(victim) << "0123456789abcdef0123456789abcdef01234567 1 secret\n";
    auto tier = open_tier(dir.path / "cache");
    REQUIRE(tier);
    const fs::path list_path = tier->directory() / "precompile.list";
    fs::create_symlink(victim, list_path);
    PrecompileList list;
    std::string why;
    CHECK_FALSE(list.load(tier->directory_fd(), "precompile.list", tier->owner(), why));
    CHECK(why == "is a symbolic link: refused");
    CHECK(list.empty());
    list.record(sha1(std::string_view("p")), 1, "p");
    std::string refused;
    REQUIRE(list.save(why, refused));
    CHECK(refused.empty());
    CHECK(read_text(victim) == "0123456789abcdef0123456789abcdef01234567 1 secret\n");
    CHECK(fs::is_regular_file(fs::symlink_status(list_path)));
}

TEST_CASE("symbolic links at the temporary names are skipped, not written through", "[cache][private]")
{
    TempDir dir;
    const fs::path victim = dir.path / "victim";
    std::ofstream(victim) << "precious";
    const fs::path log_path = dir.path / "child.log";
    REQUIRE(open_tier(dir.path / "cache"));
    const pid_t pid = fork();
    if (pid == 0) {
        const int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(log, STDERR_FILENO);
        execl(kiln::test::self_path().c_str(), "cache-tests", "--planted-temp-child", (dir.path / "cache").c_str(),
              victim.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    const std::string log = read_text(log_path);
    INFO(log);
    CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
    CHECK(read_text(victim) == "precious");
    CHECK(count(log, "is a symbolic link: skipped") == 2);  // once for the entry, once for the list
    auto tier = open_tier(dir.path / "cache");
    REQUIRE(tier);
    CHECK(tier->read(EntryKind::program, key_for(1)));
}

TEST_CASE("symbolically linked cache directories are refused and nothing is written where they point",
          "[cache][private]")
{
    TempDir dir;
    const fs::path elsewhere = dir.path / "elsewhere";
    fs::create_directory(elsewhere);
    std::string error;

    fs::create_directory_symlink(elsewhere, dir.path / "linked-root");
    CHECK_FALSE(open_tier(dir.path / "linked-root", &error));
    CHECK(error.find("is a symbolic link: refused") != std::string::npos);

    for (const char* level : {"v", "driver", "programs", "dictionaries"}) {
        INFO(level);
        TempDir cache;
        fill(cache.path);
        auto tier = open_tier(cache.path);
        REQUIRE(tier);
        const fs::path dir_path = level == std::string("v")        ? tier->directory().parent_path()
                                  : level == std::string("driver") ? tier->directory()
                                                                   : tier->directory() / level;
        tier.reset();
        fs::remove_all(dir_path);
        fs::create_directory_symlink(elsewhere, dir_path);
        CHECK_FALSE(open_tier(cache.path, &error));
        CHECK(error == dir_path.string() + " is a symbolic link: refused");
        CHECK(fs::is_empty(elsewhere));
    }
}

TEST_CASE("a failed save leaves no temporary file and says why, with the real cause", "[cache][private]")
{
    TempDir dir;
    auto tier = open_tier(dir.path / "cache");
    REQUIRE(tier);

    // The list's name is taken by a directory: the rename fails.
    const fs::path list_path = tier->directory() / "precompile.list";
    fs::create_directories(list_path / "occupied");
    PrecompileList list;
    std::string why;
    list.load(tier->directory_fd(), "precompile.list", tier->owner(), why);
    list.record(sha1(std::string_view("p")), 1, "p");
    std::string refused;
    CHECK_FALSE(list.save(why, refused));
    CHECK(why == std::strerror(EISDIR));
    CHECK(files_starting(tier->directory(), ".precompile-") == 0);
    fs::remove_all(list_path);

    // No byte may be written (RLIMIT_FSIZE 0, SIGXFSZ ignored so write() fails with EFBIG): the temp file is created,
    // then its write fails.
    struct rlimit previous {};
    getrlimit(RLIMIT_FSIZE, &previous);
    const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit none = previous;
    none.rlim_cur = 0;
    StderrCapture capture;
    REQUIRE(setrlimit(RLIMIT_FSIZE, &none) == 0);
    const bool list_saved = list.save(why, refused);
    tier->write(Entry{EntryKind::program, key_for(1), 1, payload_for(1)});
    tier->write(Entry{EntryKind::program, key_for(2), 1, payload_for(2)});
    tier->flush();
    setrlimit(RLIMIT_FSIZE, &previous);
    std::signal(SIGXFSZ, old_handler);
    const std::string log = capture.text();
    INFO(log);
    CHECK_FALSE(list_saved);
    CHECK(why == std::strerror(EFBIG));
    CHECK(tier->stats().write_failures == 1);  // the first failure stops writing
    CHECK(count(log, "cannot write the program cache") == 1);
    CHECK(count(log, std::string("(") + std::strerror(EFBIG) + ")") == 1);
    CHECK(files_starting(dir.path, ".precompile-") == 0);
    CHECK(files_starting(dir.path, ".tmp-") == 0);
}

TEST_CASE("a precompile list that cannot be saved is reported once, with its cause, however often kiln flushes",
          "[cache][private][gl]")
{
    kiln::test::GlContext gl;
    TempDir dir;
    std::vector<std::string> lines;
    auto options = kiln::test::quiet_options(dir.path);
    options.log = [&](const std::string& line) { lines.push_back(line); };
    {
        TieredProgramCache cache(options);
        cache.context_ready(gl.display->handle(), "");
        std::string error;
        REQUIRE(cache.get(kiln::test::colour_program("unsaved"), error));
        REQUIRE(cache.user_tier());
        fs::create_directories(cache.user_tier()->directory() / "precompile.list" / "occupied");
        cache.flush();
        cache.flush();
    }  // and the destructor flushes once more
    size_t warnings = 0;
    for (const auto& line : lines)
        if (line.find("cannot save") != std::string::npos) {
            ++warnings;
            CHECK(line.find(std::strerror(EISDIR)) != std::string::npos);
        }
    CHECK(warnings == 1);
    CHECK(files_starting(dir.path, ".precompile-") == 0);
}
