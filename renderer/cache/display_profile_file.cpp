// Encoding, strict decoding and the private file of a cached DisplayProfile.
#include "renderer/cache/display_profile_file.hpp"

#include "renderer/cache/disk_tier.hpp"
#include "renderer/cache/private_files.hpp"
#include "renderer/cache/program_key.hpp"
#include "renderer/formats.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <string_view>

namespace kiln::cache {
namespace {

constexpr std::string_view magic = "kiln display profile 1";
constexpr size_t max_formats = 8192;
constexpr const char* subdir = "displays";

// A field value kiln wrote: printable, no spaces at the ends, bounded.
bool plain_text(std::string_view text)
{
    if (text.size() > 255)
        return false;
    for (char c : text)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            return false;
    return true;
}

template <typename T>
bool parse_hex(std::string_view text, T& out, size_t digits)
{
    if (text.size() != digits)
        return false;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out, 16);
    return ec == std::errc() && end == text.data() + text.size();
}

bool parse_flag(std::string_view text, bool& out)
{
    if (text != "0" && text != "1")
        return false;
    out = text == "1";
    return true;
}

std::vector<std::string_view> split(std::string_view line)
{
    std::vector<std::string_view> out;
    size_t pos = 0;
    while (pos <= line.size()) {
        const size_t space = line.find(' ', pos);
        const size_t end = space == std::string_view::npos ? line.size() : space;
        out.push_back(line.substr(pos, end - pos));
        pos = end + 1;
    }
    return out;
}

// What follows "name " on a line, or nullopt when the line is something else.
std::optional<std::string_view> value_of(std::string_view line, std::string_view name)
{
    if (line.size() <= name.size() || !line.starts_with(name) || line[name.size()] != ' ')
        return std::nullopt;
    return line.substr(name.size() + 1);
}

std::string hex(uint64_t value, int digits)
{
    char buf[24];
    std::snprintf(buf, sizeof(buf), "%0*llx", digits, static_cast<unsigned long long>(value));
    return buf;
}

}  // namespace

