// shm textures with a CPU copy (for CPU composition): the copy follows every upload, and GL gets the same pixels
// only when a draw first samples the texture.
#include "renderer/formats.hpp"
#include "tests/gl/gl_fixture.hpp"

#include <catch2/catch_test_macros.hpp>

#include <cstring>

using namespace kiln::renderer;
using kiln::test::box_matrix;
using kiln::test::GlFixture;

TEST_CASE("a CPU-copied shm texture keeps its pixels in memory until GL samples it", "[gl]")
{
    GlFixture gl;
    gl.renderer->set_shm_cpu_copies(true);
    // 5 wide, RGB565: rows of 10 bytes, padded to 12 in the copy (pixman needs 4-byte rows).
    std::vector<uint16_t> client(5 * 4 + 3, 0xf800);  // red, with a stride of 6 pixels below
    std::string error;
    auto texture = gl.renderer->create_shm_texture({fourcc::rgb565, 5, 3, 12, client.data(), client.size() * 2}, error);
    REQUIRE(texture);
    REQUIRE(texture->cpu_pixels());
    CHECK(texture->cpu_stride() == 12);
    uint16_t texel = 0;
    std::memcpy(&texel, texture->cpu_pixels() + 2 * 12 + 4 * 2, 2);
    CHECK(texel == 0xf800);

    // Damage: one blue texel at (1, 1); the copy follows, its neighbours do not change.
    client[1 * 6 + 1] = 0x001f;
    REQUIRE(texture->write_pixels(12, Box{1, 1, 1, 1}, client.data(), client.size() * 2));
    std::memcpy(&texel, texture->cpu_pixels() + 1 * 12 + 1 * 2, 2);
    CHECK(texel == 0x001f);
    std::memcpy(&texel, texture->cpu_pixels() + 1 * 12 + 2 * 2, 2);
    CHECK(texel == 0xf800);

    // A rectangle reaching past the client's memory is refused, and the copy keeps its pixels.
    CHECK_FALSE(texture->write_pixels(12, Box{0, 0, 5, 3}, client.data(), 20));

    // The first GL draw uploads the copy as it is now.
    auto target = gl.make_target(5, 3);
    gl.renderer->begin(*target.target);
    REQUIRE(gl.renderer->draw_texture(*texture, {0, 0, 5, 3}, box_matrix(0, 0, 5, 3), 1.0f, Filter::nearest));
    REQUIRE(gl.renderer->end());
    CHECK(target.at(1, 1) == 0x0000ff);
    CHECK(target.at(0, 0) == 0xff0000);
    CHECK(target.at(4, 2) == 0xff0000);

    // Once GL has it, later damage reaches both.
    client[2 * 6 + 3] = 0x07e0;
    REQUIRE(texture->write_pixels(12, Box{3, 2, 1, 1}, client.data(), client.size() * 2));
    gl.renderer->begin(*target.target);
    REQUIRE(gl.renderer->draw_texture(*texture, {0, 0, 5, 3}, box_matrix(0, 0, 5, 3), 1.0f, Filter::nearest));
    REQUIRE(gl.renderer->end());
    CHECK(target.at(3, 2) == 0x00ff00);
    std::memcpy(&texel, texture->cpu_pixels() + 2 * 12 + 3 * 2, 2);
    CHECK(texel == 0x07e0);
}

TEST_CASE("without CPU copies an shm texture has none", "[gl]")
{
    GlFixture gl;
    std::vector<uint32_t> client(4, 0xff00ff00);
    std::string error;
    auto texture = gl.renderer->create_shm_texture({fourcc::xrgb8888, 2, 2, 8, client.data()}, error);
    REQUIRE(texture);
    CHECK(texture->cpu_pixels() == nullptr);
}
