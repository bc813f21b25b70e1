// The cached DisplayProfile: one small checksummed file per driver fingerprint under the user cache
// (<cache>/v1/displays/<key>), read as hostile input: never through a symbolic link, owned by the user, bounded,
// its SHA-256 and its key checked, every field parsed strictly. Anything off is a miss.
#pragma once

#include "renderer/cache/digest.hpp"
#include "renderer/display_profile.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kiln::cache {

inline constexpr size_t display_profile_max_bytes = 256 * 1024;

std::vector<uint8_t> encode_display_profile(const renderer::DisplayProfile& profile, const Sha1& key);
// nullopt with `why` when the bytes are not a whole, intact profile for `key`.
std::optional<renderer::DisplayProfile> decode_display_profile(std::span<const uint8_t> bytes, const Sha1& key,
                                                               std::string& why);

// nullopt on a miss: `why` is empty when there simply is no file, else says what was wrong with it (a defective
// file is removed so the next cold start rewrites it).
std::optional<renderer::DisplayProfile> load_display_profile(const std::filesystem::path& root, const Sha1& key,
                                                             std::string& why);
bool store_display_profile(const std::filesystem::path& root, const Sha1& key, const renderer::DisplayProfile& profile,
                           std::string& why);

}  // namespace kiln::cache
