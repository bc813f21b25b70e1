// libFuzzer target for the precompile list parser, reading the fuzzed bytes as the list file (a memfd).
#include "renderer/cache/precompile_list.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    // A memfd read through /proc/self/fd: the real file path without a temp file to clean up.
    const int fd = memfd_create("precompile-list", MFD_CLOEXEC);
    if (fd < 0)
        std::abort();
    size_t written = 0;
    while (written < size) {
        const ssize_t n = write(fd, data + written, size - written);
        if (n <= 0)
            std::abort();
        written += static_cast<size_t>(n);
    }
    kiln::cache::PrecompileList list;
    list.load("/proc/self/fd/" + std::to_string(fd));
    close(fd);

    // A recorded program is found afterwards whatever the file held, and counted once.
    kiln::cache::Sha1 key{};
    key.fill(0x5a);
    const bool was_there = list.contains(key);
    const size_t before = list.size();
    const bool first = list.record(key, 0x3, "probe");
    if (first == was_there || list.size() != before + (first ? 1 : 0) || !list.contains(key) ||
        (list.usage(key) & 0x3) != 0x3 || list.empty()) {
        std::fprintf(stderr, "precompile_list_fuzzer: record() after load() is inconsistent\n");
        std::abort();
    }
    return 0;
}
