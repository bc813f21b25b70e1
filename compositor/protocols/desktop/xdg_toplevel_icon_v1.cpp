// xdg_toplevel_icon_manager_v1 and xdg_toplevel_icon_v1: icons built from wl_shm buffers, their errors, and set_icon
// double-buffered on the toplevel's wl_surface.
#include "compositor/protocols/desktop/xdg_toplevel_icon_v1.hpp"
#include "compositor/shell/xdg/xdg_surface.hpp"

#include "compositor/shell/title_text.hpp"

#include "xdg-toplevel-icon-v1-protocol.h"

#include <cstring>
#include <list>
#include <map>
#include <new>
#include <string>
#include <utility>

namespace kiln::compositor {

// One xdg_toplevel_icon_v1 while the client builds it; immutable once assigned to a toplevel.
struct XdgToplevelIconV1::Icon {
    XdgToplevelIconV1* owner = nullptr;
    wl_resource* resource = nullptr;
    std::string name;  // kept, not resolved (see the header)
    std::map<std::pair<int, int>, std::shared_ptr<const TitleIcon>> buffers;  // (size, scale) -> pixels
    bool immutable = false;
    bool client_gone = false;
    // Each added wl_buffer: its destruction while the icon lives is no_buffer.
    struct Watch {
        Icon* icon;
        wl_listener destroyed{};
    };
    std::list<Watch> watches;
    wl_listener client_destroyed{};
};

// The icon an xdg_toplevel's next commit applies.
struct XdgToplevelIconV1::Pending {
    XdgToplevelIconV1* owner = nullptr;
    wl_resource* toplevel = nullptr;
    std::shared_ptr<const TitleIcon> icon;
    bool waiting = false;
    wl_listener commit{};
    wl_listener surface_destroyed{};
    wl_listener toplevel_destroyed{};
};

namespace {

using Icon = XdgToplevelIconV1::Icon;

Icon* icon_from(wl_resource* resource)
{
    return static_cast<Icon*>(wl_resource_get_user_data(resource));
}

void destroy_request(wl_client*, wl_resource* resource) noexcept
{
    wl_resource_destroy(resource);
}

// The buffer's pixels as premultiplied ARGB8888; null for a format kiln does not draw icons from.
std::shared_ptr<TitleIcon> copy_pixels(wl_shm_buffer* shm, int size)
{
    const uint32_t format = wl_shm_buffer_get_format(shm);
    if (format != WL_SHM_FORMAT_ARGB8888 && format != WL_SHM_FORMAT_XRGB8888)
        return nullptr;
    auto icon = std::make_shared<TitleIcon>();
    icon->size = size;
    icon->argb.resize(static_cast<size_t>(size) * static_cast<size_t>(size));
    const auto stride = static_cast<size_t>(wl_shm_buffer_get_stride(shm));
    wl_shm_buffer_begin_access(shm);  // a pool truncated under us reads zeros, not SIGBUS
    const auto* data = static_cast<const unsigned char*>(wl_shm_buffer_get_data(shm));
    for (int row = 0; row < size; ++row)
        std::memcpy(icon->argb.data() + static_cast<size_t>(row) * static_cast<size_t>(size),
                    data + static_cast<size_t>(row) * stride, static_cast<size_t>(size) * 4);
    wl_shm_buffer_end_access(shm);
    if (format == WL_SHM_FORMAT_XRGB8888)
        for (uint32_t& pixel : icon->argb)
            pixel |= 0xff000000u;
    return icon;
}

void set_name(wl_client*, wl_resource* resource, const char* name) noexcept
{
    Icon* icon = icon_from(resource);
    if (icon->immutable) {
        wl_resource_post_error(resource, XDG_TOPLEVEL_ICON_V1_ERROR_IMMUTABLE, "the icon is assigned to a toplevel");
        return;
    }
    icon->name = name;
}

void add_buffer(wl_client*, wl_resource* resource, wl_resource* buffer, int32_t scale) noexcept
{
    Icon* icon = icon_from(resource);
    if (icon->immutable) {
        wl_resource_post_error(resource, XDG_TOPLEVEL_ICON_V1_ERROR_IMMUTABLE, "the icon is assigned to a toplevel");
        return;
    }
    wl_shm_buffer* shm = wl_shm_buffer_get(buffer);
    if (!shm) {
        wl_resource_post_error(resource, XDG_TOPLEVEL_ICON_V1_ERROR_INVALID_BUFFER,
                               "the buffer is not a wl_shm buffer");
        return;
    }
    const int width = wl_shm_buffer_get_width(shm);
    const int height = wl_shm_buffer_get_height(shm);
    if (width != height || width <= 0) {
        wl_resource_post_error(resource, XDG_TOPLEVEL_ICON_V1_ERROR_INVALID_BUFFER, "the buffer is %dx%d, not square",
                               width, height);
        return;
    }
    if (scale < 1) {
        wl_resource_post_error(resource, XDG_TOPLEVEL_ICON_V1_ERROR_INVALID_BUFFER, "scale %d is not positive", scale);
        return;
    }
    icon->buffers[{width, scale}] = copy_pixels(shm, width);
    Icon::Watch& watch = icon->watches.emplace_back(Icon::Watch{icon});
    watch.destroyed.notify = [](wl_listener* listener, void*) noexcept {
        Icon::Watch* self = wl_container_of(listener, self, destroyed);
        wl_list_remove(&self->destroyed.link);
        wl_list_init(&self->destroyed.link);
        if (!self->icon->client_gone)
            wl_resource_post_error(self->icon->resource, XDG_TOPLEVEL_ICON_V1_ERROR_NO_BUFFER,
                                   "a buffer of the icon was destroyed before the icon");
    };
    wl_resource_add_destroy_listener(buffer, &watch.destroyed);
}

void icon_destroyed(wl_resource* resource) noexcept
{
    Icon* icon = icon_from(resource);
    for (Icon::Watch& watch : icon->watches)
        wl_list_remove(&watch.destroyed.link);
    wl_list_remove(&icon->client_destroyed.link);
    delete icon;
}

const struct xdg_toplevel_icon_v1_interface icon_requests = {
    .destroy = destroy_request,
    .set_name = set_name,
    .add_buffer = add_buffer,
};

// The pixels nearest `size` at scale 1 (the smallest at least that large, else the largest), or null.
std::shared_ptr<const TitleIcon> choose(const Icon& icon, int size)
{
    std::shared_ptr<const TitleIcon> best;
    int best_side = 0;  // in logical pixels: a buffer's size over its scale
    for (const auto& [key, pixels] : icon.buffers) {
        if (!pixels)
            continue;
        const int side = key.first / key.second;
        const bool larger_enough = side >= size && (best_side < size || side < best_side);
        const bool larger = best_side < size && side > best_side;
        if (!best || larger_enough || larger) {
            best = pixels;
            best_side = side;
        }
    }
    return best;
}

}  // namespace

XdgToplevelIconV1::XdgToplevelIconV1(wl_display* display, int preferred_size, Apply apply)
    : preferred_size_(preferred_size),
      apply_(std::move(apply)),
      global_(wl_global_create(display, &xdg_toplevel_icon_manager_v1_interface, 1, this, bind))
{
}

XdgToplevelIconV1::~XdgToplevelIconV1()
{
    while (!pending_.empty())
        forget(pending_.begin()->first);
    if (global_)
        wl_global_destroy(global_);
}

void XdgToplevelIconV1::bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
{
    wl_resource* resource =
        wl_resource_create(client, &xdg_toplevel_icon_manager_v1_interface, static_cast<int>(version), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    static const struct xdg_toplevel_icon_manager_v1_interface requests = {
        .destroy = destroy_request,
        .create_icon = create_icon,
        .set_icon = set_icon,
    };
    wl_resource_set_implementation(resource, &requests, data, nullptr);
    auto* self = static_cast<XdgToplevelIconV1*>(data);
    xdg_toplevel_icon_manager_v1_send_icon_size(resource, self->preferred_size_);
    xdg_toplevel_icon_manager_v1_send_done(resource);
}

void XdgToplevelIconV1::create_icon(wl_client* client, wl_resource* manager, uint32_t id) noexcept
{
    auto* icon = new (std::nothrow) Icon();
    if (!icon) {
        wl_client_post_no_memory(client);
        return;
    }
    icon->resource = wl_resource_create(client, &xdg_toplevel_icon_v1_interface, wl_resource_get_version(manager), id);
    if (!icon->resource) {
        delete icon;
        wl_client_post_no_memory(client);
        return;
    }
    icon->owner = static_cast<XdgToplevelIconV1*>(wl_resource_get_user_data(manager));
    // A client going away destroys its buffers and icons in any order: no error for those.
    icon->client_destroyed.notify = [](wl_listener* listener, void*) noexcept {
        Icon* self = wl_container_of(listener, self, client_destroyed);
        self->client_gone = true;
    };
    wl_client_add_destroy_listener(client, &icon->client_destroyed);
    wl_resource_set_implementation(icon->resource, &icon_requests, icon, icon_destroyed);
}

void XdgToplevelIconV1::set_icon(wl_client*, wl_resource* manager, wl_resource* toplevel,
                                 wl_resource* icon_resource) noexcept
{
    auto* self = static_cast<XdgToplevelIconV1*>(wl_resource_get_user_data(manager));
    std::shared_ptr<const TitleIcon> pixels;
    if (icon_resource) {
        Icon* icon = icon_from(icon_resource);
        icon->immutable = true;
        pixels = choose(*icon, self->preferred_size_);
    }
    xdg::Toplevel* xdg = xdg::Toplevel::from_resource(toplevel);
    if (!xdg)
        return;  // the toplevel's role is gone: nothing to apply to
    auto [it, inserted] = self->pending_.try_emplace(toplevel);
    if (inserted) {
        auto pending = std::make_unique<Pending>();
        pending->owner = self;
        pending->toplevel = toplevel;
        pending->commit.notify = [](wl_listener* listener, void*) noexcept {
            Pending* p = wl_container_of(listener, p, commit);
            p->owner->committed(*p);
        };
        wl_signal_add(&xdg->base().surface()->events.commit, &pending->commit);
        // The client may destroy the wl_surface first only as it disconnects (xdg-shell forbids it otherwise).
        pending->surface_destroyed.notify = [](wl_listener* listener, void*) noexcept {
            Pending* p = wl_container_of(listener, p, surface_destroyed);
            p->owner->forget(p->toplevel);
        };
        wl_signal_add(&xdg->base().surface()->events.destroy, &pending->surface_destroyed);
        pending->toplevel_destroyed.notify = [](wl_listener* listener, void*) noexcept {
            Pending* p = wl_container_of(listener, p, toplevel_destroyed);
            p->owner->forget(p->toplevel);
        };
        wl_resource_add_destroy_listener(toplevel, &pending->toplevel_destroyed);
        it->second = std::move(pending);
    }
    it->second->icon = std::move(pixels);
    it->second->waiting = true;
}

void XdgToplevelIconV1::committed(Pending& pending)
{
    if (!pending.waiting)
        return;
    pending.waiting = false;
    if (xdg::Toplevel* xdg = xdg::Toplevel::from_resource(pending.toplevel))
        apply_(&xdg->base(), pending.icon);
}

void XdgToplevelIconV1::forget(wl_resource* toplevel)
{
    auto it = pending_.find(toplevel);
    if (it == pending_.end())
        return;
    Pending& pending = *it->second;
    wl_list_remove(&pending.commit.link);
    wl_list_remove(&pending.surface_destroyed.link);
    wl_list_remove(&pending.toplevel_destroyed.link);
    pending_.erase(it);
}

}  // namespace kiln::compositor
