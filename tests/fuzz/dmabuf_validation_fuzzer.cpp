// libFuzzer target for the dma-buf description validator: fuzzed attributes over memfds of fuzzed size, pipes,
// /dev/zero, directories and closed fds; whatever it accepts must be readable to its last sampled byte.
#include "renderer/dmabuf_validation.hpp"
#include "renderer/formats.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace {

using namespace kiln::renderer;

// Hands out the fuzzed bytes as integers; zeros once they run out.
class Bytes {
public:
    Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
    template <typename T>
    T take()
    {
        T v{};
        const size_t n = std::min(sizeof v, size_ - pos_);
        std::memcpy(&v, data_ + pos_, n);
        pos_ += n;
        return v;
    }

private:
    const uint8_t* data_;
    size_t size_;
    size_t pos_ = 0;
};

constexpr std::array<uint32_t, 7> fourccs{fourcc::argb8888, fourcc::xrgb8888, fourcc::abgr8888, fourcc::xbgr8888,
                                          fourcc::rgb565,   fourcc::nv12,     0x34325258 /* unknown */};
constexpr uint64_t tiled_modifier = 0x0100000000000001ULL;  // I915_FORMAT_MOD_X_TILED
constexpr std::array<uint64_t, 3> modifiers{modifier_linear, modifier_invalid, tiled_modifier};

// The fds of one run, closed when it ends.
struct Fds {
    std::vector<int> open;
    ~Fds()
    {
        for (int fd : open)
            close(fd);
    }
    int keep(int fd)
    {
        if (fd >= 0)
            open.push_back(fd);
        return fd;
    }
};

int make_fd(Bytes& in, Fds& fds)
{
    const uint8_t kind = in.take<uint8_t>();
    switch (kind % 8) {
    case 0:
        return -1;
    case 1: {
        int p[2];
        if (pipe2(p, O_CLOEXEC) != 0)
            std::abort();
        fds.keep(p[1]);
        return fds.keep(p[0]);
    }
    case 2: return fds.keep(open("/dev/zero", O_RDONLY | O_CLOEXEC));
    case 3: return fds.keep(open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    case 4: {
        const int fd = memfd_create("closed", MFD_CLOEXEC);
        close(fd);
        return fd;  // a number that no longer names a file
    }
    default: {
        // Most runs: a memfd with a fuzzed size (sparse, so large sizes cost nothing).
        const int fd = fds.keep(memfd_create("plane", MFD_CLOEXEC));
        const uint32_t size = in.take<uint32_t>() % (1u << 30);
        if (fd < 0 || ftruncate(fd, size) != 0)
            std::abort();
        return fd;
    }
    }
}

[[noreturn]] void fail(const char* what, uint32_t plane)
{
    std::fprintf(stderr, "dmabuf_validation_fuzzer: plane %u: %s\n", plane, what);
    std::abort();
}

// The last byte a sampler reads for this plane must lie inside the fd: reading it through a mapping would SIGBUS
// otherwise, so it is read for real.
void check_accepted(const DmabufAttributes& a)
{
    const auto info = format_info(a.fourcc);
    if (!info || a.plane_count != info->plane_count)
        fail("accepted a format or plane count that does not match", 0);
    const bool linear = a.modifier == modifier_linear || a.modifier == modifier_invalid;
    for (uint32_t i = 0; i < a.plane_count; ++i) {
        const DmabufPlane& p = a.planes[i];
        const PlaneLayout& l = info->planes[i];
        struct stat st {};
        if (fstat(p.fd, &st) != 0 || !S_ISREG(st.st_mode))
            fail("accepted an fd that is not a regular file", i);
        const uint64_t rows = (static_cast<uint64_t>(a.height) + l.v_subsample - 1) / l.v_subsample;
        const uint64_t row_bytes = (static_cast<uint64_t>(a.width) + l.h_subsample - 1) / l.h_subsample *
                                   l.bytes_per_pixel;
        const uint64_t last = linear ? p.offset + p.stride * (rows - 1) + row_bytes
                                     : p.offset + static_cast<uint64_t>(p.stride) * rows;
        if (last == 0 || last > static_cast<uint64_t>(st.st_size))
            fail("accepted a layout that reads past the end of the fd", i);
        void* map = mmap(nullptr, static_cast<size_t>(last), PROT_READ, MAP_SHARED, p.fd, 0);
        if (map == MAP_FAILED)
            fail("cannot map the accepted range", i);
        volatile uint8_t sink = static_cast<const uint8_t*>(map)[last - 1];
        (void)sink;
        munmap(map, static_cast<size_t>(last));
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    Bytes in(data, size);
    Fds fds;
    DmabufAttributes a;
    const uint8_t choice = in.take<uint8_t>();
    a.width = in.take<int32_t>();
    a.height = in.take<int32_t>();
    // Mostly known formats and modifiers, sometimes raw values.
    a.fourcc = (choice & 0x80) ? in.take<uint32_t>() : fourccs[(choice & 0x0f) % fourccs.size()];
    a.modifier = (choice & 0x40) ? in.take<uint64_t>() : modifiers[((choice >> 4) & 3) % modifiers.size()];
    a.plane_count = in.take<uint8_t>() % (max_planes + 2);
    for (auto& plane : a.planes) {
        plane.fd = make_fd(in, fds);
        plane.offset = in.take<uint32_t>();
        plane.stride = in.take<uint32_t>();
    }
    // The renderer advertises every known format with linear and implicit modifiers, and ARGB8888 tiled.
    static const std::vector<FormatModifier> supported = [] {
        std::vector<FormatModifier> list;
        for (uint32_t f : fourccs)
            for (uint64_t m : {modifier_linear, modifier_invalid})
                list.push_back({f, m, false});
        list.push_back({fourcc::argb8888, tiled_modifier, false});
        return list;
    }();
    const DmabufCheck check = validate_dmabuf(a, supported);
    if (check.ok() != check.reason.empty())
        fail("a refusal without a reason, or a reason without a refusal", 0);
    if (check.ok())
        check_accepted(a);
    return 0;
}
