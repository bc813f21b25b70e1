// kiln-portal's side of PipeWire's modifier negotiation, run through SPA's own format filter as the graph runs it:
// a consumer that takes dma-bufs of some modifiers narrows our choice, one that names no modifier gets shm frames.
#include "stream_formats.hpp"

#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <vector>

#include <drm_fourcc.h>
#include <spa/param/video/format-utils.h>
#include <spa/pod/builder.h>
#include <spa/pod/filter.h>

using namespace portal;

namespace {

constexpr uint64_t kTiled = I915_FORMAT_MOD_X_TILED;
const FormatSpec kSpec{SPA_VIDEO_FORMAT_BGRx, 320, 240, 60};

// A consumer's EnumFormat: BGRx of any size and, where `modifiers` is not null, these modifiers left to us to fixate.
const spa_pod* consumer_format(spa_pod_builder& builder, const std::vector<uint64_t>* modifiers) {
    spa_rectangle smallest{1, 1}, usual{320, 240}, largest{8192, 8192};
    spa_fraction none{0, 1}, rate{60, 1}, most{1000, 1};
    spa_pod_frame frame{};
    spa_pod_builder_push_object(&builder, &frame, SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat);
    spa_pod_builder_add(&builder, SPA_FORMAT_mediaType, SPA_POD_Id(SPA_MEDIA_TYPE_video), SPA_FORMAT_mediaSubtype,
                        SPA_POD_Id(SPA_MEDIA_SUBTYPE_raw), SPA_FORMAT_VIDEO_format, SPA_POD_Id(SPA_VIDEO_FORMAT_BGRx),
                        SPA_FORMAT_VIDEO_size, SPA_POD_CHOICE_RANGE_Rectangle(&usual, &smallest, &largest),
                        SPA_FORMAT_VIDEO_framerate, SPA_POD_Fraction(&none), SPA_FORMAT_VIDEO_maxFramerate,
                        SPA_POD_CHOICE_RANGE_Fraction(&rate, &none, &most), 0);
    if (modifiers) {
        spa_pod_builder_prop(&builder, SPA_FORMAT_VIDEO_modifier,
                             SPA_POD_PROP_FLAG_MANDATORY | SPA_POD_PROP_FLAG_DONT_FIXATE);
        spa_pod_frame choice{};
        spa_pod_builder_push_choice(&builder, &choice, SPA_CHOICE_Enum, 0);
        spa_pod_builder_long(&builder, static_cast<int64_t>(modifiers->front()));
        for (uint64_t m : *modifiers)
            spa_pod_builder_long(&builder, static_cast<int64_t>(m));
        spa_pod_builder_pop(&builder, &choice);
    }
    return static_cast<const spa_pod*>(spa_pod_builder_pop(&builder, &frame));
}

// What the graph makes of our EnumFormat and the consumer's: nullptr where they do not match.
const spa_pod* negotiate(spa_pod_builder& out, const spa_pod* ours, const spa_pod* theirs) {
    spa_pod* result = nullptr;
    return spa_pod_filter(&out, &result, ours, theirs) < 0 ? nullptr : result;
}

}  // namespace

TEST_CASE("modifiers both sides take keep our order, never an implicit layout") {
    CHECK(common_modifiers({kTiled, DRM_FORMAT_MOD_LINEAR}, {DRM_FORMAT_MOD_LINEAR, kTiled}) ==
          std::vector<uint64_t>{kTiled, DRM_FORMAT_MOD_LINEAR});
    CHECK(common_modifiers({kTiled, DRM_FORMAT_MOD_LINEAR}, {DRM_FORMAT_MOD_LINEAR}) ==
          std::vector<uint64_t>{DRM_FORMAT_MOD_LINEAR});
    CHECK(common_modifiers({DRM_FORMAT_MOD_INVALID, kTiled}, {DRM_FORMAT_MOD_INVALID}).empty());
    CHECK(common_modifiers({kTiled}, {DRM_FORMAT_MOD_LINEAR}).empty());
}

