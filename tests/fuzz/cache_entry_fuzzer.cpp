// libFuzzer target for the cache entry decoder: header parsing, checksum, zstd with and without a dictionary.
#include "renderer/cache/compressor.hpp"
#include "renderer/cache/digest.hpp"
#include "renderer/cache/entry_file.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using kiln::cache::Compressor;

// Built once: a compressor knowing one trained dictionary, so entries that name it reach ZSTD_decompress_usingDDict.
Compressor& compressor_with_dictionary()
{
    static Compressor* compressor = [] {
        auto* c = new Compressor;
        std::vector<std::vector<uint8_t>> samples;
        for (int i = 0; i < 64; ++i) {
            std::string text = "#version 300 es\nprecision mediump float;\nuniform sampler2D tex" + std::to_string(i) +
                               ";\nin vec2 uv;\nout vec4 color;\nvoid main() { color = texture(tex" +
                               std::to_string(i % 7) + ", uv) * " + std::to_string(i * 0.25) + "; }\n";
            samples.emplace_back(text.begin(), text.end());
        }
        c->set_dictionary(Compressor::train(samples, 2048));
        return c;
    }();
    return *compressor;
}

[[noreturn]] void fail(const char* what)
{
    std::fprintf(stderr, "cache_entry_fuzzer: %s\n", what);
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size < 1)
        return 0;
    // First byte: bit 0 re-seals the checksum so mutations get past it to the sizes and the zstd frame (a file on
    // disk can carry any checksum its writer chose); bit 1 picks a compressor without the dictionary.
    const uint8_t mode = data[0];
    std::vector<uint8_t> file(data + 1, data + size);
    if ((mode & 1) && file.size() >= 32) {
        const auto sum = kiln::cache::sha256(std::span(file).first(file.size() - 32));
        std::memcpy(file.data() + file.size() - 32, sum.data(), sum.size());
    }
    static Compressor plain;
    const Compressor& compressor = (mode & 2) ? plain : compressor_with_dictionary();

    std::string why;
    const auto header = kiln::cache::decode_header(file, why);
    const auto entry = kiln::cache::decode_entry(file, compressor, why);
    if (entry && !header)
        fail("decode_entry accepted what decode_header refused");
    // The background check reads only a prefix: from it and the size it must judge as the whole-file header does.
    const std::span<const uint8_t> prefix(file.data(), std::min(file.size(), kiln::cache::max_entry_header_bytes));
    if (kiln::cache::entry_torn(prefix, file.size(), why) == header.has_value())
        fail("entry_torn disagrees with decode_header");
    if (!entry)
        return 0;
    if (entry->payload.size() != header->raw_size || entry->key != header->key)
        fail("decoded entry disagrees with its header");
    // What decodes must survive a round trip through the encoder unchanged.
    const auto again = kiln::cache::decode_entry(kiln::cache::encode_entry(*entry, compressor), compressor, why);
    if (!again || again->payload != entry->payload || again->key != entry->key || again->kind != entry->kind ||
        again->binary_format != entry->binary_format)
        fail("re-encoded entry does not decode to the same entry");
    return 0;
}
