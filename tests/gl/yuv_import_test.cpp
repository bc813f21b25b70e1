// YUV dma-bufs (NV12, NV16, YUV420, YUV422) drawn as RGB: colour bars with known Y'CbCr codes in each encoding, odd
// sizes, and planes out of bounds. Codes come from the standards' forward equations and published bar tables here,
// never from renderer/yuv (which inverts them).
#include "renderer/formats.hpp"
#include "renderer/yuv.hpp"
#include "tests/gl/gl_fixture.hpp"
#include "tests/gl/memfd_cases.hpp"

#include <catch2/catch_test_macros.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

using namespace kiln::renderer;
using kiln::test::box_matrix;
using kiln::test::GlFixture;
using kiln::test::MemfdImportVerdict;

namespace {

struct Code {
    int y, cb, cr;
};

// Each YUV format as the test knows it: how chroma is subsampled and whether Cb,Cr come in pairs.
struct TestFormat {
    uint32_t fourcc;
    const char* name;
    int v_sub;  // every format here halves chroma horizontally
    bool interleaved;
};

const TestFormat formats[] = {
    {fourcc::nv12, "NV12", 2, true},
    {fourcc::nv16, "NV16", 1, true},
    {fourcc::yuv420, "YUV420", 2, false},
    {fourcc::yuv422, "YUV422", 1, false},
};

// Luma weights of red and blue: BT.601-7 section 2.5.1, BT.709-6 item 3.2, BT.2020-2 table 4 (non-constant
// luminance).
struct Standard {
    const char* name;
    YuvColorSpace space;
    double kr, kb;
};

const Standard standards[] = {{"BT.601", YuvColorSpace::bt601, 0.299, 0.114},
                              {"BT.709", YuvColorSpace::bt709, 0.2126, 0.0722},
                              {"BT.2020", YuvColorSpace::bt2020, 0.2627, 0.0593}};

struct Level {
    double r, g, b;  // 0..1
    uint32_t rgb() const
    {
        auto q = [](double v) { return static_cast<uint32_t>(std::lround(v * 255.0)); };
        return q(r) << 16 | q(g) << 8 | q(b);
    }
};

// 75% colour bars, then black and 100% white (the ends of each range).
const std::vector<Level> bars{{.75, .75, .75}, {.75, .75, 0}, {0, .75, .75}, {0, .75, 0}, {.75, 0, .75},
                              {.75, 0, 0},     {0, 0, .75},   {0, 0, 0},     {1, 1, 1}};

// Forward transform: E'Y = Kr R + Kg G + Kb B, E'Cb = (B - Y) / (2 (1 - Kb)), E'Cr = (R - Y) / (2 (1 - Kr)), then
// 8-bit codes: limited 16 + 219 Y, 128 + 224 C (BT.601 2.5.3); full 255 Y, 128 + 255 C (clamped, as JPEG does).
Code encode(const Level& l, const Standard& s, YuvRange range)
{
    const double y = s.kr * l.r + (1 - s.kr - s.kb) * l.g + s.kb * l.b;
    const double cb = (l.b - y) / (2 * (1 - s.kb));
    const double cr = (l.r - y) / (2 * (1 - s.kr));
    auto q = [](double v) { return static_cast<int>(std::clamp(std::lround(v), 0L, 255L)); };
    if (range == YuvRange::limited)
        return {q(16 + 219 * y), q(128 + 224 * cb), q(128 + 224 * cr)};
    return {q(255 * y), q(128 + 255 * cb), q(128 + 255 * cr)};
}

// Published 8-bit codes of the 75% bars (white, yellow, cyan, green, magenta, red, blue), limited range.
const Code bt601_bars[] = {{180, 128, 128}, {162, 44, 142}, {131, 156, 44}, {112, 72, 58},
                           {84, 184, 198},  {65, 100, 212}, {35, 212, 114}};
const Code bt709_bars[] = {{180, 128, 128}, {168, 44, 136}, {145, 147, 44}, {133, 63, 52},
                           {63, 193, 204},  {51, 109, 212}, {28, 212, 120}};

struct Memfd {
    int fd;
    Memfd(size_t bytes) : fd(memfd_create("fake-yuv-dmabuf", MFD_CLOEXEC))
    {
        REQUIRE(fd >= 0);
        REQUIRE(ftruncate(fd, static_cast<off_t>(bytes)) == 0);
    }
    ~Memfd() { close(fd); }
    Memfd(const Memfd&) = delete;
    Memfd& operator=(const Memfd&) = delete;
};

// A YUV picture written into memfds the way a producer lays it out: strides padded, planes at odd offsets,
// the last plane ending exactly where its fd ends (less `shrink` bytes, to make it one byte short).
struct FakeYuv {
    std::vector<std::unique_ptr<Memfd>> memory;
    DmabufAttributes attributes;

