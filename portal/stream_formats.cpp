// StreamFormats: EnumFormat pods for shm and dma-buf streams, and the consumer's modifiers read from its Format.
#include "stream_formats.hpp"

#include <algorithm>

#include <drm_fourcc.h>
#include <spa/param/format.h>
#include <spa/param/video/format.h>
#include <spa/pod/builder.h>
#include <spa/pod/iter.h>
#include <spa/pod/parser.h>

namespace portal {

namespace {

constexpr uint32_t kShmArgb8888 = 0;  // WL_SHM_FORMAT_ARGB8888; the others use the DRM fourcc

void add_common(spa_pod_builder& builder, const FormatSpec& spec) {
    spa_rectangle size{static_cast<uint32_t>(spec.width), static_cast<uint32_t>(spec.height)};
    spa_fraction none{0, 1}, most{static_cast<uint32_t>(spec.max_fps), 1}, least{1, 1};
    spa_pod_builder_add(&builder, SPA_FORMAT_mediaType, SPA_POD_Id(SPA_MEDIA_TYPE_video), SPA_FORMAT_mediaSubtype,
                        SPA_POD_Id(SPA_MEDIA_SUBTYPE_raw), SPA_FORMAT_VIDEO_format, SPA_POD_Id(spec.format),
                        SPA_FORMAT_VIDEO_size, SPA_POD_Rectangle(&size), SPA_FORMAT_VIDEO_framerate,
                        SPA_POD_Fraction(&none), SPA_FORMAT_VIDEO_maxFramerate,
                        SPA_POD_CHOICE_RANGE_Fraction(&most, &least, &most), 0);
}

}  // namespace

std::vector<uint64_t> DmabufOffer::modifiers(uint32_t fourcc) const {
    if (!device)
        return {};
    for (const auto& [format, mods] : formats)
        if (format == fourcc)
            return mods;
    return {};
}

uint32_t drm_fourcc(uint32_t shm_format) {
    return shm_format == kShmArgb8888 ? DRM_FORMAT_ARGB8888 : DRM_FORMAT_XRGB8888;
}

spa_video_format video_format(uint32_t shm_format) {
    return shm_format == kShmArgb8888 ? SPA_VIDEO_FORMAT_BGRA : SPA_VIDEO_FORMAT_BGRx;
}

std::vector<uint64_t> common_modifiers(const std::vector<uint64_t>& ours, const std::vector<uint64_t>& theirs) {
    std::vector<uint64_t> both;
    for (uint64_t modifier : ours)
        if (modifier != DRM_FORMAT_MOD_INVALID && std::find(theirs.begin(), theirs.end(), modifier) != theirs.end() &&
            std::find(both.begin(), both.end(), modifier) == both.end())
            both.push_back(modifier);
    return both;
}

ModifierChoice read_modifiers(const spa_pod* format) {
    ModifierChoice choice;
    const spa_pod_prop* prop = format ? spa_pod_find_prop(format, nullptr, SPA_FORMAT_VIDEO_modifier) : nullptr;
    if (!prop)
        return choice;
    choice.present = true;
    choice.dont_fixate = (prop->flags & SPA_POD_PROP_FLAG_DONT_FIXATE) != 0;
    uint32_t n_values = 0, kind = 0;
    const spa_pod* values = spa_pod_get_values(&prop->value, &n_values, &kind);
    if (!values || SPA_POD_TYPE(values) != SPA_TYPE_Long)
        return choice;
    const auto* longs = static_cast<const int64_t*>(SPA_POD_BODY_CONST(values));
    // A choice's first value is its default, repeated among the alternatives that follow.
    uint32_t first = (kind == SPA_CHOICE_Enum && n_values > 1) ? 1 : 0;
    for (uint32_t i = first; i < n_values; ++i)
        choice.values.push_back(static_cast<uint64_t>(longs[i]));
    if (kind == SPA_CHOICE_None)
        choice.values.resize(std::min<size_t>(choice.values.size(), 1));
    return choice;
}

const spa_pod* shm_format_param(spa_pod_builder& builder, const FormatSpec& spec) {
    spa_pod_frame frame{};
    spa_pod_builder_push_object(&builder, &frame, SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat);
    add_common(builder, spec);
    return static_cast<const spa_pod*>(spa_pod_builder_pop(&builder, &frame));
}

const spa_pod* dmabuf_format_param(spa_pod_builder& builder, const FormatSpec& spec,
                                   const std::vector<uint64_t>& modifiers, bool fixated) {
    spa_pod_frame frame{};
    spa_pod_builder_push_object(&builder, &frame, SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat);
    add_common(builder, spec);
    if (fixated) {
        spa_pod_builder_prop(&builder, SPA_FORMAT_VIDEO_modifier, SPA_POD_PROP_FLAG_MANDATORY);
        spa_pod_builder_long(&builder, static_cast<int64_t>(modifiers.front()));
    } else {
        spa_pod_builder_prop(&builder, SPA_FORMAT_VIDEO_modifier,
                             SPA_POD_PROP_FLAG_MANDATORY | SPA_POD_PROP_FLAG_DONT_FIXATE);
        spa_pod_frame choice{};
        spa_pod_builder_push_choice(&builder, &choice, SPA_CHOICE_Enum, 0);
        spa_pod_builder_long(&builder, static_cast<int64_t>(modifiers.front()));  // the default
        for (uint64_t modifier : modifiers)
            spa_pod_builder_long(&builder, static_cast<int64_t>(modifier));
        spa_pod_builder_pop(&builder, &choice);
    }
    return static_cast<const spa_pod*>(spa_pod_builder_pop(&builder, &frame));
}

}  // namespace portal
