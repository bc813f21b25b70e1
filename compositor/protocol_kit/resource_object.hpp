// create_resource_object: the one way a protocol object that lives exactly as long as its resource is made — the
// resource at the client's version, the object beside it, no_memory posted (and nothing left behind) when either
// cannot be had, the object deleted when the resource goes. Objects needing more than their destructor at that
// moment (unlinking from a list, ending an export) keep writing their own destroy handler.
#pragma once

#include "compositor/wlr.hpp"

#include <cstdint>
#include <new>
#include <utility>

namespace kiln::compositor {

// The object of a resource made by create_resource_object (never null while the resource lives).
template <class Object>
Object* resource_object(wl_resource* resource)
{
    return static_cast<Object*>(wl_resource_get_user_data(resource));
}

// Makes `id` as `interface` at `version` with `requests`, and an Object built from `args` as its user data; returns
// the resource, or null after no_memory was posted.
template <class Object, class... Args>
wl_resource* create_resource_object(wl_client* client, const wl_interface* interface, int version, uint32_t id,
                                    const void* requests, Args&&... args)
{
    wl_resource* resource = wl_resource_create(client, interface, version, id);
    auto* object = resource ? new (std::nothrow) Object{std::forward<Args>(args)...} : nullptr;
    if (!object) {
        if (resource)
            wl_resource_destroy(resource);
        wl_client_post_no_memory(client);
        return nullptr;
    }
    wl_resource_set_implementation(resource, requests, object,
                                   [](wl_resource* gone) noexcept { delete resource_object<Object>(gone); });
    return resource;
}

}  // namespace kiln::compositor