    FakeYuv(const TestFormat& f, int32_t w, int32_t h, const std::function<Code(int, int)>& picture,
            bool separate_fds, size_t shrink = 0)
    {
        const int cw = (w + 1) / 2;
        const int ch = (h + f.v_sub - 1) / f.v_sub;
        const int planes = f.interleaved ? 2 : 3;
        const uint32_t strides[3] = {static_cast<uint32_t>(w + 3),
                                     static_cast<uint32_t>(cw * (f.interleaved ? 2 : 1) + 5),
                                     static_cast<uint32_t>(cw + 5)};
        const int rows[3] = {h, ch, ch};
        std::vector<std::vector<uint8_t>> bytes(static_cast<size_t>(planes));
        for (int p = 0; p < planes; ++p)
            bytes[p].assign(static_cast<size_t>(strides[p]) * rows[p], 0);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                bytes[0][y * strides[0] + x] = static_cast<uint8_t>(picture(x, y).y);
        for (int cy = 0; cy < ch; ++cy)
            for (int cx = 0; cx < cw; ++cx) {
                const Code c = picture(cx * 2, cy * f.v_sub);  // chroma blocks never straddle the test's regions
                if (f.interleaved) {
                    bytes[1][cy * strides[1] + 2 * cx] = static_cast<uint8_t>(c.cb);
                    bytes[1][cy * strides[1] + 2 * cx + 1] = static_cast<uint8_t>(c.cr);
                } else {
                    bytes[1][cy * strides[1] + cx] = static_cast<uint8_t>(c.cb);
                    bytes[2][cy * strides[2] + cx] = static_cast<uint8_t>(c.cr);
                }
            }
        attributes.width = w;
        attributes.height = h;
        attributes.fourcc = f.fourcc;
        attributes.modifier = modifier_invalid;
        attributes.plane_count = static_cast<uint32_t>(planes);
        uint32_t offset = 48;
        std::vector<uint32_t> offsets;
        for (int p = 0; p < planes; ++p) {
            offsets.push_back(separate_fds ? 32 : offset);
            offset += static_cast<uint32_t>(bytes[p].size()) + 16;
        }
        for (int p = 0; p < planes; ++p) {
            if (separate_fds || p == 0) {
                const size_t end = separate_fds ? 32 + bytes[p].size() : offsets.back() + bytes[planes - 1].size();
                memory.push_back(std::make_unique<Memfd>(end));
            }
            const int fd = memory.back()->fd;
            REQUIRE(pwrite(fd, bytes[p].data(), bytes[p].size(), offsets[p]) == static_cast<ssize_t>(bytes[p].size()));
            attributes.planes[p] = {fd, offsets[p], strides[p]};
        }
        if (shrink > 0) {
            const int fd = memory.back()->fd;
            const off_t size = lseek(fd, 0, SEEK_END);
            REQUIRE(ftruncate(fd, size - static_cast<off_t>(shrink)) == 0);
        }
    }
};

const FormatModifier* offered(const EglDisplay& display, uint32_t code)
{
    for (const auto& fm : display.dmabuf_formats())
        if (fm.fourcc == code && fm.modifier == modifier_invalid)
            return &fm;
    return nullptr;
}

int channel_error(uint32_t got, uint32_t want)
{
    int worst = 0;
    for (int shift : {0, 8, 16})
        worst = std::max(worst, std::abs(static_cast<int>((got >> shift) & 0xff) - static_cast<int>((want >> shift) & 0xff)));
    return worst;
}

}  // namespace