TEST_CASE("kiln's offer gives the modifiers of the capture's format, only with a device") {
    DmabufOffer offer;
    offer.formats = {{DRM_FORMAT_ARGB8888, {kTiled}}, {DRM_FORMAT_XRGB8888, {DRM_FORMAT_MOD_LINEAR, kTiled}}};
    CHECK(offer.modifiers(drm_fourcc(1)).empty());  // no dmabuf_device: shm only
    offer.device = 0xe280;
    CHECK(offer.modifiers(drm_fourcc(1)) == std::vector<uint64_t>{DRM_FORMAT_MOD_LINEAR, kTiled});
    CHECK(offer.modifiers(drm_fourcc(0)) == std::vector<uint64_t>{kTiled});
    CHECK(offer.modifiers(DRM_FORMAT_NV12).empty());
}

TEST_CASE("a dma-buf consumer narrows the choice, leaves it to us, and takes the modifier we fixate") {
    uint8_t storage[4096], out_storage[4096];
    spa_pod_builder builder = SPA_POD_BUILDER_INIT(storage, sizeof storage);
    const spa_pod* ours = dmabuf_format_param(builder, kSpec, {kTiled, DRM_FORMAT_MOD_LINEAR}, false);
    std::vector<uint64_t> linear{DRM_FORMAT_MOD_LINEAR};
    const spa_pod* theirs = consumer_format(builder, &linear);

    spa_pod_builder out = SPA_POD_BUILDER_INIT(out_storage, sizeof out_storage);
    const spa_pod* format = negotiate(out, ours, theirs);
    REQUIRE(format != nullptr);
    ModifierChoice choice = read_modifiers(format);
    CHECK(choice.present);
    CHECK(choice.dont_fixate);
    CHECK(common_modifiers({kTiled, DRM_FORMAT_MOD_LINEAR}, choice.values) == linear);

    // Step two: we offer the one we fixated; the consumer's Format then names it, fixed.
    const spa_pod* fixated = dmabuf_format_param(builder, kSpec, linear, true);
    spa_pod_builder out2 = SPA_POD_BUILDER_INIT(out_storage, sizeof out_storage);
    const spa_pod* final_format = negotiate(out2, fixated, theirs);
    REQUIRE(final_format != nullptr);
    ModifierChoice fixed = read_modifiers(final_format);
    CHECK(fixed.present);
    CHECK(fixed.values == linear);
    spa_video_info_raw info{};
    REQUIRE(spa_format_video_raw_parse(final_format, &info) >= 0);
    CHECK(info.modifier == DRM_FORMAT_MOD_LINEAR);
    CHECK(info.format == SPA_VIDEO_FORMAT_BGRx);
}

TEST_CASE("a consumer that takes only shared memory matches the shm format, not the dma-buf one") {
    uint8_t storage[4096], out_storage[4096];
    spa_pod_builder builder = SPA_POD_BUILDER_INIT(storage, sizeof storage);
    const spa_pod* dmabuf = dmabuf_format_param(builder, kSpec, {DRM_FORMAT_MOD_LINEAR}, false);
    const spa_pod* shm = shm_format_param(builder, kSpec);
    const spa_pod* theirs = consumer_format(builder, nullptr);
    spa_pod_builder out = SPA_POD_BUILDER_INIT(out_storage, sizeof out_storage);
    CHECK(negotiate(out, dmabuf, theirs) == nullptr);
    spa_pod_builder out2 = SPA_POD_BUILDER_INIT(out_storage, sizeof out_storage);
    const spa_pod* format = negotiate(out2, shm, theirs);
    REQUIRE(format != nullptr);
    CHECK_FALSE(read_modifiers(format).present);
}

TEST_CASE("a consumer whose modifiers we do not offer matches no dma-buf format") {
    uint8_t storage[4096], out_storage[4096];
    spa_pod_builder builder = SPA_POD_BUILDER_INIT(storage, sizeof storage);
    const spa_pod* ours = dmabuf_format_param(builder, kSpec, {kTiled}, false);
    std::vector<uint64_t> linear{DRM_FORMAT_MOD_LINEAR};
    const spa_pod* theirs = consumer_format(builder, &linear);
    spa_pod_builder out = SPA_POD_BUILDER_INIT(out_storage, sizeof out_storage);
    CHECK(negotiate(out, ours, theirs) == nullptr);
}
