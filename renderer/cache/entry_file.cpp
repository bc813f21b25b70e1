// Entry layout (little-endian):
//   "KILNPC\r\n" | u32 format version | u32 kind | u32 key size | key | u32 binary format | u32 dictionary id |
//   u64 raw size | u64 packed size | packed payload | SHA-256 of everything before it
#include "renderer/cache/entry_file.hpp"

#include "renderer/cache/digest.hpp"
#include "renderer/cache/program_key.hpp"

#include <cstring>

namespace kiln::cache {
namespace {

constexpr char magic[8] = {'K', 'I', 'L', 'N', 'P', 'C', '\r', '\n'};
constexpr uint32_t max_key_size = 4096;

void put32(std::vector<uint8_t>& out, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

void put64(std::vector<uint8_t>& out, uint64_t v)
{
    for (int i = 0; i < 8; ++i)
        out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// A bounds-checked cursor over untrusted bytes.
class Reader {
public:
    explicit Reader(std::span<const uint8_t> bytes) : bytes_(bytes) {}
    bool u32(uint32_t& v)
    {
        if (!has(4))
            return false;
        v = 0;
        for (int i = 0; i < 4; ++i)
            v |= static_cast<uint32_t>(bytes_[pos_ + static_cast<size_t>(i)]) << (8 * i);
        pos_ += 4;
        return true;
    }
    bool u64(uint64_t& v)
    {
        if (!has(8))
            return false;
        v = 0;
        for (int i = 0; i < 8; ++i)
            v |= static_cast<uint64_t>(bytes_[pos_ + static_cast<size_t>(i)]) << (8 * i);
        pos_ += 8;
        return true;
    }
    bool take(uint64_t n, std::span<const uint8_t>& out)
    {
        if (!has(n))
            return false;
        out = bytes_.subspan(pos_, static_cast<size_t>(n));
        pos_ += static_cast<size_t>(n);
        return true;
    }
    size_t pos() const { return pos_; }
    size_t left() const { return bytes_.size() - pos_; }

private:
    bool has(uint64_t n) const { return n <= bytes_.size() - pos_; }
    std::span<const uint8_t> bytes_;
    size_t pos_ = 0;
};

struct Parsed {
    EntryHeader header;
    std::span<const uint8_t> packed;
};

// The header at the start of `bytes` (the whole file, or at least its first max_header_bytes) of a file of
// `file_size` bytes, checked against that size; `length` gets the header's length.
std::optional<EntryHeader> parse_header(std::span<const uint8_t> bytes, uint64_t file_size, size_t& length,
                                        std::string& why)
{
    if (file_size < sizeof magic + 32 || bytes.size() < sizeof magic ||
        std::memcmp(bytes.data(), magic, sizeof magic) != 0) {
        why = "not a kiln cache entry";
        return std::nullopt;
    }
    Reader r(bytes.subspan(sizeof magic));
    EntryHeader header;
    uint32_t version = 0;
    uint32_t kind = 0;
    uint32_t key_size = 0;
    std::span<const uint8_t> key;
    if (!r.u32(version) || !r.u32(kind) || !r.u32(key_size)) {
        why = "truncated header";
        return std::nullopt;
    }
    if (version != cache_format_version) {
        why = "cache format version " + std::to_string(version) + ", kiln reads " + std::to_string(cache_format_version);
        return std::nullopt;
    }
    if (kind != static_cast<uint32_t>(EntryKind::program) && kind != static_cast<uint32_t>(EntryKind::blob)) {
        why = "unknown entry kind";
        return std::nullopt;
    }
    if (key_size == 0 || key_size > max_key_size || !r.take(key_size, key) || !r.u32(header.binary_format) ||
        !r.u32(header.dictionary_id) || !r.u64(header.raw_size) || !r.u64(header.packed_size)) {
        why = "truncated or oversized header";
        return std::nullopt;
    }
    length = sizeof magic + r.pos();
    if (file_size - length < 32 || header.packed_size != file_size - length - 32) {
        why = "payload size does not match the file";
        return std::nullopt;
    }
    header.kind = static_cast<EntryKind>(kind);
    header.key.assign(key.begin(), key.end());
    return header;
}

std::optional<Parsed> parse(std::span<const uint8_t> file, std::string& why)
{
    size_t length = 0;
    auto header = parse_header(file, file.size(), length, why);
    if (!header)
        return std::nullopt;
    return Parsed{std::move(*header), file.subspan(length, static_cast<size_t>(header->packed_size))};
}

}  // namespace

std::vector<uint8_t> encode_entry(const Entry& entry, const Compressor& compressor)
{
    const std::vector<uint8_t> packed = compressor.compress(entry.payload);
    std::vector<uint8_t> out(magic, magic + sizeof magic);
    put32(out, cache_format_version);
    put32(out, static_cast<uint32_t>(entry.kind));
    put32(out, static_cast<uint32_t>(entry.key.size()));
    out.insert(out.end(), entry.key.begin(), entry.key.end());
    put32(out, entry.binary_format);
    put32(out, compressor.dictionary_id());
    put64(out, entry.payload.size());
    put64(out, packed.size());
    out.insert(out.end(), packed.begin(), packed.end());
    const Sha256 sum = sha256(out);
    out.insert(out.end(), sum.begin(), sum.end());
    return out;
}

std::optional<EntryHeader> decode_header(std::span<const uint8_t> file, std::string& why)
{
    auto parsed = parse(file, why);
    if (!parsed)
        return std::nullopt;
    return parsed->header;
}

bool entry_torn(std::span<const uint8_t> prefix, uint64_t file_size, std::string& why)
{
    size_t length = 0;
    return !parse_header(prefix, file_size, length, why);
}

std::optional<Entry> decode_entry(std::span<const uint8_t> file, const Compressor& compressor, std::string& why)
{
    auto parsed = parse(file, why);
    if (!parsed)
        return std::nullopt;
    // The checksum covers header and payload; nothing of the entry is trusted before it matches.
    const auto body = file.subspan(0, file.size() - 32);
    const Sha256 sum = sha256(body);
    if (std::memcmp(sum.data(), file.data() + body.size(), sum.size()) != 0) {
        why = "checksum mismatch";
        return std::nullopt;
    }
    auto payload = compressor.decompress(parsed->packed, parsed->header.dictionary_id, parsed->header.raw_size, &why);
    if (!payload)
        return std::nullopt;
    Entry entry;
    entry.kind = parsed->header.kind;
    entry.key = std::move(parsed->header.key);
    entry.binary_format = parsed->header.binary_format;
    entry.payload = std::move(*payload);
    return entry;
}

}  // namespace kiln::cache