TEST_CASE("the test's Y'CbCr codes match the published 75% colour bars", "[yuv]")
{
    for (size_t i = 0; i < std::size(bt601_bars); ++i) {
        INFO("bar " << i);
        const Code a = encode(bars[i], standards[0], YuvRange::limited);
        const Code b = encode(bars[i], standards[1], YuvRange::limited);
        CHECK(std::abs(a.y - bt601_bars[i].y) + std::abs(a.cb - bt601_bars[i].cb) + std::abs(a.cr - bt601_bars[i].cr) == 0);
        CHECK(std::abs(b.y - bt709_bars[i].y) + std::abs(b.cb - bt709_bars[i].cb) + std::abs(b.cr - bt709_bars[i].cr) == 0);
    }
}

TEST_CASE("odd luma sizes round chroma planes up", "[yuv]")
{
    const auto nv12 = yuv_layout(fourcc::nv12, 55, 23);
    REQUIRE(nv12);
    CHECK(nv12->plane_count == 2);
    CHECK((nv12->planes[0].width == 55 && nv12->planes[0].height == 23 && nv12->planes[0].fourcc == fourcc::r8));
    CHECK((nv12->planes[1].width == 28 && nv12->planes[1].height == 12 && nv12->planes[1].fourcc == fourcc::gr88));
    // 55 luma columns of 56 the chroma plane covers: the shader maps 0..1 of the picture to 0..55/56 of chroma.
    CHECK(std::abs(nv12->chroma_scale_x - 55.0f / 56.0f) < 1e-6f);
    CHECK(std::abs(nv12->chroma_scale_y - 23.0f / 24.0f) < 1e-6f);
    const auto yuv422 = yuv_layout(fourcc::yuv422, 7, 5);
    REQUIRE(yuv422);
    CHECK(yuv422->plane_count == 3);
    CHECK((yuv422->planes[2].width == 4 && yuv422->planes[2].height == 5 && yuv422->planes[2].fourcc == fourcc::r8));
    CHECK(yuv422->chroma_scale_y == 1.0f);
    CHECK_FALSE(yuv_layout(fourcc::xrgb8888, 8, 8));
}

TEST_CASE("NV12, NV16, YUV420 and YUV422 are offered as the driver imports them; llvmpipe's through planes",
          "[gl][yuv]")
{
    GlFixture gl;
    if (!gl.display->can_import_dmabuf())
        SKIP("the " << gl.display->kind_name() << " EGL display imports no dma-buf");
    // What the driver itself lists (kiln offers a listed format whole, or through its planes where a software driver
    // lists it yet refuses it whole; a hardware driver is taken at its word).
    std::vector<EGLint> listed;
    if (const auto query = gl.display->procs().query_dmabuf_formats) {
        EGLint count = 0;
        query(gl.display->handle(), 0, nullptr, &count);
        listed.resize(static_cast<size_t>(count));
        query(gl.display->handle(), count, listed.data(), &count);
        listed.resize(static_cast<size_t>(count));
    }
    for (const auto& f : formats) {
        INFO(f.name << " on " << kiln::test::gl_renderer_name());
        const bool driver_lists = std::find(listed.begin(), listed.end(), static_cast<EGLint>(f.fourcc)) != listed.end();
        const FormatModifier* fm = offered(*gl.display, f.fourcc);
        if (gl.display->is_software()) {
            // Mesa's software driver lists all four and kiln reads each through its planes (it refuses them whole).
            CHECK(driver_lists);
            REQUIRE(fm);
            CHECK(fm->through_planes);
        } else {
            CHECK((fm != nullptr) == driver_lists);
        }
        if (fm)
            CHECK_FALSE((fm->external_only && fm->through_planes));
    }
}

