// kiln-demo-shm: a wl_shm window in one colour with a square sliding across it; only the square's path is damaged.
#include "clients/client_window.hpp"
#include "clients/shm_buffer.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>

namespace {

constexpr const char* usage = R"(Usage: kiln-demo-shm [--size WxH] [--color RRGGBB] [--frames N [--stay]] [--fullscreen]
                     [--alpha 0..255] [--opaque-region] [--server-decoration] [--stamp]
An animated wl_shm window: a static colour with a white square sliding across; each frame damages only the square's
old and new places. --alpha makes the window translucent (ARGB8888, premultiplied); --opaque-region draws opaque
pixels in ARGB8888 and says so with wl_surface.set_opaque_region (the whole window); --stay keeps it shown after
its frames; --server-decoration asks for server-side decorations (xdg-decoration) and prints the mode it gets.
--stamp paints the frame's number into the window's top-left 8x8 pixels (red = low byte, green = high byte, blue =
their complement's low byte): tests read it from screenshots to see frames advance, which the square's motion
cannot show (its picture repeats every few frames, and a sample taken a whole period later sees it unchanged).
)";

constexpr int32_t stamp_size = 8;

// The frame number as a colour no other frame within 65536 has.
uint32_t stamp_color(uint64_t frame)
{
    const uint32_t low = frame & 0xff;
    const uint32_t high = (frame >> 8) & 0xff;
    return low << 16 | high << 8 | ((low ^ 0xff) & 0xff);
}

constexpr int32_t square = 48;
constexpr uint32_t square_color = 0xffffff;

struct Rect {
    int32_t x, y, w, h;
};

}  // namespace

int main(int argc, char** argv)
{
    using namespace kiln::clients;
    WindowOptions options;
    options.title = "kiln-demo-shm";
    uint8_t alpha = 255;
    bool stamp = false;
    bool opaque_region = false;
    auto extra = [&](const std::string& flag, const char* value, bool& used) {
        if (flag == "--stamp") {
            stamp = true;
            return true;
        }
        if (flag == "--opaque-region") {
            opaque_region = true;
            return true;
        }
        if (flag != "--alpha" || !value)
            return false;
        char* end = nullptr;
        const long a = std::strtol(value, &end, 10);
        if (*end || a < 0 || a > 255)
            return false;
        alpha = static_cast<uint8_t>(a);
        used = true;
        return true;
    };
    if (!parse_window_options(argc, argv, options, usage, extra))
        return 2;

    ClientWindow window(options);
    std::string error;
    if (!window.connect(error) || !window.shm()) {
        std::fprintf(stderr, "kiln-demo-shm: %s\n", error.empty() ? "no wl_shm" : error.c_str());
        return 1;
    }

    // Two buffers, each remembering where its square was drawn, so a reused buffer is repaired where it differs.
    std::array<std::unique_ptr<ShmBuffer>, 2> buffers;
    std::array<std::optional<Rect>, 2> drawn_square;
    std::optional<Rect> previous;  // the square in the last committed frame
    int32_t buffer_w = 0;
    int32_t buffer_h = 0;

    return window.run([&](uint64_t frame) {
        const int32_t w = window.width();
        const int32_t h = window.height();
        if (w != buffer_w || h != buffer_h) {
            for (auto& b : buffers) {
                b = ShmBuffer::create(window.shm(), w, h, error, alpha, opaque_region);
                if (!b) {
                    std::fprintf(stderr, "kiln-demo-shm: %s\n", error.c_str());
                    return false;
                }
                b->fill(0, 0, w, h, options.color);
            }
            if (opaque_region) {
                wl_region* region = wl_compositor_create_region(window.compositor());
                wl_region_add(region, 0, 0, w, h);
                wl_surface_set_opaque_region(window.surface(), region);
                wl_region_destroy(region);
            }
            drawn_square = {};
            previous.reset();
            buffer_w = w;
            buffer_h = h;
        }
        size_t index = 0;
        while (index < buffers.size() && buffers[index]->busy())
            ++index;
        if (index == buffers.size())
            index = frame % buffers.size();  // compositor holds both: draw anyway, it copies shm at commit
        ShmBuffer& buffer = *buffers[index];

        const int32_t travel = std::max(1, w - square);
        const Rect now{static_cast<int32_t>((frame * 8) % static_cast<uint64_t>(travel)), (h - square) / 2, square,
                       square};
        if (drawn_square[index])
            buffer.fill(drawn_square[index]->x, drawn_square[index]->y, square, square, options.color);
        buffer.fill(now.x, now.y, now.w, now.h, square_color);
        drawn_square[index] = now;
        if (stamp)
            buffer.fill(0, 0, stamp_size, stamp_size, stamp_color(frame));

        wl_surface_attach(window.surface(), buffer.buffer(), 0, 0);
        if (!previous) {
            wl_surface_damage_buffer(window.surface(), 0, 0, w, h);
        } else {
            wl_surface_damage_buffer(window.surface(), previous->x, previous->y, previous->w, previous->h);
            wl_surface_damage_buffer(window.surface(), now.x, now.y, now.w, now.h);
            if (stamp)
                wl_surface_damage_buffer(window.surface(), 0, 0, stamp_size, stamp_size);
        }
        previous = now;
        buffer.set_busy();
        wl_surface_commit(window.surface());
        return true;
    });
}
