// kiln-test-title-text: writes the title text kiln's decorations show (compositor/shell/title_text.cpp, the same
// Pango path) as a binary PPM on stdout, for the protocol tests to compare a screenshot with.
// Usage: kiln-test-title-text TITLE WIDTH HEIGHT BACKGROUND_RGB_HEX SCALE
#include "compositor/shell/title_text.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

int main(int argc, char** argv)
{
    if (argc != 6) {
        std::fprintf(stderr, "usage: %s TITLE WIDTH HEIGHT BACKGROUND_RGB_HEX SCALE\n", argv[0]);
        return 2;
    }
    const int width = std::atoi(argv[2]);
    const int height = std::atoi(argv[3]);
    const auto background = static_cast<uint32_t>(std::strtoul(argv[4], nullptr, 16));
    const float scale = std::strtof(argv[5], nullptr);
    wlr_buffer* buffer = kiln::compositor::render_title(argv[1], width, height, background, nullptr, scale);
    if (!buffer) {
        std::fprintf(stderr, "kiln-test-title-text: no title text (built without Pango, or an empty size)\n");
        return 77;
    }
    void* data = nullptr;
    uint32_t format = 0;
    size_t stride = 0;
    if (!wlr_buffer_begin_data_ptr_access(buffer, WLR_BUFFER_DATA_PTR_ACCESS_READ, &data, &format, &stride)) {
        std::fprintf(stderr, "kiln-test-title-text: cannot read the buffer\n");
        wlr_buffer_drop(buffer);
        return 1;
    }
    std::printf("P6\n%d %d\n255\n", buffer->width, buffer->height);
    for (int y = 0; y < buffer->height; ++y) {
        const auto* row = reinterpret_cast<const uint32_t*>(static_cast<const char*>(data) + y * stride);
        for (int x = 0; x < buffer->width; ++x) {
            const unsigned char rgb[3] = {static_cast<unsigned char>(row[x] >> 16),
                                          static_cast<unsigned char>(row[x] >> 8), static_cast<unsigned char>(row[x])};
            std::fwrite(rgb, 1, 3, stdout);
        }
    }
    wlr_buffer_end_data_ptr_access(buffer);
    wlr_buffer_drop(buffer);
    return 0;
}
