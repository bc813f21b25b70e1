// OutputRing: kiln's own three-slot ring of output buffers, each remembering what changed since it was last drawn
// (buffer age), so a frame redraws only what its slot is missing.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/region.hpp"
#include "compositor/wlr.hpp"

#include <array>
#include <memory>

namespace kiln::compositor {

class OutputRing {
public:
    // Three: one on screen, one queued for the next flip, one being drawn, so drawing never waits for a flip.
    static constexpr size_t capacity = 3;

    struct Slot {
        wlr_buffer* buffer = nullptr;
        Region damage;       // what changed on the output since this slot was drawn; all of it for a new slot
        bool busy = false;   // locked by kiln (being drawn, waiting for its fence) or by the backend (on screen)
        wl::Listener release;
    };

    OutputRing(wlr_allocator* allocator, wlr_output* output, const wlr_drm_format_set* render_formats);
    ~OutputRing();
    OutputRing(const OutputRing&) = delete;
    OutputRing& operator=(const OutputRing&) = delete;

    // A free slot for the next frame, locked until release(): the free one with the least to redraw, or a new one
    // while fewer than `capacity` exist. nullptr when every slot is busy (or allocation failed, with a log line).
    Slot* acquire();
    // Drops kiln's lock on a buffer acquire() gave; its slot frees when the backend is done with it too. Takes the
    // buffer, not the slot: a reset() may have dropped the slot meanwhile.
    static void release(wlr_buffer* buffer);
    // Damage on the output reaches every slot; the one drawn next clears its own.
    void add_damage(const Region& damage);
    // Drops every buffer (mode change): the next frames allocate anew, wholly damaged.
    void reset();
    size_t allocated() const;
    uint32_t format() const { return format_; }
    // Asks for a 10-bit format (XRGB2101010) for an HDR output: where the primary plane and the renderer both take
    // it, the buffers are made anew in it; where not, one log line says so and the ring stays at 8 bits.
    void want_ten_bits(bool ten_bits);

private:
    bool choose_format();

    wlr_allocator* allocator_;
    wlr_output* output_;
    const wlr_drm_format_set* render_formats_;
    wlr_drm_format_set chosen_{};
    uint32_t format_ = 0;
    bool ten_bits_ = false;
    bool refused_ten_bits_ = false;  // said once per output
    std::array<std::unique_ptr<Slot>, capacity> slots_{};
};

}  // namespace kiln::compositor
