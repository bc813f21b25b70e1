// zxdg_decoration_manager_v1 for kiln's xdg toplevels: each toplevel's decoration object, the mode its client asks
// for, and the mode kiln answers with (a configure before the xdg_surface's).
#pragma once

#include "compositor/indexed_list.hpp"
#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>
#include <list>
#include <memory>

namespace kiln::compositor::xdg {

class Surface;
class XdgDecorationManagerV1;

class ToplevelDecoration {
public:
    enum class Mode : uint32_t { none = 0, client_side = 1, server_side = 2 };

    ToplevelDecoration(XdgDecorationManagerV1& manager, wl_resource* resource, Surface& surface);
    ~ToplevelDecoration();
    ToplevelDecoration(const ToplevelDecoration&) = delete;
    ToplevelDecoration& operator=(const ToplevelDecoration&) = delete;

    // Null once its toplevel role is gone (the object is then inert).
    Surface* surface() const { return inert_ ? nullptr : &surface_; }
    XdgDecorationManagerV1& manager() const { return manager_; }
    wl_resource* resource() const { return resource_; }
    Mode requested() const { return requested_; }
    // kiln's answer, sent with the surface's next configure (every request is answered, changed or not).
    void set_mode(Mode mode);
    void request(Mode mode);

    struct {
        wl_signal request_mode;
        wl_signal destroy;
    } events;

private:
    XdgDecorationManagerV1& manager_;
    wl_resource* resource_;
    Surface& surface_;
    bool inert_ = false;
    Mode requested_ = Mode::none;
    Mode mode_ = Mode::client_side;
    bool owed_ = true;  // a configure is owed (none sent yet, or a request since)

    wl::Listener configure_;
    wl::Listener role_destroy_;
};

class XdgDecorationManagerV1 {
public:
    explicit XdgDecorationManagerV1(wl_display* display);
    ~XdgDecorationManagerV1();
    XdgDecorationManagerV1(const XdgDecorationManagerV1&) = delete;
    XdgDecorationManagerV1& operator=(const XdgDecorationManagerV1&) = delete;

    // The decoration object of a toplevel's xdg_surface, if it has one.
    ToplevelDecoration* decoration_of(const Surface* surface) const;

    struct {
        wl_signal new_decoration;  // ToplevelDecoration*
    } events;

    // Called by the request handlers.
    void add(std::unique_ptr<ToplevelDecoration> decoration);
    void remove(ToplevelDecoration* decoration);

private:
    wl_global* global_;
    IndexedList<std::unique_ptr<ToplevelDecoration>> decorations_;
};

}  // namespace kiln::compositor::xdg
