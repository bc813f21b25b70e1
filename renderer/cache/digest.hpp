// SHA-1 (cache keys) and SHA-256 (entry checksums) through OpenSSL's libcrypto, and hex spelling of both.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace kiln::cache {

using Sha1 = std::array<uint8_t, 20>;
using Sha256 = std::array<uint8_t, 32>;

Sha1 sha1(std::span<const uint8_t> bytes);
Sha1 sha1(std::string_view text);
Sha256 sha256(std::span<const uint8_t> bytes);

// Incremental SHA-1 for keys made of several parts.
class Sha1Builder {
public:
    Sha1Builder();
    ~Sha1Builder();
    Sha1Builder(const Sha1Builder&) = delete;
    Sha1Builder& operator=(const Sha1Builder&) = delete;
    Sha1Builder& add(std::span<const uint8_t> bytes);
    Sha1Builder& add(std::string_view text);
    // Length-prefixed, so ("ab","c") and ("a","bc") differ.
    Sha1Builder& add_field(std::string_view text);
    Sha1 finish();

private:
    void* context_;
};

std::string to_hex(std::span<const uint8_t> bytes);
// Parses exactly 2*N hex digits; false on anything else.
template <size_t N>
bool from_hex(std::string_view text, std::array<uint8_t, N>& out);

}  // namespace kiln::cache
