// The cached display profile is hostile input: it round-trips what the probe found, and a corrupted, truncated,
// foreign (another driver's key), oversized, linked or crafted file is a miss (removed when it is kiln's own), never
// a table clients are told about. The fingerprint that keys it is read without starting EGL.
#include "renderer/cache/display_profile_file.hpp"
#include "renderer/cache/driver_fingerprint.hpp"
#include "renderer/formats.hpp"
#include "tests/cache/cache_fixture.hpp"

#include <catch2/catch_test_macros.hpp>

#include <fstream>
#include <string>
#include <unistd.h>

using namespace kiln::cache;
using kiln::renderer::DisplayKind;
using kiln::renderer::DisplayProfile;
using kiln::renderer::FormatModifier;
using kiln::test::TempDir;
namespace fs = std::filesystem;

namespace {

DisplayProfile sample()
{
    DisplayProfile p;
    p.kind = DisplayKind::device;
    p.driver_name = "swrast";
    p.software = true;
    p.dmabuf_formats = {{kiln::renderer::fourcc::xrgb8888, kiln::renderer::modifier_invalid, false, false},
                        {kiln::renderer::fourcc::xrgb8888, 0, false, false},
                        {kiln::renderer::fourcc::argb8888, 0, true, false}};
    return p;
}

Sha1 key_a()
{
    return driver_fingerprint_key("driver a");
}

fs::path profile_path(const fs::path& root, const Sha1& key)
{
    return root / ("v" + std::to_string(cache_format_version)) / "displays" / to_hex(key);
}

std::string read_text(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_text(const fs::path& path, const std::string& text)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

// `text` with a checksum line that matches it: a file only a deliberate forger (or a bug) makes.
std::string with_valid_checksum(const std::string& body)
{
    const auto sum = sha256(std::span(reinterpret_cast<const uint8_t*>(body.data()), body.size()));
    return body + "sha256 " + to_hex(sum) + "\n";
}

}  // namespace

TEST_CASE("a stored profile loads back as it was")
{
    TempDir dir;
    std::string why;
    REQUIRE(store_display_profile(dir.path, key_a(), sample(), why));
    const auto loaded = load_display_profile(dir.path, key_a(), why);
    REQUIRE(loaded);
    CHECK(why.empty());
    CHECK(loaded->same_as(sample()));
    const auto mode = fs::status(profile_path(dir.path, key_a())).permissions() & fs::perms::all;
    CHECK(mode == (fs::perms::owner_read | fs::perms::owner_write));
}

TEST_CASE("the profile of a real display round-trips")
{
    kiln::test::GlContext gl;
    const DisplayProfile live = DisplayProfile::of(*gl.display);
    const auto bytes = encode_display_profile(live, key_a());
    std::string why;
    const auto decoded = decode_display_profile(bytes, key_a(), why);
    REQUIRE(decoded);
    CHECK(decoded->same_as(live));
    CHECK(decoded->main_device == live.main_device);
}

TEST_CASE("no file is a plain miss")
{
    TempDir dir;
    std::string why = "stale";
    CHECK_FALSE(load_display_profile(dir.path, key_a(), why));
    CHECK(why.empty());
}

TEST_CASE("another driver's profile is not used")
{
    TempDir dir;
    std::string why;
    REQUIRE(store_display_profile(dir.path, key_a(), sample(), why));
    const Sha1 key_b = driver_fingerprint_key("driver b");
    // Copied under the other driver's name: the key inside still says driver a.
    fs::copy_file(profile_path(dir.path, key_a()), profile_path(dir.path, key_b));
    CHECK_FALSE(load_display_profile(dir.path, key_b, why));
    CHECK(why == "made for another driver");
    CHECK_FALSE(fs::exists(profile_path(dir.path, key_b)));  // removed: the next cold start writes a good one
    CHECK(load_display_profile(dir.path, key_a(), why));
}

TEST_CASE("a corrupted or truncated profile is discarded")
{
    TempDir dir;
    std::string why;
    const fs::path path = profile_path(dir.path, key_a());
    REQUIRE(store_display_profile(dir.path, key_a(), sample(), why));
    const std::string good = read_text(path);

    std::string flipped = good;
    flipped[good.find("swrast")] = 'S';
    write_text(path, flipped);
    CHECK_FALSE(load_display_profile(dir.path, key_a(), why));
    CHECK(why == "checksum mismatch");
    CHECK_FALSE(fs::exists(path));

    write_text(path, good.substr(0, good.size() / 2));
    CHECK_FALSE(load_display_profile(dir.path, key_a(), why));
    CHECK_FALSE(why.empty());

    write_text(path, "");
    CHECK_FALSE(load_display_profile(dir.path, key_a(), why));
    CHECK_FALSE(why.empty());
}

TEST_CASE("a well-checksummed but malformed profile is discarded")
{
    const Sha1 key = key_a();
    const std::string head = "kiln display profile 1\nkey " + to_hex(key) +
                             "\nkind device\ndriver swrast\ndevice -\nsoftware 1\n";
    std::string why;
    auto decode = [&](const std::string& body) {
        const std::string text = with_valid_checksum(body);
        return decode_display_profile(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()), key, why);
    };
    CHECK(decode(head + "format 34325258 0000000000000000 0 0\n"));  // XRGB8888, linear: fine
    CHECK_FALSE(decode(head + "format 12345678 0000000000000000 0 0\n"));
    CHECK(why.starts_with("malformed format line"));  // a fourcc kiln cannot describe
    CHECK_FALSE(decode(head + "format 34325258 00 0 0\n"));
    CHECK_FALSE(decode(head + "format 34325258 0000000000000000 2 0\n"));
    CHECK_FALSE(decode(head + "format 34325258 0000000000000000 0 0 extra\n"));
    CHECK_FALSE(decode(head + "anything 1\n"));
    CHECK_FALSE(decode("kiln display profile 1\nkey " + to_hex(key) + "\nkind vulkan\ndriver x\ndevice -\nsoftware 1\n"));
    CHECK(why == "unknown display kind");
    CHECK_FALSE(decode("kiln display profile 1\nkey " + to_hex(key) +
                       "\nkind device\ndriver x\ndevice /etc/passwd\nsoftware 1\n"));
    CHECK_FALSE(decode("kiln display profile 1\nkey " + to_hex(key) +
                       "\nkind device\ndriver x\ndevice /dev/kiln-no-such-node\nsoftware 1\n"));
    CHECK(why.find("gone") != std::string::npos);
    CHECK_FALSE(decode("kiln display profile 1\nkey " + to_hex(key) + "\nkind device\ndriver a\tb\ndevice -\nsoftware 1\n"));
    CHECK_FALSE(decode("kiln display profile 2\nkey " + to_hex(key) + "\nkind device\ndriver x\ndevice -\nsoftware 1\n"));
}

