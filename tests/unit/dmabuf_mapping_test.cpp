// DmabufMapping over memfds (and a udmabuf where /dev/udmabuf exists): the plane read where it lies, at its offset
// and stride; memory that could shrink, a plane past the end and unmappable fds refused.
#include "compositor/bridge/dmabuf_mapping.hpp"

#include <catch2/catch_test_macros.hpp>

#include <fcntl.h>
#include <linux/udmabuf.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <vector>

using namespace kiln::compositor;

namespace {

constexpr size_t page = 4096;

// A memfd of `size` bytes, byte i holding i % 251, sealed against shrinking when `seal`.
int patterned_memfd(size_t size, bool seal)
{
    const int fd = memfd_create("dmabuf-mapping-test", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    REQUIRE(fd >= 0);
    REQUIRE(ftruncate(fd, static_cast<off_t>(size)) == 0);
    std::vector<uint8_t> bytes(size);
    for (size_t i = 0; i < size; ++i)
        bytes[i] = static_cast<uint8_t>(i % 251);
    REQUIRE(pwrite(fd, bytes.data(), size, 0) == static_cast<ssize_t>(size));
    if (seal)
        REQUIRE(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) == 0);
    return fd;
}

// The plane's rows as read through the mapping.
std::vector<uint8_t> read_rows(const DmabufMapping& mapping, uint32_t row_bytes, uint32_t rows)
{
    std::vector<uint8_t> out;
    REQUIRE(mapping.read([&](const void* data, uint32_t stride) {
        for (uint32_t y = 0; y < rows; ++y) {
            const auto* row = static_cast<const uint8_t*>(data) + static_cast<size_t>(y) * stride;
            out.insert(out.end(), row, row + row_bytes);
        }
    }));
    return out;
}

std::vector<uint8_t> expected_rows(uint32_t offset, uint32_t stride, uint32_t row_bytes, uint32_t rows)
{
    std::vector<uint8_t> out;
    for (uint32_t y = 0; y < rows; ++y)
        for (uint32_t x = 0; x < row_bytes; ++x)
            out.push_back(static_cast<uint8_t>((offset + static_cast<size_t>(y) * stride + x) % 251));
    return out;
}

}  // namespace

TEST_CASE("a sealed memfd's plane is read at its offset and stride, and as it is now")
{
    const int fd = patterned_memfd(2 * page, true);
    std::string error;
    // An offset that is not page-aligned, rows shorter than the stride.
    auto mapping = DmabufMapping::map(fd, 100, 64, 48, 20, error);
    REQUIRE(mapping);
    CHECK_FALSE(mapping->synced());  // a memfd is no dma-buf: nothing to bracket
    CHECK(read_rows(*mapping, 48, 20) == expected_rows(100, 64, 48, 20));
    // The client draws again: the next read sees it (a mapping, not a copy).
    const uint8_t changed = 0xee;
    REQUIRE(pwrite(fd, &changed, 1, 100 + 64 * 3 + 5) == 1);
    CHECK(read_rows(*mapping, 48, 20)[48 * 3 + 5] == 0xee);
    // The mapping keeps its own fd: the client's may be closed first.
    close(fd);
    CHECK(read_rows(*mapping, 48, 20)[0] == 100 % 251);
}

TEST_CASE("memory that may shrink under the mapping is refused")
{
    const int fd = patterned_memfd(page, false);
    std::string error;
    CHECK_FALSE(DmabufMapping::map(fd, 0, 64, 64, 4, error));
    CHECK(error.find("F_SEAL_SHRINK") != std::string::npos);
    close(fd);
}

TEST_CASE("a plane reaching past the buffer, or rows longer than the stride, is refused")
{
    const int fd = patterned_memfd(page, true);
    std::string error;
    CHECK_FALSE(DmabufMapping::map(fd, 0, 64, 64, 65, error));  // 65 rows of 64 bytes: 4160 > 4096
    CHECK(error.find("ends at byte") != std::string::npos);
    CHECK(DmabufMapping::map(fd, 0, 64, 64, 64, error));  // exactly the buffer
    CHECK_FALSE(DmabufMapping::map(fd, 4095, 64, 4, 1, error));  // the last pixel's last 3 bytes past the end
    CHECK_FALSE(DmabufMapping::map(fd, 0, 32, 64, 2, error));
    close(fd);
}

TEST_CASE("an fd that is not memory is refused")
{
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    std::string error;
    CHECK_FALSE(DmabufMapping::map(fds[0], 0, 64, 64, 1, error));
    CHECK_FALSE(error.empty());
    close(fds[0]);
    close(fds[1]);
}

TEST_CASE("a udmabuf's reads are bracketed by DMA_BUF_IOCTL_SYNC")
{
    const int device = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
    if (device < 0)
        SKIP("no /dev/udmabuf here");
    const int memfd = patterned_memfd(page, true);
    udmabuf_create create{};
    create.memfd = static_cast<uint32_t>(memfd);
    create.flags = UDMABUF_FLAGS_CLOEXEC;
    create.size = page;
    const int fd = ioctl(device, UDMABUF_CREATE, &create);
    REQUIRE(fd >= 0);
    std::string error;
    auto mapping = DmabufMapping::map(fd, 0, 256, 256, 16, error);
    REQUIRE(mapping);
    CHECK(mapping->synced());
    const uint64_t before = mapping->syncs();  // the probe that found a dma-buf
    CHECK(read_rows(*mapping, 256, 16) == expected_rows(0, 256, 256, 16));
    CHECK(mapping->syncs() == before + 2);  // start and end: no write fence pending
    CHECK(mapping->unbracketed_reads() == 0);
    close(fd);
    close(memfd);
    close(device);
}
