// Entry files and the disk tier without GL: round trips, dictionaries, fuzzed entries, concurrent writers,
// kill -9 during writes, refusal of foreign and unwritable directories.
#include "renderer/cache/disk_tier.hpp"
#include "renderer/cache/entry_file.hpp"
#include "tests/cache/cache_fixture.hpp"

#include <catch2/catch_test_macros.hpp>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace kiln::cache;
using kiln::test::TempDir;

namespace {

// Deterministic content for a key, so any reader can tell a torn or mixed-up entry.
std::vector<uint8_t> payload_for(uint32_t n, size_t size)
{
    std::vector<uint8_t> bytes(size);
    std::mt19937 rng(n);
    for (size_t i = 0; i < size; ++i)
        bytes[i] = static_cast<uint8_t>(i % 61 == 0 ? rng() : (n + i / 64));  // compressible but not trivial
    return bytes;
}

std::vector<uint8_t> key_for(uint32_t n)
{
    std::vector<uint8_t> key(40, 0);
    std::memcpy(key.data() + 20, &n, sizeof n);
    return key;
}

Sha1 driver()
{
    return sha1(std::string_view("test driver"));
}

std::unique_ptr<DiskTier> open_tier(const std::filesystem::path& root, bool writable = true)
{
    std::string error;
    std::string note;
    DiskTierOptions options;
    options.writable = writable;
    auto tier = DiskTier::open(root, driver(), options, error, note);
    INFO(error);
    REQUIRE(tier);
    return tier;
}

}  // namespace

namespace kiln::test {

// Child mode: writes `count` entries with keys from `first` (overlapping with the sibling) and reads back others,
// exiting 1 if any read returns bytes that are not exactly what some writer wrote for that key.
int disk_writer_child(int argc, char** argv)
{
    if (argc < 5)
        return 2;
    const std::filesystem::path root = argv[2];
    const uint32_t first = static_cast<uint32_t>(std::atoi(argv[3]));
    const uint32_t count = static_cast<uint32_t>(std::atoi(argv[4]));
    const size_t size = argc > 5 ? static_cast<size_t>(std::atoi(argv[5])) : 2048;
    std::string error;
    std::string note;
    auto tier = DiskTier::open(root, driver(), {}, error, note);
    if (!tier)
        return 3;
    for (uint32_t i = 0; i < count; ++i) {
        const uint32_t n = first + i;
        tier->write(Entry{EntryKind::program, key_for(n), 1, payload_for(n, size)});
        if (i % 8 == 0) {
            tier->flush();
            for (uint32_t j = 0; j < count; j += 7) {
                const uint32_t m = first / 2 + j;  // keys the sibling writes too
                if (auto entry = tier->read(EntryKind::program, key_for(m)); entry && entry->payload != payload_for(m, size))
                    return 1;
            }
        }
    }
    tier->flush();
    return 0;
}

}  // namespace kiln::test

TEST_CASE("entries round-trip, with and without a trained dictionary, and the dictionary makes them smaller")
{
    Compressor plain;
    Entry entry{EntryKind::blob, key_for(7), 0, payload_for(7, 3000)};
    std::string why;
    const auto file = encode_entry(entry, plain);
    auto decoded = decode_entry(file, plain, why);
    REQUIRE(decoded);
    CHECK(decoded->payload == entry.payload);
    CHECK(decoded->key == entry.key);
    CHECK(decoded->kind == EntryKind::blob);

    // Program binaries share most of their bytes with each other (headers, runtime code) but little within one:
    // samples made of one common random block plus a private random tail behave the same way.
    std::mt19937 rng(5);
    std::vector<uint8_t> common(1500);
    for (auto& b : common)
        b = static_cast<uint8_t>(rng());
    auto similar = [&](uint32_t n) {
        std::vector<uint8_t> bytes = common;
        std::mt19937 tail(n);
        for (int i = 0; i < 100; ++i)
            bytes.push_back(static_cast<uint8_t>(tail()));
        return bytes;
    };
    std::vector<std::vector<uint8_t>> samples;
    for (uint32_t n = 0; n < 64; ++n)
        samples.push_back(similar(n));
    auto dictionary = Compressor::train(samples, 8192);
    REQUIRE_FALSE(dictionary.empty());
    Compressor trained;
    REQUIRE(trained.set_dictionary(dictionary));
    const Entry fresh{EntryKind::blob, key_for(8), 0, similar(1000)};
    const auto big = encode_entry(fresh, plain);
    const auto small = encode_entry(fresh, trained);
    CHECK(small.size() * 3 < big.size());
    auto again = decode_entry(small, trained, why);
    REQUIRE(again);
    CHECK(again->payload == fresh.payload);
    // Without the dictionary the entry is refused, not misread.
    CHECK_FALSE(decode_entry(small, plain, why));
    CHECK(why.find("dictionary") != std::string::npos);
}

