// shm uploads stay inside the client's memory: a stride shorter than a row, or rows past the span, are refused.
#include "tests/gl/gl_fixture.hpp"

#include <catch2/catch_test_macros.hpp>

#include <vector>

using namespace kiln::renderer;
using kiln::test::GlFixture;

TEST_CASE("a stride shorter than a row of pixels is refused before any byte is read", "[gl]")
{
    GlFixture gl;
    // 256 ARGB pixels are 1024 bytes; the client says 256 (libwayland only checks stride >= width).
    std::vector<uint8_t> memory(256 * 256);
    std::string error;
    auto texture = gl.renderer->create_shm_texture({fourcc::argb8888, 256, 256, 256, memory.data()}, error);
    CHECK_FALSE(texture);
    CHECK(error.find("stride") != std::string::npos);
    CHECK(gl.renderer->stats().shm_upload_bytes == 0);
}

TEST_CASE("rows that would end past the span are refused; rows that end at it are uploaded", "[gl]")
{
    GlFixture gl;
    const uint32_t stride = 64 * 4 + 16;  // padded rows; the last row needs only 64 * 4 bytes
    const size_t exact = size_t{stride} * 31 + 64 * 4;
    std::vector<uint8_t> memory(exact, 0x80);
    std::string error;
    CHECK_FALSE(gl.renderer->create_shm_texture({fourcc::xrgb8888, 64, 32, stride, memory.data(), exact - 1}, error));
    CHECK(gl.renderer->stats().shm_upload_bytes == 0);
    auto texture = gl.renderer->create_shm_texture({fourcc::xrgb8888, 64, 32, stride, memory.data(), exact}, error);
    INFO(error);
    REQUIRE(texture);
    CHECK(gl.renderer->stats().shm_upload_bytes == 64 * 32 * 4);
}

TEST_CASE("damage uploads refuse a stride shorter than the texture's rows and rows past the span", "[gl]")
{
    GlFixture gl;
    std::vector<uint32_t> memory(16 * 16, 0xff102030);
    std::string error;
    auto texture = gl.renderer->create_shm_texture({fourcc::xrgb8888, 16, 16, 16 * 4, memory.data()}, error);
    REQUIRE(texture);
    const uint64_t uploaded = gl.renderer->stats().shm_upload_bytes;
    // A 4-pixel region fits in 16 bytes, but the buffer's rows are 16 pixels: a 16-byte stride cannot be right.
    CHECK_FALSE(texture->write_pixels(16, {0, 0, 4, 4}, memory.data()));
    // The last damaged row (row 15) ends at byte 16 * 64; a span one byte short must refuse it.
    CHECK_FALSE(texture->write_pixels(16 * 4, {0, 12, 4, 4}, memory.data(), 16 * 16 * 4 - 1));
    CHECK(gl.renderer->stats().shm_upload_bytes == uploaded);
    CHECK(texture->write_pixels(16 * 4, {0, 12, 4, 4}, memory.data(), 16 * 16 * 4));
    CHECK(gl.renderer->stats().shm_upload_bytes - uploaded == 4 * 4 * 4);
}
