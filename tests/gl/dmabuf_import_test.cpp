// dma-buf import on the EGL device display: a memfd stands in for a dma-buf (llvmpipe maps any mmap-able fd), so
// the import path and the validation in front of it are exercised without a GPU; a hardware driver that takes only
// real dma-bufs skips the in-place case with its reason (memfd_cases.hpp).
#include "renderer/formats.hpp"
#include "tests/gl/gl_fixture.hpp"
#include "tests/gl/memfd_cases.hpp"

#include <catch2/catch_test_macros.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

using namespace kiln::renderer;
using kiln::test::box_matrix;
using kiln::test::GlFixture;

namespace {

struct Memfd {
    int fd;
    size_t size;
    Memfd(size_t bytes) : fd(memfd_create("fake-dmabuf", MFD_CLOEXEC)), size(bytes)
    {
        REQUIRE(fd >= 0);
        REQUIRE(ftruncate(fd, static_cast<off_t>(bytes)) == 0);
    }
    ~Memfd() { close(fd); }
    void fill(uint32_t value)
    {
        void* map = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        REQUIRE(map != MAP_FAILED);
        std::fill_n(static_cast<uint32_t*>(map), size / 4, value);
        munmap(map, size);
    }
};

bool importable(const EglDisplay& display, uint32_t format)
{
    for (const auto& fm : display.dmabuf_formats())
        if (fm.fourcc == format && fm.modifier == modifier_invalid)
            return true;
    return false;
}

DmabufAttributes xrgb(int fd, int32_t w, int32_t h, uint32_t stride)
{
    DmabufAttributes a;
    a.width = w;
    a.height = h;
    a.fourcc = fourcc::xrgb8888;
    a.modifier = modifier_invalid;
    a.plane_count = 1;
    a.planes[0] = {fd, 0, stride};
    return a;
}

}  // namespace

TEST_CASE("a memfd-backed XRGB8888 dma-buf is sampled in place", "[gl][dmabuf]")
{
    GlFixture gl;
    if (!gl.display->can_import_dmabuf())
        SKIP("the " << gl.display->kind_name() << " EGL display imports no dma-buf");
    Memfd memory(16 * 16 * 4);
    memory.fill(0xff3366cc);
    std::string error;
    const bool offered = importable(*gl.display, fourcc::xrgb8888);
    auto texture = offered ? gl.renderer->import_dmabuf(xrgb(memory.fd, 16, 16, 64), error) : nullptr;
    kiln::test::require_memfd_import(gl, "XRGB8888", offered, texture != nullptr, error);
    REQUIRE(texture);
    CHECK(texture->from_dmabuf());
    CHECK(gl.renderer->stats().dmabuf_imports == 1);
    const uint64_t uploads = gl.renderer->stats().shm_upload_bytes;

    auto target = gl.make_target(16, 16);
    gl.renderer->begin(*target.target);
    gl.renderer->draw_texture(*texture, {0, 0, 16, 16}, box_matrix(0, 0, 16, 16), 1.0f);
    gl.renderer->end();
    CHECK(target.at(5, 5) == 0x3366cc);
    CHECK(gl.renderer->stats().shm_upload_bytes == uploads);  // nothing was copied

    // The client writes new pixels into the same buffer: the texture shows them with no re-import.
    memory.fill(0xffcc3333);
    gl.renderer->begin(*target.target);
    gl.renderer->draw_texture(*texture, {0, 0, 16, 16}, box_matrix(0, 0, 16, 16), 1.0f);
    gl.renderer->end();
    CHECK(target.at(5, 5) == 0xcc3333);
    CHECK(gl.renderer->stats().dmabuf_imports == 1);
}

TEST_CASE("bad dma-buf descriptions are refused with a reason and never reach EGL", "[gl][dmabuf]")
{
    GlFixture gl;
    if (!gl.display->can_import_dmabuf() || !importable(*gl.display, fourcc::xrgb8888))
        SKIP("the " << gl.display->kind_name() << " EGL display imports no dma-buf");
    Memfd small(16 * 4 * 8);  // half of what 16x16 needs
    const int zero = open("/dev/zero", O_RDWR | O_CLOEXEC);
    int pair[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0);
    const std::vector<std::pair<const char*, DmabufAttributes>> cases{
        {"undersized memfd", xrgb(small.fd, 16, 16, 64)},
        {"/dev/zero", xrgb(zero, 16, 16, 64)},
        {"socket", xrgb(pair[0], 16, 16, 64)},
        {"overflowing stride", xrgb(small.fd, 16, 16384, 0xfffffffcu)},
        {"zero size", xrgb(small.fd, 0, 0, 64)},
    };
    for (const auto& [name, attributes] : cases) {
        INFO(name);
        std::string error;
        DmabufCheck check;
        auto texture = gl.renderer->import_dmabuf(attributes, error, &check);
        CHECK_FALSE(texture);
        CHECK_FALSE(check.ok());
        CHECK_FALSE(error.empty());
    }
    CHECK(gl.renderer->stats().dmabuf_rejected == cases.size());
    CHECK(gl.renderer->stats().dmabuf_imports == 0);
    close(zero);
    close(pair[0]);
    close(pair[1]);
}