TEST_CASE("fuzz: thousands of mutated entries are refused or decode to exactly what was stored, never crash")
{
    Compressor compressor;
    std::mt19937 rng(20261122);
    const Entry original{EntryKind::program, key_for(1), 0x1234, payload_for(1, 1500)};
    const auto file = encode_entry(original, compressor);
    size_t refused = 0;
    size_t unchecksummed = 0;
    for (int round = 0; round < 5000; ++round) {
        auto bytes = file;
        switch (round % 5) {
        case 0:  // flip bits
            for (int i = 0, n = 1 + static_cast<int>(rng() % 8); i < n; ++i)
                bytes[rng() % bytes.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
            break;
        case 1:  // truncate
            bytes.resize(rng() % bytes.size());
            break;
        case 2:  // append garbage
            for (int i = 0, n = 1 + static_cast<int>(rng() % 64); i < n; ++i)
                bytes.push_back(static_cast<uint8_t>(rng()));
            break;
        case 3:  // overwrite a header field with random values
            for (size_t i = 8 + (rng() % 60) / 4 * 4, j = 0; j < 4 && i < bytes.size(); ++i, ++j)
                bytes[i] = static_cast<uint8_t>(rng());
            break;
        case 4: {  // a crafted header with a valid checksum: sizes and ids lie, the parser must still hold
            for (size_t i = 8 + (rng() % 60), j = 0; j < 8 && i < bytes.size() - 32; ++i, ++j)
                bytes[i] = static_cast<uint8_t>(rng());
            const auto sum = sha256(std::span(bytes.data(), bytes.size() - 32));
            std::copy(sum.begin(), sum.end(), bytes.end() - 32);
            break;
        }
        }
        std::string why;
        auto decoded = decode_entry(bytes, compressor, why);
        if (round % 5 == 4)
            continue;  // crafted: the point is that parsing it does not crash or overread
        ++unchecksummed;
        if (!decoded)
            ++refused;
        else
            CHECK(decoded->payload == original.payload);  // only a mutation that undid itself may pass
    }
    CHECK(refused + 10 >= unchecksummed);
}

TEST_CASE("the disk tier writes atomically, reads back, discards a damaged entry and collects by age and size")
{
    TempDir dir;
    auto tier = open_tier(dir.path);
    for (uint32_t n = 0; n < 20; ++n)
        tier->write(Entry{EntryKind::program, key_for(n), 1, payload_for(n, 4096)});
    tier->flush();
    CHECK(tier->stats().writes == 20);
    auto entry = tier->read(EntryKind::program, key_for(3));
    REQUIRE(entry);
    CHECK(entry->payload == payload_for(3, 4096));
    CHECK_FALSE(tier->read(EntryKind::blob, key_for(3)));  // kinds are separate namespaces

    const auto damaged = tier->path_for(EntryKind::program, key_for(4));
    std::filesystem::resize_file(damaged, 50);
    CHECK_FALSE(tier->read(EntryKind::program, key_for(4)));
    CHECK(tier->stats().discarded == 1);
    CHECK_FALSE(std::filesystem::exists(damaged));

    // Age: make five entries 40 days old; size: cap the rest.
    const auto old = std::filesystem::file_time_type::clock::now() - std::chrono::hours(24 * 40);
    for (uint32_t n = 10; n < 15; ++n)
        std::filesystem::last_write_time(tier->path_for(EntryKind::program, key_for(n)), old);
    auto aged = tier->prune(30, std::nullopt);
    CHECK(aged.removed == 5);
    const auto before = tier->list().size();
    const uint64_t one = std::filesystem::file_size(tier->path_for(EntryKind::program, key_for(0)));
    auto trimmed = tier->prune(std::nullopt, one * 3);
    CHECK(trimmed.bytes_after <= one * 3 + one);
    CHECK(tier->list().size() < before);
}

TEST_CASE("the background load indexes, trains a dictionary once there are enough entries, and reports its time")
{
    TempDir dir;
    {
        auto tier = open_tier(dir.path);
        for (uint32_t n = 0; n < 40; ++n)
            tier->write(Entry{EntryKind::blob, key_for(n), 0, payload_for(n % 5, 2000)});
        tier->flush();
    }
    auto tier = open_tier(dir.path);
    size_t blobs = 0;
    tier->start_background_load([&](std::vector<Entry>&& loaded) { blobs = loaded.size(); });
    tier->wait_ready();
    CHECK(blobs == 40);
    CHECK(tier->stats().load_ms >= 0.0);
    CHECK(tier->compressor().dictionary_id() != 0);
    // Entries written before the dictionary still read; new ones use it.
    CHECK(tier->read(EntryKind::blob, key_for(1)));
    tier->write(Entry{EntryKind::blob, key_for(100), 0, payload_for(2, 2000)});
    tier->flush();
    auto fresh = open_tier(dir.path);
    auto entry = fresh->read(EntryKind::blob, key_for(100));
    REQUIRE(entry);
    CHECK(entry->payload == payload_for(2, 2000));
}

TEST_CASE("a directory owned by someone else is refused; an unwritable one is used read-only")
{
    if (geteuid() == 0) {
        TempDir dir;
        REQUIRE(chown(dir.path.c_str(), 65534, 65534) == 0);
        std::string error;
        std::string note;
        CHECK_FALSE(DiskTier::open(dir.path, driver(), {}, error, note));
        CHECK(error.find("owned by uid 65534") != std::string::npos);
    }
    TempDir dir;
    {
        auto tier = open_tier(dir.path);
        tier->write(Entry{EntryKind::program, key_for(1), 1, payload_for(1, 100)});
        tier->flush();
    }
    auto read_only = open_tier(dir.path, false);
    CHECK_FALSE(read_only->writable());
    CHECK(read_only->read(EntryKind::program, key_for(1)));
    read_only->write(Entry{EntryKind::program, key_for(2), 1, payload_for(2, 100)});
    read_only->flush();
    CHECK_FALSE(std::filesystem::exists(read_only->path_for(EntryKind::program, key_for(2))));
}

TEST_CASE("two processes writing and reading one directory leave no torn or lost entries")
{
    TempDir dir;
    auto spawn = [&](const char* first) {
        const pid_t pid = fork();
        if (pid == 0) {
            execl(kiln::test::self_path().c_str(), "cache-tests", "--disk-writer", dir.path.c_str(), first, "200",
                  static_cast<char*>(nullptr));
            _exit(127);
        }
        return pid;
    };
    const pid_t a = spawn("0");
    const pid_t b = spawn("100");  // keys 100..199 are written by both
    int status_a = 0;
    int status_b = 0;
    waitpid(a, &status_a, 0);
    waitpid(b, &status_b, 0);
    CHECK((WIFEXITED(status_a) && WEXITSTATUS(status_a) == 0));
    CHECK((WIFEXITED(status_b) && WEXITSTATUS(status_b) == 0));
    auto tier = open_tier(dir.path);
    for (uint32_t n = 0; n < 300; ++n) {
        auto entry = tier->read(EntryKind::program, key_for(n));
        REQUIRE(entry);
        CHECK(entry->payload == payload_for(n, 2048));
    }
    CHECK(tier->stats().discarded == 0);
}

TEST_CASE("kill -9 during writes never leaves a torn entry visible")
{
    TempDir dir;
    std::mt19937 rng(99);
    // Files (entries, and a writer's temporary ones) under the tier's directory.
    auto files = [&] {
        size_t n = 0;
        std::error_code ec;
        for (const auto& e : std::filesystem::recursive_directory_iterator(dir.path, ec))
            n += e.is_regular_file(ec) ? 1 : 0;
        return n;
    };
    for (int round = 0; round < 8; ++round) {
        const size_t before = files();
        const pid_t pid = fork();
        if (pid == 0) {
            const std::string first = std::to_string(round * 1000);
            execl(kiln::test::self_path().c_str(), "cache-tests", "--disk-writer", dir.path.c_str(), first.c_str(),
                  "100000", "65536", static_cast<char*>(nullptr));
            _exit(127);
        }
        // Killed while it writes: once its first file is there (a writer under ASan on a loaded machine takes longer
        // to start than a fixed delay allows), then 0-80 ms later, somewhere in its stream of writes.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (files() == before && std::chrono::steady_clock::now() < deadline && waitpid(pid, nullptr, WNOHANG) == 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 80));
        kill(pid, SIGKILL);
        int status = 0;
        waitpid(pid, &status, 0);
        CHECK(WIFSIGNALED(status));
    }
    auto tier = open_tier(dir.path);
    size_t checked = 0;
    for (const auto& info : tier->list()) {
        std::ifstream in(info.path, std::ios::binary);
        std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
        std::string why;
        auto entry = decode_entry(bytes, tier->compressor(), why);
        INFO(info.path << ": " << why);
        REQUIRE(entry);
        uint32_t n = 0;
        std::memcpy(&n, entry->key.data() + 20, sizeof n);
        CHECK(entry->payload == payload_for(n, 65536));
        ++checked;
    }
    CHECK(checked > 0);
}
