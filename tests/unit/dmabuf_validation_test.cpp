// dma-buf descriptions are checked before EGL: bad fds, short fds, overflow, wrong formats and plane counts.
#include "renderer/dmabuf_validation.hpp"
#include "renderer/formats.hpp"

#include <catch2/catch_test_macros.hpp>

#include <array>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace kiln::renderer;

namespace {

struct Fd {
    int fd = -1;
    explicit Fd(int f) : fd(f) {}
    ~Fd()
    {
        if (fd >= 0)
            close(fd);
    }
};

int memfd_of_size(size_t size)
{
    int fd = memfd_create("dmabuf-test", MFD_CLOEXEC);
    REQUIRE(fd >= 0);
    REQUIRE(ftruncate(fd, static_cast<off_t>(size)) == 0);
    return fd;
}

const std::array<FormatModifier, 3> supported{{
    {fourcc::xrgb8888, modifier_invalid, false},
    {fourcc::xrgb8888, modifier_linear, false},
    {fourcc::nv12, modifier_linear, true},
}};

DmabufAttributes single_plane(int fd, int32_t w, int32_t h, uint32_t stride, uint32_t offset = 0)
{
    DmabufAttributes a;
    a.width = w;
    a.height = h;
    a.fourcc = fourcc::xrgb8888;
    a.modifier = modifier_linear;
    a.plane_count = 1;
    a.planes[0] = {fd, offset, stride};
    return a;
}

}  // namespace

TEST_CASE("a well-formed linear XRGB8888 buffer passes")
{
    Fd fd(memfd_of_size(64 * 4 * 32));
    CHECK(validate_dmabuf(single_plane(fd.fd, 64, 32, 256), supported).ok());
}

TEST_CASE("an fd smaller than offset + stride * height is out of bounds")
{
    Fd fd(memfd_of_size(64 * 4 * 32 - 1));
    auto check = validate_dmabuf(single_plane(fd.fd, 64, 32, 256), supported);
    CHECK(check.error == DmabufError::out_of_bounds);
    CHECK(check.reason.find("needs") != std::string::npos);
    Fd big(memfd_of_size(64 * 4 * 32));
    CHECK(validate_dmabuf(single_plane(big.fd, 64, 32, 256, 4), supported).error == DmabufError::out_of_bounds);
}

TEST_CASE("huge strides and offsets do not overflow into a pass")
{
    Fd fd(memfd_of_size(4096));
    CHECK(validate_dmabuf(single_plane(fd.fd, 16, 16384, 0xffffffffu), supported).error == DmabufError::out_of_bounds);
    CHECK(validate_dmabuf(single_plane(fd.fd, 16, 16, 64, 0xfffffff0u), supported).error == DmabufError::out_of_bounds);
}

TEST_CASE("a stride shorter than a row is refused")
{
    Fd fd(memfd_of_size(1 << 20));
    CHECK(validate_dmabuf(single_plane(fd.fd, 64, 32, 128), supported).error == DmabufError::out_of_bounds);
}

TEST_CASE("fds that are not buffers are refused: /dev/zero, sockets, pipes, closed fds")
{
    Fd zero(open("/dev/zero", O_RDWR | O_CLOEXEC));
    REQUIRE(zero.fd >= 0);
    CHECK(validate_dmabuf(single_plane(zero.fd, 16, 16, 64), supported).error == DmabufError::bad_fd);

    int pair[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0);
    Fd a(pair[0]), b(pair[1]);
    CHECK(validate_dmabuf(single_plane(a.fd, 16, 16, 64), supported).error == DmabufError::bad_fd);

    int pipes[2];
    REQUIRE(pipe(pipes) == 0);
    Fd r(pipes[0]), w(pipes[1]);
    CHECK(validate_dmabuf(single_plane(r.fd, 16, 16, 64), supported).error == DmabufError::bad_fd);

    CHECK(validate_dmabuf(single_plane(-1, 16, 16, 64), supported).error == DmabufError::bad_fd);
    CHECK(validate_dmabuf(single_plane(9999, 16, 16, 64), supported).error == DmabufError::bad_fd);
}

TEST_CASE("dimensions must be 1..16384")
{
    Fd fd(memfd_of_size(4096));
    CHECK(validate_dmabuf(single_plane(fd.fd, 0, 16, 64), supported).error == DmabufError::invalid_dimensions);
    CHECK(validate_dmabuf(single_plane(fd.fd, 16, -1, 64), supported).error == DmabufError::invalid_dimensions);
    CHECK(validate_dmabuf(single_plane(fd.fd, 16385, 1, 65540), supported).error == DmabufError::invalid_dimensions);
}

TEST_CASE("formats and modifiers must be advertised, and plane counts must match the format")
{
    Fd fd(memfd_of_size(1 << 16));
    auto a = single_plane(fd.fd, 16, 16, 64);
    a.fourcc = fourcc::argb8888;  // not in `supported`
    CHECK(validate_dmabuf(a, supported).error == DmabufError::invalid_format);
    a = single_plane(fd.fd, 16, 16, 64);
    a.modifier = 0x0100000000000001ULL;  // a tiled modifier nobody advertised
    CHECK(validate_dmabuf(a, supported).error == DmabufError::invalid_format);
    a = single_plane(fd.fd, 16, 16, 64);
    a.fourcc = 0x20202020;  // not a format kiln knows
    CHECK(validate_dmabuf(a, supported).error == DmabufError::invalid_format);

    DmabufAttributes nv12;
    nv12.width = 16;
    nv12.height = 16;
    nv12.fourcc = fourcc::nv12;
    nv12.modifier = modifier_linear;
    nv12.plane_count = 1;
    nv12.planes[0] = {fd.fd, 0, 16};
    CHECK(validate_dmabuf(nv12, supported).error == DmabufError::incomplete);
    nv12.plane_count = 2;
    nv12.planes[1] = {fd.fd, 256, 16};
    CHECK(validate_dmabuf(nv12, supported).ok());
    nv12.planes[1] = {fd.fd, (1 << 16) - 16, 16};  // the chroma plane runs past the end
    CHECK(validate_dmabuf(nv12, supported).error == DmabufError::out_of_bounds);
}
