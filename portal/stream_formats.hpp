// StreamFormats: the EnumFormat params a VideoStream offers (shm frames, and dma-bufs with the modifiers kiln and
// the GPU share), and what a consumer's Format says about modifiers: the PipeWire two-step modifier negotiation.
#pragma once

#include <cstdint>
#include <optional>
#include <sys/types.h>
#include <utility>
#include <vector>

#include <spa/param/video/raw.h>

struct spa_pod;
struct spa_pod_builder;

namespace portal {

// What kiln's capture session offers for dma-buf frames: its dmabuf_device and dmabuf_format events.
struct DmabufOffer {
    std::optional<dev_t> device;
    std::vector<std::pair<uint32_t, std::vector<uint64_t>>> formats;  // DRM fourcc → modifiers, as kiln sent them

    // The modifiers kiln offers for `fourcc` (empty where it offers none, or no device).
    std::vector<uint64_t> modifiers(uint32_t fourcc) const;
};

// The DRM fourcc of the shm format a capture uses (wl_shm's XRGB8888/ARGB8888 codes are 1 and 0).
uint32_t drm_fourcc(uint32_t shm_format);
// SPA's name for the same pixels (SPA names formats by byte order: XRGB8888 is BGRx).
spa_video_format video_format(uint32_t shm_format);

// Modifiers found in both lists, in `ours`' order (our preference first); DRM_FORMAT_MOD_INVALID (an implicit
// layout) is never one: kiln's capture and the consumer must agree on an explicit one.
std::vector<uint64_t> common_modifiers(const std::vector<uint64_t>& ours, const std::vector<uint64_t>& theirs);

// The consumer's answer about modifiers in a Format param.
struct ModifierChoice {
    bool present = false;      // a dma-buf format (it has SPA_FORMAT_VIDEO_modifier)
    bool dont_fixate = false;  // the consumer left the choice to us: `values` are what both sides accept
    std::vector<uint64_t> values;
};
ModifierChoice read_modifiers(const spa_pod* format);

struct FormatSpec {
    spa_video_format format;
    int width, height, max_fps;
};
// An EnumFormat for frames in shared memory (no modifier property: consumers that take only MemFd match it).
const spa_pod* shm_format_param(spa_pod_builder& builder, const FormatSpec& spec);
// An EnumFormat for dma-bufs: `modifiers` as a choice the consumer narrows down (MANDATORY | DONT_FIXATE), or, once
// we fixated one, that modifier alone (MANDATORY).
const spa_pod* dmabuf_format_param(spa_pod_builder& builder, const FormatSpec& spec,
                                   const std::vector<uint64_t>& modifiers, bool fixated);

}  // namespace portal
