// SurfaceHints: one per-surface extension object's double-buffered value (content type, presentation hint, alpha
// multiplier), kept per wl_surface and applied with the surface's commit; shared by the protocols that need one.
//
// A surface has at most one such object at a time (a second is the protocol's already_constructed error, for the
// caller to raise). The object's resource holds this SurfaceHints as its user data (from(), in its requests); it is
// inert once its surface is gone.
#pragma once

#include "compositor/wlr.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>

namespace kiln::compositor {

class SurfaceHints {
public:
    // `initial`: the value of a surface without an object (and what destroying one reverts to); `changed` is called
    // when a commit changes a surface's value.
    explicit SurfaceHints(uint32_t initial, std::function<void(wlr_surface*, uint32_t)> changed = nullptr);
    ~SurfaceHints();
    SurfaceHints(const SurfaceHints&) = delete;
    SurfaceHints& operator=(const SurfaceHints&) = delete;

    // Ties `object` to `surface`; false when the surface has one already.
    bool attach(wlr_surface* surface, wl_resource* object);
    // The object's value for its surface's next commit; nothing for an inert object.
    void set(wl_resource* object, uint32_t value);
    // The object is gone: its surface reverts to `initial` at its next commit, and may have another object.
    void detach(wl_resource* object);
    // The surface an object is for, or null once the surface is gone.
    wlr_surface* surface_of(wl_resource* object) const;
    // The SurfaceHints an attached object belongs to.
    static SurfaceHints* from(wl_resource* object)
    {
        return static_cast<SurfaceHints*>(wl_resource_get_user_data(object));
    }

    // The committed value of `surface`.
    uint32_t value(wlr_surface* surface) const;
    // How many surfaces have `value` committed now.
    uint64_t count(uint32_t value) const;

private:
    struct Entry;
    void remove(wlr_surface* surface);

    uint32_t initial_;
    std::function<void(wlr_surface*, uint32_t)> changed_;
    std::unordered_map<wlr_surface*, std::unique_ptr<Entry>> entries_;
    std::unordered_map<wl_resource*, wlr_surface*> objects_;  // live objects whose surface lives
};

}  // namespace kiln::compositor
