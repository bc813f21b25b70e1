// ColorRepresentationV1: wp_color_representation_manager_v1, each surface's matrix coefficients and range, chroma
// location and alpha mode, double-buffered with its commits and checked against the committed buffer's format at
// each commit; kiln's sampling programs take a surface's coefficients, range, chroma siting and alpha mode
// (VisibleNode::yuv → renderer::TextureDraw::yuv), BT.601 limited range, centred, premultiplied where it set none.
#pragma once

#include "compositor/protocol_kit/per_surface_object.hpp"
#include "compositor/protocol_kit/request_hooks.hpp"
#include "compositor/protocol_kit/surface_hints.hpp"
#include "compositor/wlr.hpp"
#include "renderer/yuv.hpp"

#include <cstdint>
#include <functional>

namespace kiln::compositor {

// One surface's values as the protocol numbers them, 0 where unset; packed into SurfaceHints' 32 bits.
struct ColorRepresentation {
    uint32_t alpha_mode = 0;       // wp_color_representation_surface_v1.alpha_mode + 1
    uint32_t coefficients = 0;     // .coefficients
    uint32_t range = 0;            // .range
    uint32_t chroma_location = 0;  // .chroma_location

    static ColorRepresentation unpack(uint32_t packed);
    uint32_t pack() const;
    // What kiln's sampling takes: the coefficients and range set, else BT.601 limited; the chroma siting set, else
    // centred; the alpha mode set, else premultiplied electrical.
    renderer::YuvEncoding yuv_encoding() const;
    bool operator==(const ColorRepresentation&) const = default;

private:
    // The chroma siting and alpha mode set into `encoding` (left as they are where unset).
    void set_siting_and_alpha(renderer::YuvEncoding& encoding) const;
};

class ColorRepresentationV1 {
public:
    // `changed` is called when a commit changes a surface's values (its pixels on screen change with no damage);
    // the commit checks register into `hooks`.
    ColorRepresentationV1(wl_display* display, RequestHooks& hooks, std::function<void(wlr_surface*)> changed);
    ColorRepresentationV1(const ColorRepresentationV1&) = delete;
    ColorRepresentationV1& operator=(const ColorRepresentationV1&) = delete;

    // The committed values of `surface` (all unset without an object).
    ColorRepresentation representation(wlr_surface* surface) const
    {
        return ColorRepresentation::unpack(hints_.value(surface));
    }
    renderer::YuvEncoding yuv_encoding(wlr_surface* surface) const { return representation(surface).yuv_encoding(); }

private:
    // wl_surface.commit: values set that the buffer's format cannot take are the client's pixel_format error.
    void check_commit(wlr_surface* surface) const;

    SurfaceHints hints_;
    ManagerGlobal global_;
    RequestTable::Hook hook_;
};

}  // namespace kiln::compositor
