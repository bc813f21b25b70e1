// PerSurfaceObjects: the one way a "one object per wl_surface" protocol extension is written (the role Smithay's
// delegate macros play): its manager global's bind, get_* making the object or posting no_memory, the manager's
// "already has one" error, the object going inert when its surface goes and freed with its resource.
//
// A protocol's object derives from PerSurfaceObject and may define two hooks, called while `surface` is still set:
// `released()`, the client destroyed the object and its surface lives on (a value it set may revert), and
// `leave_surface()`, the object leaves its surface whichever went first (listeners on the surface go).
#pragma once

#include "compositor/protocol_kit/surface_attachment.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>
#include <new>
#include <utility>

namespace kiln::compositor {

// The request every manager and object of these protocols has: destroy.
inline void destroy_resource(wl_client*, wl_resource* resource) noexcept
{
    wl_resource_destroy(resource);
}

// A manager global: each bind makes a resource at the version the client asked (libwayland refuses one above
// `version`) with `requests` and `data` as its user data; `bound`, if given, sends its first events.
class ManagerGlobal {
public:
    using Bound = void (*)(wl_resource* resource, void* data) noexcept;

    ManagerGlobal(wl_display* display, const wl_interface& interface, int version, const void* requests, void* data,
                  Bound bound = nullptr)
        : interface_(interface), requests_(requests), data_(data), bound_(bound),
          global_(wl_global_create(display, &interface, version, this, &ManagerGlobal::bind))
    {
    }
    ~ManagerGlobal()
    {
        if (global_)
            wl_global_destroy(global_);
    }
    ManagerGlobal(const ManagerGlobal&) = delete;
    ManagerGlobal& operator=(const ManagerGlobal&) = delete;

    bool ok() const { return global_ != nullptr; }

private:
    static void bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
    {
        auto* self = static_cast<ManagerGlobal*>(data);
        wl_resource* resource = wl_resource_create(client, &self->interface_, static_cast<int>(version), id);
        if (!resource) {
            wl_client_post_no_memory(client);
            return;
        }
        wl_resource_set_implementation(resource, self->requests_, self->data_, nullptr);
        if (self->bound_)
            self->bound_(resource, self->data_);
    }

    const wl_interface& interface_;
    const void* requests_;
    void* data_;
    Bound bound_;
    wl_global* global_;
};

// What a protocol's per-surface object is: its interface, its requests, and the manager's error for a surface that
// has one already.
struct PerSurfaceInterface {
    const wl_interface* interface;
    const void* requests;
    uint32_t exists_error;
};

// The part every per-surface object has. It lives as long as its resource; its surface may go first (the object
// then stays, inert, as these protocols say).
struct PerSurfaceObject {
    wl_resource* resource = nullptr;
    wlr_surface* surface = nullptr;  // null once inert
    SurfaceAttachment attachment;    // on the surface: how its one object is found
    wl_list link{};                  // in its PerSurfaceObjects (O(1) removal)
};

template <class Object>
class PerSurfaceObjects {
public:
    explicit PerSurfaceObjects(PerSurfaceInterface kind) : kind_(kind) { wl_list_init(&objects_); }
    // Objects still alive (their clients outlive the protocol) go inert and never reach back into this.
    ~PerSurfaceObjects()
    {
        while (!wl_list_empty(&objects_)) {
            Object* object = first();
            leave(*object);
            wl_list_remove(&object->link);
            wl_list_init(&object->link);
        }
    }
    PerSurfaceObjects(const PerSurfaceObjects&) = delete;
    PerSurfaceObjects& operator=(const PerSurfaceObjects&) = delete;

    // The manager's get_* request: the object for `surface_resource`, made with `args`, or null after the
    // protocol's exists error (on `manager`) or no_memory.
    template <class... Args>
    Object* create(wl_client* client, wl_resource* manager, uint32_t id, wl_resource* surface_resource,
                   Args&&... args)
    {
        wlr_surface* surface = wlr_surface_from_resource(surface_resource);
        if (find(surface)) {
            wl_resource_post_error(manager, kind_.exists_error, "wl_surface@%u already has a %s",
                                   wl_resource_get_id(surface_resource), kind_.interface->name);
            return nullptr;
        }
        wl_resource* resource = wl_resource_create(client, kind_.interface, wl_resource_get_version(manager), id);
        auto* object = resource ? new (std::nothrow) Object(std::forward<Args>(args)...) : nullptr;
        if (!object) {
            if (resource)
                wl_resource_destroy(resource);
            wl_client_post_no_memory(client);
            return nullptr;
        }
        object->resource = resource;
        object->surface = surface;
        object->attachment.attach(surface, this, object,
                                  [](void* gone) noexcept { leave(*static_cast<Object*>(gone)); });
        wl_list_insert(objects_.prev, &object->link);
        wl_resource_set_implementation(resource, kind_.requests, object, &PerSurfaceObjects::resource_destroyed);
        return object;
    }

    // A get_* request for managers whose user data is this: nothing more is done with a new object.
    static void get(wl_client* client, wl_resource* manager, uint32_t id, wl_resource* surface) noexcept
    {
        static_cast<PerSurfaceObjects*>(wl_resource_get_user_data(manager))->create(client, manager, id, surface);
    }

    // The object of one of this protocol's resources (never null: it lives as long as its resource).
    static Object* from(wl_resource* resource) { return static_cast<Object*>(wl_resource_get_user_data(resource)); }
    // The object `surface` has, or null.
    Object* find(wlr_surface* surface) const
    {
        return static_cast<Object*>(SurfaceAttachment::find(surface, this));
    }
    bool empty() const { return wl_list_empty(&objects_); }

    template <class F>
    void for_each(F&& f) const
    {
        PerSurfaceObject* base = nullptr;
        wl_list_for_each(base, &objects_, link)
            f(*static_cast<Object*>(base));
    }

private:
    Object* first() const
    {
        PerSurfaceObject* base = wl_container_of(objects_.next, base, link);
        return static_cast<Object*>(base);
    }

    static void leave(Object& object)
    {
        if (!object.surface)
            return;
        object.attachment.detach();
        if constexpr (requires { object.leave_surface(); })
            object.leave_surface();
        object.surface = nullptr;
    }

    static void resource_destroyed(wl_resource* resource) noexcept
    {
        Object* object = from(resource);
        if constexpr (requires { object->released(); })
            if (object->surface)
                object->released();
        leave(*object);
        wl_list_remove(&object->link);
        delete object;
    }

    const PerSurfaceInterface kind_;
    wl_list objects_{};
};

}  // namespace kiln::compositor