std::vector<uint8_t> encode_display_profile(const renderer::DisplayProfile& profile, const Sha1& key)
{
    std::string text(magic);
    text += "\nkey " + to_hex(key);
    text += std::string("\nkind ") + profile.kind_name();
    text += "\ndriver " + (profile.driver_name.empty() ? std::string("-") : profile.driver_name);
    text += "\ndevice " + (profile.device_path.empty() ? std::string("-") : profile.device_path);
    text += std::string("\nsoftware ") + (profile.software ? "1" : "0");
    for (const auto& fm : profile.dmabuf_formats)
        text += "\nformat " + hex(fm.fourcc, 8) + " " + hex(fm.modifier, 16) + " " + (fm.external_only ? "1" : "0") +
                " " + (fm.through_planes ? "1" : "0");
    text += "\n";
    const Sha256 sum = sha256(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
    text += "sha256 " + to_hex(sum) + "\n";
    return {text.begin(), text.end()};
}

std::optional<renderer::DisplayProfile> decode_display_profile(std::span<const uint8_t> bytes, const Sha1& key,
                                                               std::string& why)
{
    if (bytes.size() > display_profile_max_bytes) {
        why = "too large";
        return std::nullopt;
    }
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    // The checksum line closes the file and covers every byte before it.
    const size_t sum_at = text.rfind("sha256 ");
    if (sum_at == std::string_view::npos || (sum_at > 0 && text[sum_at - 1] != '\n') || !text.ends_with("\n")) {
        why = "no checksum";
        return std::nullopt;
    }
    Sha256 stored{};
    if (!from_hex(text.substr(sum_at + 7, text.size() - sum_at - 8), stored) ||
        stored != sha256(bytes.first(sum_at))) {
        why = "checksum mismatch";
        return std::nullopt;
    }
    std::vector<std::string_view> lines;
    for (std::string_view rest = text.substr(0, sum_at); !rest.empty();) {
        const size_t nl = rest.find('\n');
        lines.push_back(rest.substr(0, nl));
        rest.remove_prefix(nl + 1);
    }
    if (lines.size() < 6 || lines[0] != magic) {
        why = "not a display profile";
        return std::nullopt;
    }
    if (value_of(lines[1], "key") != to_hex(key)) {
        why = "made for another driver";
        return std::nullopt;
    }
    renderer::DisplayProfile profile;
    const auto kind = value_of(lines[2], "kind");
    if (kind == "gbm")
        profile.kind = renderer::DisplayKind::gbm;
    else if (kind == "device")
        profile.kind = renderer::DisplayKind::device;
    else if (kind == "surfaceless")
        profile.kind = renderer::DisplayKind::surfaceless;
    else {
        why = "unknown display kind";
        return std::nullopt;
    }
    const auto driver = value_of(lines[3], "driver");
    const auto device = value_of(lines[4], "device");
    const auto software = value_of(lines[5], "software");
    if (!driver || !plain_text(*driver) || !device || !plain_text(*device) ||
        (*device != "-" && !device->starts_with("/dev/")) || !software || !parse_flag(*software, profile.software)) {
        why = "malformed header";
        return std::nullopt;
    }
    if (*driver != "-")
        profile.driver_name = *driver;
    if (*device != "-") {
        profile.device_path = *device;
        struct stat st {};
        if (stat(profile.device_path.c_str(), &st) != 0 || !S_ISCHR(st.st_mode)) {
            why = "its device " + profile.device_path + " is gone";
            return std::nullopt;
        }
        profile.main_device = st.st_rdev;
    }
    if (lines.size() - 6 > max_formats) {
        why = "too many formats";
        return std::nullopt;
    }
    for (size_t i = 6; i < lines.size(); ++i) {
        const auto fields = value_of(lines[i], "format");
        const auto parts = fields ? split(*fields) : std::vector<std::string_view>{};
        renderer::FormatModifier fm;
        if (parts.size() != 4 || !parse_hex(parts[0], fm.fourcc, 8) || !parse_hex(parts[1], fm.modifier, 16) ||
            !parse_flag(parts[2], fm.external_only) || !parse_flag(parts[3], fm.through_planes) ||
            !renderer::format_info(fm.fourcc)) {
            why = "malformed format line " + std::to_string(i + 1);
            return std::nullopt;
        }
        profile.dmabuf_formats.push_back(fm);
    }
    return profile;
}

std::optional<renderer::DisplayProfile> load_display_profile(const std::filesystem::path& root, const Sha1& key,
                                                             std::string& why)
{
    why.clear();
    const uid_t me = geteuid();
    std::string error;
    Opened root_dir = open_private_dir(AT_FDCWD, root, false, me);
    if (!root_dir.fd) {
        if (root_dir.status != OpenStatus::missing)
            why = root.string() + ": " + root_dir.why;
        return std::nullopt;
    }
    const std::string version = "v" + std::to_string(cache_format_version);
    Opened version_dir = open_private_dir(root_dir.fd.get(), version, false, me);
    Opened dir = version_dir.fd ? open_private_dir(version_dir.fd.get(), subdir, false, me) : Opened{};
    if (!dir.fd) {
        const Opened& failed = version_dir.fd ? dir : version_dir;
        if (failed.status != OpenStatus::missing)
            why = failed.why;
        return std::nullopt;
    }
    const std::string name = to_hex(key);
    OpenStatus status = OpenStatus::failed;
    auto bytes = read_private_file(dir.fd.get(), name, me, display_profile_max_bytes, status, error);
    if (!bytes) {
        if (status != OpenStatus::missing)
            why = error;
        return std::nullopt;
    }
    auto profile = decode_display_profile(*bytes, key, error);
    if (!profile) {
        why = error;
        unlinkat(dir.fd.get(), name.c_str(), 0);  // a regular file of ours (read_private_file checked): rewritten next
    }
    return profile;
}

bool store_display_profile(const std::filesystem::path& root, const Sha1& key, const renderer::DisplayProfile& profile,
                           std::string& why)
{
    const uid_t me = geteuid();
    Opened root_dir = open_cache_root(root, true, true, why);
    if (!root_dir.fd)
        return false;
    const std::string version = "v" + std::to_string(cache_format_version);
    Opened version_dir = open_private_dir(root_dir.fd.get(), version, true, me);
    Opened dir = version_dir.fd ? open_private_dir(version_dir.fd.get(), subdir, true, me) : Opened{};
    if (!dir.fd) {
        why = version_dir.fd ? dir.why : version_dir.why;
        return false;
    }
    std::string refused;
    const auto bytes = encode_display_profile(profile, key);
    if (!write_private_file(dir.fd.get(), to_hex(key), ".tmp-", bytes, why, refused)) {
        if (!refused.empty())
            why += " (" + refused + ")";
        return false;
    }
    return true;
}

}  // namespace kiln::cache
