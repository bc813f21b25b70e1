// OutputRing: allocation through wlroots' allocator, slot choice by least damage, release tracking.
#include "compositor/output/output_ring.hpp"

#include "compositor/log.hpp"

#include <drm_fourcc.h>

namespace kiln::compositor {

OutputRing::OutputRing(wlr_allocator* allocator, wlr_output* output, const wlr_drm_format_set* render_formats)
    : allocator_(allocator), output_(output), render_formats_(render_formats)
{
}

OutputRing::~OutputRing()
{
    reset();
    wlr_drm_format_set_finish(&chosen_);
}

bool OutputRing::choose_format()
{
    if (format_)
        return true;
    // XRGB first: an opaque output format lets the plane skip blending, and every KMS driver scans it out.
    const wlr_drm_format_set* primary = wlr_output_get_primary_formats(output_, allocator_->buffer_caps);
    if (ten_bits_) {
        const wlr_drm_format* render = wlr_drm_format_set_get(render_formats_, DRM_FORMAT_XRGB2101010);
        for (size_t i = 0; render && i < render->len; ++i)
            if (primary && wlr_drm_format_set_has(primary, DRM_FORMAT_XRGB2101010, render->modifiers[i]))
                wlr_drm_format_set_add(&chosen_, DRM_FORMAT_XRGB2101010, render->modifiers[i]);
        if (wlr_drm_format_set_get(&chosen_, DRM_FORMAT_XRGB2101010)) {
            format_ = DRM_FORMAT_XRGB2101010;
            log::notice("output %s: scanning out XRGB2101010 (10 bits) for its HDR description", output_->name);
            return true;
        }
        if (!refused_ten_bits_)
            log::error("output %s: 10-bit scan-out refused: %s XRGB2101010; staying at 8 bits", output_->name,
                       !render        ? "the renderer cannot draw into"
                       : !primary     ? "the output lists no primary plane formats, so no"
                                      : "the primary plane does not offer");
        refused_ten_bits_ = true;
    }
    for (uint32_t fourcc : {DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888}) {
        const wlr_drm_format* render = wlr_drm_format_set_get(render_formats_, fourcc);
        if (!render)
            continue;
        for (size_t i = 0; i < render->len; ++i)
            if (!primary || wlr_drm_format_set_has(primary, fourcc, render->modifiers[i]))
                wlr_drm_format_set_add(&chosen_, fourcc, render->modifiers[i]);
        if (wlr_drm_format_set_get(&chosen_, fourcc)) {
            format_ = fourcc;
            return true;
        }
    }
    log::error("output %s: no format both the renderer and the output take", output_->name);
    return false;
}

OutputRing::Slot* OutputRing::acquire()
{
    if (!choose_format())
        return nullptr;
    Slot* best = nullptr;
    for (auto& slot : slots_)
        if (slot && !slot->busy && (!best || slot->damage.area() < best->damage.area()))
            best = slot.get();
    if (!best) {
        for (auto& slot : slots_) {
            if (slot)
                continue;
            wlr_buffer* buffer = wlr_allocator_create_buffer(allocator_, output_->width, output_->height,
                                                             wlr_drm_format_set_get(&chosen_, format_));
            if (!buffer) {
                log::error("output %s: cannot allocate a %dx%d buffer", output_->name, output_->width,
                           output_->height);
                return nullptr;
            }
            slot = std::make_unique<Slot>();
            slot->buffer = buffer;
            pixman_region32_union_rect(slot->damage.get(), slot->damage.get(), 0, 0,
                                       static_cast<unsigned>(output_->width), static_cast<unsigned>(output_->height));
            Slot* raw = slot.get();
            slot->release.connect(&buffer->events.release, [raw](void*) { raw->busy = false; });
            best = raw;
            break;
        }
    }
    if (!best)
        return nullptr;  // all three on screen, queued or drawing: the frame waits for a release
    best->busy = true;
    wlr_buffer_lock(best->buffer);
    return best;
}

void OutputRing::release(wlr_buffer* buffer)
{
    wlr_buffer_unlock(buffer);
}

void OutputRing::add_damage(const Region& damage)
{
    for (auto& slot : slots_)
        if (slot)
            slot->damage.add(damage);
}

void OutputRing::want_ten_bits(bool ten_bits)
{
    if (ten_bits == ten_bits_)
        return;
    ten_bits_ = ten_bits;
    if (format_ == DRM_FORMAT_XRGB2101010 || (ten_bits && !refused_ten_bits_)) {
        // The next frame chooses again and allocates in the new format.
        reset();
        wlr_drm_format_set_finish(&chosen_);
        chosen_ = {};
        format_ = 0;
    }
}

void OutputRing::reset()
{
    for (auto& slot : slots_) {
        if (!slot)
            continue;
        slot->release.disconnect();
        // Dropped buffers still on screen or drawing are destroyed when their last lock goes.
        wlr_buffer_drop(slot->buffer);
        slot.reset();
    }
}

size_t OutputRing::allocated() const
{
    size_t n = 0;
    for (const auto& slot : slots_)
        n += slot ? 1 : 0;
    return n;
}

}  // namespace kiln::compositor
