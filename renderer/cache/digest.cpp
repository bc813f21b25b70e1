// Digests via libcrypto's EVP interface.
#include "renderer/cache/digest.hpp"

#include <openssl/evp.h>

namespace kiln::cache {
namespace {

template <size_t N>
std::array<uint8_t, N> digest(const EVP_MD* md, std::span<const uint8_t> bytes)
{
    std::array<uint8_t, N> out{};
    unsigned int length = 0;
    EVP_Digest(bytes.data(), bytes.size(), out.data(), &length, md, nullptr);
    return out;
}

}  // namespace

Sha1 sha1(std::span<const uint8_t> bytes)
{
    return digest<20>(EVP_sha1(), bytes);
}

Sha1 sha1(std::string_view text)
{
    return sha1(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

Sha256 sha256(std::span<const uint8_t> bytes)
{
    return digest<32>(EVP_sha256(), bytes);
}

Sha1Builder::Sha1Builder() : context_(EVP_MD_CTX_new())
{
    EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(context_), EVP_sha1(), nullptr);
}

Sha1Builder::~Sha1Builder()
{
    EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(context_));
}

Sha1Builder& Sha1Builder::add(std::span<const uint8_t> bytes)
{
    EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(context_), bytes.data(), bytes.size());
    return *this;
}

Sha1Builder& Sha1Builder::add(std::string_view text)
{
    return add(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

Sha1Builder& Sha1Builder::add_field(std::string_view text)
{
    const uint64_t length = text.size();
    add(std::span(reinterpret_cast<const uint8_t*>(&length), sizeof length));
    return add(text);
}

Sha1 Sha1Builder::finish()
{
    Sha1 out{};
    unsigned int length = 0;
    EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(context_), out.data(), &length);
    return out;
}

std::string to_hex(std::span<const uint8_t> bytes)
{
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (uint8_t b : bytes) {
        out += digits[b >> 4];
        out += digits[b & 0xf];
    }
    return out;
}

template <size_t N>
bool from_hex(std::string_view text, std::array<uint8_t, N>& out)
{
    if (text.size() != N * 2)
        return false;
    auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9')
            return c - '0';
        if (c >= 'a' && c <= 'f')
            return c - 'a' + 10;
        return -1;
    };
    for (size_t i = 0; i < N; ++i) {
        const int hi = nibble(text[2 * i]);
        const int lo = nibble(text[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        out[i] = static_cast<uint8_t>(hi << 4 | lo);
    }
    return true;
}

template bool from_hex<20>(std::string_view, std::array<uint8_t, 20>&);
template bool from_hex<32>(std::string_view, std::array<uint8_t, 32>&);

}  // namespace kiln::cache
