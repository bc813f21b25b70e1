// The on-disk cache entry: header, full key, compressed payload, and a SHA-256 over all of it that is checked
// before anything reaches the driver (Mesa trusts a program binary whose own CRC matches; a crafted one can crash
// or hang it).
#pragma once

#include "renderer/cache/compressor.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kiln::cache {

enum class EntryKind : uint32_t { program = 1, blob = 2 };

struct Entry {
    EntryKind kind = EntryKind::program;
    std::vector<uint8_t> key;       // the full key: driver identity hash ‖ program key, or ‖ the driver's blob key
    uint32_t binary_format = 0;     // GL program binary format (programs only)
    std::vector<uint8_t> payload;   // uncompressed
};

// Serialises (compressing the payload with the compressor's current dictionary).
std::vector<uint8_t> encode_entry(const Entry& entry, const Compressor& compressor);

// Parses and verifies: magic, version, sizes, checksum, decompression. nullopt with `why` on any defect.
std::optional<Entry> decode_entry(std::span<const uint8_t> file, const Compressor& compressor, std::string& why);

// Reads the header only (for listings): kind, key, sizes and dictionary, without verifying the payload.
struct EntryHeader {
    EntryKind kind = EntryKind::program;
    std::vector<uint8_t> key;
    uint32_t binary_format = 0;
    uint32_t dictionary_id = 0;
    uint64_t raw_size = 0;
    uint64_t packed_size = 0;
};
std::optional<EntryHeader> decode_header(std::span<const uint8_t> file, std::string& why);

// The most bytes an entry's header takes (magic, fields, the longest key): what entry_torn needs of a file.
constexpr size_t max_entry_header_bytes = 8 + 12 + 4096 + 24;
// Whether an entry whose file holds `file_size` bytes and starts with `prefix` (its first max_entry_header_bytes, or
// all of it) is torn, judged from its header alone: cut short or grown past what the header says (a copy truncated,
// another tool's partial write), or no entry at all. `why` says how. The payload's checksum is not looked at.
bool entry_torn(std::span<const uint8_t> prefix, uint64_t file_size, std::string& why);

}  // namespace kiln::cache