TEST_CASE("a profile reached through a symbolic link, or too large, is refused")
{
    TempDir dir;
    std::string why;
    REQUIRE(store_display_profile(dir.path, key_a(), sample(), why));
    const fs::path path = profile_path(dir.path, key_a());
    const fs::path elsewhere = dir.path / "elsewhere";
    fs::rename(path, elsewhere);
    fs::create_symlink(elsewhere, path);
    CHECK_FALSE(load_display_profile(dir.path, key_a(), why));
    CHECK_FALSE(why.empty());
    CHECK(fs::exists(elsewhere));  // what the link points at is never touched
    fs::remove(path);

    write_text(path, std::string(display_profile_max_bytes + 1, 'x'));
    CHECK_FALSE(load_display_profile(dir.path, key_a(), why));
    CHECK_FALSE(why.empty());
}

TEST_CASE("the driver fingerprint is read without EGL and is stable")
{
    const std::string a = driver_fingerprint(-1);
    CHECK(a == driver_fingerprint(-1));
    CHECK(a.find("backend device none") != std::string::npos);
    CHECK(a.find("libEGL") != std::string::npos);
    // The environment that steers Mesa is part of it.
    setenv("GALLIUM_DRIVER", "softpipe", 1);
    const std::string b = driver_fingerprint(-1);
    unsetenv("GALLIUM_DRIVER");
    CHECK(b != a);
    CHECK(driver_fingerprint_key(a) != driver_fingerprint_key(b));
}