TEST_CASE("YUV colour bars come out as RGB in BT.601 and BT.709, limited and full range", "[gl][yuv]")
{
    GlFixture gl;
    if (!gl.display->can_import_dmabuf())
        SKIP("the " << gl.display->kind_name() << " EGL display imports no dma-buf");
    constexpr int32_t bar_width = 8;
    const int32_t w = bar_width * static_cast<int32_t>(bars.size());
    const int32_t h = 8;
    auto target = gl.make_target(w, h);
    int worst = 0;
    int pixels = 0;
    int formats_run = 0;
    std::string skipped;
    for (const auto& f : formats) {
        bool format_runs = true;
        for (const auto& standard : standards)
            for (const YuvRange range : {YuvRange::limited, YuvRange::full}) {
                if (!format_runs)
                    continue;
                const YuvEncoding encoding{standard.space, range};
                INFO(f.name << " " << standard.name << (range == YuvRange::full ? " full" : " limited"));
                auto picture = [&](int x, int) { return encode(bars[static_cast<size_t>(x / bar_width)], standard, range); };
                FakeYuv buffer(f, w, h, picture, !f.interleaved);
                std::string error;
                const bool is_offered = offered(*gl.display, f.fourcc) != nullptr;
                auto texture =
                    is_offered ? gl.renderer->import_dmabuf(buffer.attributes, error, nullptr, encoding) : nullptr;
                const auto verdict = kiln::test::memfd_verdict(gl, f.name, is_offered, texture != nullptr, error);
                if (verdict.kind == MemfdImportVerdict::Kind::fail)
                    FAIL(verdict.reason);
                if (verdict.kind == MemfdImportVerdict::Kind::skip) {
                    skipped += verdict.reason + "; ";
                    format_runs = false;
                    continue;
                }
                REQUIRE(texture);
                CHECK(texture->yuv_encoding() == encoding);
                gl.renderer->begin(*target.target);
                gl.renderer->clear({1, 0, 1, 1});
                REQUIRE(gl.renderer->draw_texture(*texture, {0, 0, static_cast<double>(w), static_cast<double>(h)},
                                                  box_matrix(0, 0, static_cast<float>(w), static_cast<float>(h)), 1.0f));
                REQUIRE(gl.renderer->end());
                for (size_t i = 0; i < bars.size(); ++i)
                    for (int32_t y : {0, 3, h - 1}) {
                        const int32_t x = static_cast<int32_t>(i) * bar_width + bar_width / 2;
                        const int error_now = channel_error(target.at(x, y), bars[i].rgb());
                        INFO("bar " << i << " at " << x << "," << y << ": got " << std::hex << target.at(x, y)
                                    << " want " << bars[i].rgb());
                        CHECK(error_now <= 2);
                        worst = std::max(worst, error_now);
                        ++pixels;
                    }
            }
        formats_run += format_runs ? 1 : 0;
    }
    std::printf("yuv colour bars: %d pixels in %d formats, max channel error %d\n", pixels, formats_run, worst);
    if (formats_run == 0)
        SKIP(skipped);
    CHECK(pixels == formats_run * static_cast<int>(std::size(standards)) * 2 * static_cast<int>(bars.size()) * 3);
}

TEST_CASE("odd YUV sizes: chroma rounds up and the last row and column show their own colour", "[gl][yuv]")
{
    GlFixture gl;
    if (!gl.display->can_import_dmabuf())
        SKIP("the " << gl.display->kind_name() << " EGL display imports no dma-buf");
    // 8x8 blocks, each its own colour; the last block column is 7 pixels wide and the last block row 7 high, so
    // the last chroma column (row) covers one luma column (row).
    constexpr int32_t w = 55;
    constexpr int32_t h = 23;
    const Standard& standard = standards[0];
    auto level_at = [&](int x, int y) { return bars[static_cast<size_t>((x / 8 + 2 * (y / 8)) % bars.size())]; };
    auto picture = [&](int x, int y) { return encode(level_at(x, y), standard, YuvRange::limited); };
    auto target = gl.make_target(w, h);
    int worst = 0;
    int formats_run = 0;
    std::string skipped;
    for (const auto& f : formats) {
        INFO(f.name);
        FakeYuv buffer(f, w, h, picture, !f.interleaved);
        std::string error;
        const bool is_offered = offered(*gl.display, f.fourcc) != nullptr;
        auto texture = is_offered ? gl.renderer->import_dmabuf(buffer.attributes, error) : nullptr;
        const auto verdict = kiln::test::memfd_verdict(gl, f.name, is_offered, texture != nullptr, error);
        if (verdict.kind == MemfdImportVerdict::Kind::fail)
            FAIL(verdict.reason);
        if (verdict.kind == MemfdImportVerdict::Kind::skip) {
            skipped += verdict.reason + "; ";
            continue;
        }
        ++formats_run;
        REQUIRE(texture);
        gl.renderer->begin(*target.target);
        REQUIRE(gl.renderer->draw_texture(*texture, {0, 0, w, h}, box_matrix(0, 0, w, h), 1.0f));
        REQUIRE(gl.renderer->end());
        for (int32_t y : {4, 12, 19, h - 1})
            for (int32_t x : {4, 12, 28, 51, w - 1}) {
                INFO(x << "," << y << ": got " << std::hex << target.at(x, y) << " want " << level_at(x, y).rgb());
                const int error_now = channel_error(target.at(x, y), level_at(x, y).rgb());
                CHECK(error_now <= 2);
                worst = std::max(worst, error_now);
            }

        // One byte less than the rounded-up chroma needs is refused before EGL sees it.
        FakeYuv short_buffer(f, w, h, picture, !f.interleaved, 1);
        DmabufCheck check;
        const uint64_t imports = gl.renderer->stats().dmabuf_imports;
        CHECK_FALSE(gl.renderer->import_dmabuf(short_buffer.attributes, error, &check));
        CHECK(check.error == DmabufError::out_of_bounds);
        CHECK(gl.renderer->stats().dmabuf_imports == imports);
    }
    std::printf("yuv odd sizes: %d formats, max channel error %d\n", formats_run, worst);
    if (formats_run == 0)
        SKIP(skipped);
}

