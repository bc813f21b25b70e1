// SurfaceHints: one per-surface extension object's double-buffered value (content type, presentation hint, alpha
// multiplier, colour representation packed into 32 bits), kept per wl_surface in a CommittedValues and applied with
// the surface's commit; shared by the protocols that need one.
//
// Its objects are PerSurfaceObjects (one per surface, the protocol's exists error for a second, inert once their
// surface is gone); their manager's user data is this SurfaceHints, whose get() is the manager's get_* request.
#pragma once

#include "compositor/protocol_kit/committed_values.hpp"
#include "compositor/protocol_kit/per_surface_object.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>
#include <functional>

namespace kiln::compositor {

class SurfaceHints {
public:
    // `kind`: the protocol's object; `initial`: the value of a surface without an object (and what destroying one
    // reverts to); `changed` is called when a commit changes a surface's value.
    SurfaceHints(PerSurfaceInterface kind, uint32_t initial,
                 std::function<void(wlr_surface*, uint32_t)> changed = nullptr);
    SurfaceHints(const SurfaceHints&) = delete;
    SurfaceHints& operator=(const SurfaceHints&) = delete;

    // The manager's get_* request (its user data is a SurfaceHints).
    static void get(wl_client* client, wl_resource* manager, uint32_t id, wl_resource* surface) noexcept;
    // The value of `object` (one of these protocols' objects) for its surface's next commit; false, nothing kept,
    // when the object is inert.
    static bool set(wl_resource* object, uint32_t value);

    // The value `object`'s surface is to commit next (what set() last gave, else its committed value), for a
    // protocol whose requests each change part of it; false when the object is inert.
    static bool pending(wl_resource* object, uint32_t& value);

    // The committed value of `surface`.
    uint32_t value(wlr_surface* surface) const;
    // The value `surface` is to commit next, for checks of a commit before it applies.
    uint32_t pending(wlr_surface* surface) const;
    // The object `surface` has now, or null (where a commit check posts its protocol's error).
    wl_resource* object(wlr_surface* surface) const;
    // How many surfaces have `value` committed now.
    uint64_t count(uint32_t value) const;

private:
    // An object gone: its surface reverts to `initial` at its next commit, and may have another object.
    struct Object : PerSurfaceObject {
        SurfaceHints* owner = nullptr;
        void released() { owner->set_pending(surface, owner->initial_); }
    };
    void set_pending(wlr_surface* surface, uint32_t value) { values_.set_pending(surface, value); }

    const uint32_t initial_;
    CommittedValues<uint32_t> values_;
    PerSurfaceObjects<Object> objects_;
};

}  // namespace kiln::compositor
