// libFuzzer target for the precompile list parser, reading the fuzzed bytes as the list file: written into a private
// directory made once per process (the loader opens files relative to a directory, never through a link).
#include "renderer/cache/precompile_list.hpp"

#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <string>
#include <unistd.h>

namespace {

// The directory lives as long as the process and is removed at exit, with the one file in it.
struct ScratchDir {
    std::string path;
    int fd = -1;
    ScratchDir()
    {
        char name[] = "/tmp/kiln-fuzz-precompile-XXXXXX";
        if (!mkdtemp(name))
            std::abort();
        path = name;
        fd = open(name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
            std::abort();
    }
    ~ScratchDir()
    {
        unlinkat(fd, "precompile.list", 0);
        close(fd);
        rmdir(path.c_str());
    }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static ScratchDir dir;
    const int fd = openat(dir.fd, "precompile.list", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        std::abort();
    size_t written = 0;
    while (written < size) {
        const ssize_t n = write(fd, data + written, size - written);
        if (n <= 0)
            std::abort();
        written += static_cast<size_t>(n);
    }
    close(fd);
    kiln::cache::PrecompileList list;
    std::string why;
    list.load(dir.fd, "precompile.list", getuid(), why);

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