TEST_CASE("a YUV plane out of bounds is refused before EGL sees it", "[gl][yuv]")
{
    GlFixture gl;
    if (!gl.display->can_import_dmabuf() || !offered(*gl.display, fourcc::yuv420))
        SKIP("the " << gl.display->kind_name() << " EGL display offers no YUV420");
    auto grey = [](int, int) { return Code{126, 128, 128}; };
    FakeYuv buffer(formats[2], 16, 16, grey, false);
    const uint64_t rejected = gl.renderer->stats().dmabuf_rejected;
    for (uint32_t plane = 0; plane < 3; ++plane) {
        INFO("plane " << plane);
        DmabufAttributes bad = buffer.attributes;
        bad.planes[plane].offset += 4096;  // past the end of the shared memfd
        std::string error;
        DmabufCheck check;
        CHECK_FALSE(gl.renderer->import_dmabuf(bad, error, &check));
        CHECK(check.error == DmabufError::out_of_bounds);
        CHECK(error.find("plane " + std::to_string(plane)) != std::string::npos);
    }
    DmabufAttributes missing = buffer.attributes;
    missing.plane_count = 2;
    std::string error;
    DmabufCheck check;
    CHECK_FALSE(gl.renderer->import_dmabuf(missing, error, &check));
    CHECK(check.error == DmabufError::incomplete);
    CHECK(gl.renderer->stats().dmabuf_rejected == rejected + 4);
    CHECK(gl.renderer->stats().dmabuf_imports == 0);
}

TEST_CASE("a texture sampled through planes changes encoding without a re-import", "[gl][yuv]")
{
    GlFixture gl;
    const FormatModifier* fm = gl.display->can_import_dmabuf() ? offered(*gl.display, fourcc::nv12) : nullptr;
    if (!fm || !fm->through_planes)
        SKIP("NV12 is not sampled through planes on the " << gl.display->kind_name() << " EGL display");
    // One buffer holding BT.709 full-range codes of 75% red, read first as the default BT.601 limited.
    const Code red709 = encode(bars[5], standards[1], YuvRange::full);
    FakeYuv buffer(formats[0], 8, 8, [&](int, int) { return red709; }, false);
    std::string error;
    auto texture = gl.renderer->import_dmabuf(buffer.attributes, error);
    REQUIRE(texture);
    CHECK(texture->yuv_encoding() == YuvEncoding{});
    auto target = gl.make_target(8, 8);
    auto draw = [&] {
        gl.renderer->begin(*target.target);
        gl.renderer->draw_texture(*texture, {0, 0, 8, 8}, box_matrix(0, 0, 8, 8), 1.0f);
        gl.renderer->end();
        return target.at(4, 4);
    };
    CHECK(channel_error(draw(), bars[5].rgb()) > 8);  // wrong encoding, visibly wrong colour
    CHECK(texture->set_yuv_encoding({YuvColorSpace::bt709, YuvRange::full}));
    CHECK(channel_error(draw(), bars[5].rgb()) <= 2);
    CHECK(gl.renderer->stats().dmabuf_imports == 1);
}
