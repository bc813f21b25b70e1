// xdg-foreign v1 and v2: exported handles, imports, and the parent links imports set up and take back.
#include "compositor/protocols/desktop/xdg_foreign.hpp"
#include "compositor/shell/xdg/xdg_surface.hpp"

#include "compositor/indexed_list.hpp"
#include "compositor/listener.hpp"

// v1's export request is named `export`, a C++ keyword: kiln reads it as `export_`.
#define export export_
#include "xdg-foreign-unstable-v1-protocol.h"
#undef export
#include "xdg-foreign-unstable-v2-protocol.h"

#include <sys/random.h>

#include <algorithm>
#include <list>
#include <memory>
#include <new>
#include <vector>

namespace kiln::compositor {

namespace {

// Both versions' events are opcode 0 and both objects' invalid_surface error is 0 (v1 names none; kiln uses 0 too).
constexpr uint32_t handle_event = 0;
constexpr uint32_t destroyed_event = 0;
constexpr uint32_t invalid_surface = 0;

struct Imported;

// One toplevel of the importing client whose parent an import set. Kept by its wl_surface, which outlives every
// role object (the xdg_surface may be destroyed and made again); its xdg_toplevel is looked up at each use.
struct Child {
    wlr_surface* surface;
    wl::Listener destroy;
};

// Children are found by their surface.
struct ChildSurface {
    const void* operator()(const std::unique_ptr<Child>& child) const { return child->surface; }
};

struct Imported {
    wl_resource* resource = nullptr;
    XdgForeign::Exported* exported = nullptr;  // null: inert (bad handle, or the export is gone)
    IndexedList<std::unique_ptr<Child>, ChildSurface> children;
    // The exported toplevel its children were given as parent, while it lives: wlroots' parent links point at it,
    // so they are taken back when it goes (its destroy comes before it is freed, for a toplevel that was added).
    xdg::Surface* parent = nullptr;
    wl::Listener parent_destroy;
};

// A surface's xdg_toplevel as the xdg surface it is, or null when it has none now.
xdg::Surface* toplevel_of(wlr_surface* surface)
{
    xdg::Surface* xdg = xdg::Surface::from(surface);
    return xdg && xdg->role() == xdg::Role::toplevel ? xdg : nullptr;
}

xdg::Surface* toplevel_of(wl_resource* surface_resource)
{
    return toplevel_of(wlr_surface_from_resource(surface_resource));
}

// The children still linked to the import's parent are unlinked, and the import stops watching that parent.
void release_parent(Imported* imported)
{
    if (imported->parent)
        for (const auto& child : imported->children)
            if (xdg::Surface* xdg = toplevel_of(child->surface);
                xdg && xdg->toplevel()->parent() == imported->parent->toplevel())
                xdg->toplevel()->set_parent(nullptr);
    imported->parent = nullptr;
    imported->parent_destroy.disconnect();
}

std::string random_handle()
{
    unsigned char bytes[16] = {};
    size_t got = 0;
    while (got < sizeof(bytes)) {
        const ssize_t n = getrandom(bytes + got, sizeof(bytes) - got, 0);
        if (n <= 0)
            break;  // getrandom does not fail for 16 bytes once the pool is up; zeros would still be unique below
        got += static_cast<size_t>(n);
    }
    static const char digits[] = "0123456789abcdef";
    std::string handle;
    for (unsigned char b : bytes) {
        handle += digits[b >> 4];
        handle += digits[b & 15];
    }
    return handle;
}

}  // namespace

struct XdgForeign::Exported {
    XdgForeign* owner = nullptr;
    wl_resource* resource = nullptr;
    wlr_surface* surface = nullptr;  // the exported toplevel's surface; null once it is gone
    std::string handle;
    IndexedList<Imported*> imports;
    wl::Listener surface_destroy;
};

namespace {

using Exported = XdgForeign::Exported;

// An import lets go: its children's parent links back to nothing (where the link is still its), and its export
// forgets it. With `tell`, the client hears that the import is dead.
void invalidate(Imported* imported, bool tell)
{
    release_parent(imported);
    imported->children.clear();
    if (Exported* exported = imported->exported) {
        exported->imports.remove(imported);
        imported->exported = nullptr;
    }
    if (tell)
        wl_resource_post_event(imported->resource, destroyed_event);
}

// The export ends (its toplevel went, or its resource): every import of it is told, and the handle is forgotten.
void end_export(Exported* exported)
{
    while (!exported->imports.empty())
        invalidate(exported->imports.front(), true);
    if (exported->owner)
        exported->owner->remove(exported);
    exported->surface_destroy.disconnect();
    exported->surface = nullptr;
}

void destroy_resource(wl_client*, wl_resource* resource) noexcept
{
    wl_resource_destroy(resource);
}

void exported_resource_destroyed(wl_resource* resource) noexcept
{
    auto* exported = static_cast<Exported*>(wl_resource_get_user_data(resource));
    end_export(exported);
    delete exported;
}

void imported_resource_destroyed(wl_resource* resource) noexcept
{
    auto* imported = static_cast<Imported*>(wl_resource_get_user_data(resource));
    invalidate(imported, false);
    delete imported;
}

void set_parent_of(wl_client*, wl_resource* resource, wl_resource* surface_resource) noexcept
{
    auto* imported = static_cast<Imported*>(wl_resource_get_user_data(resource));
    wlr_surface* child_surface = wlr_surface_from_resource(surface_resource);
    xdg::Surface* child = toplevel_of(child_surface);
    if (!child) {
        wl_resource_post_error(resource, invalid_surface, "set_parent_of needs an xdg_toplevel's surface");
        return;
    }
    Exported* exported = imported->exported;
    xdg::Surface* parent = exported ? toplevel_of(exported->surface) : nullptr;
    // An inert import sets nothing; nor does a parent that has never been committed as a toplevel (wlroots would
    // free it without a destroy event, leaving the child's link dangling), nor a window as its own parent.
    if (!parent || !parent->added() || parent == child)
        return;
    if (imported->parent != parent) {
        release_parent(imported);
        imported->parent = parent;
        imported->parent_destroy.connect(&parent->events.destroy, [imported](void*) { release_parent(imported); });
    }
    child->toplevel()->set_parent(parent->toplevel());  // a loop is refused: the link is left as it was
    if (imported->children.contains(child_surface))
        return;
    auto entry = std::make_unique<Child>();
    entry->surface = child_surface;
    Child* raw = entry.get();
    // wlroots drops a destroyed toplevel's parent link itself; the import only forgets the child.
    entry->destroy.connect(&child_surface->events.destroy, [imported, raw](void*) {
        imported->children.erase(raw->surface);
    });
    imported->children.push_back(std::move(entry));
}

const struct zxdg_exported_v1_interface exported_v1_requests = {.destroy = destroy_resource};
const struct zxdg_exported_v2_interface exported_v2_requests = {.destroy = destroy_resource};
const struct zxdg_imported_v1_interface imported_v1_requests = {.destroy = destroy_resource,
                                                                 .set_parent_of = set_parent_of};
const struct zxdg_imported_v2_interface imported_v2_requests = {.destroy = destroy_resource,
                                                                 .set_parent_of = set_parent_of};

// What differs between v1 and v2: the interfaces and request tables.
struct Flavour {
    const wl_interface* exported;
    const void* exported_requests;
    const wl_interface* imported;
    const void* imported_requests;
};
const Flavour v1 = {&zxdg_exported_v1_interface, &exported_v1_requests, &zxdg_imported_v1_interface,
                    &imported_v1_requests};
const Flavour v2 = {&zxdg_exported_v2_interface, &exported_v2_requests, &zxdg_imported_v2_interface,
                    &imported_v2_requests};

template <const Flavour& F>
void export_toplevel(wl_client* client, wl_resource* exporter, uint32_t id, wl_resource* surface_resource) noexcept
{
    auto* owner = static_cast<XdgForeign*>(wl_resource_get_user_data(exporter));
    xdg::Surface* xdg = toplevel_of(surface_resource);
    if (!xdg) {
        wl_resource_post_error(exporter, invalid_surface, "only an xdg_toplevel's surface can be exported");
        return;
    }
    auto* exported = new (std::nothrow) Exported();
    wl_resource* resource =
        exported ? wl_resource_create(client, F.exported, wl_resource_get_version(exporter), id) : nullptr;
    if (!resource) {
        delete exported;
        wl_client_post_no_memory(client);
        return;
    }
    exported->resource = resource;
    exported->surface = xdg->surface();
    do
        exported->handle = random_handle();
    while (owner->find(exported->handle));
    owner->add(exported);
    wl_resource_set_implementation(resource, F.exported_requests, exported, exported_resource_destroyed);
    // The surface going ends the export (a toplevel role made again on it is still the exported window).
    exported->surface_destroy.connect(&xdg->surface()->events.destroy, [exported](void*) { end_export(exported); });
    wl_resource_post_event(resource, handle_event, exported->handle.c_str());
}

template <const Flavour& F>
void import_toplevel(wl_client* client, wl_resource* importer, uint32_t id, const char* handle) noexcept
{
    auto* owner = static_cast<XdgForeign*>(wl_resource_get_user_data(importer));
    auto* imported = new (std::nothrow) Imported();
    wl_resource* resource =
        imported ? wl_resource_create(client, F.imported, wl_resource_get_version(importer), id) : nullptr;
    if (!resource) {
        delete imported;
        wl_client_post_no_memory(client);
        return;
    }
    imported->resource = resource;
    wl_resource_set_implementation(resource, F.imported_requests, imported, imported_resource_destroyed);
    Exported* exported = owner->find(handle);
    if (!exported) {
        wl_resource_post_event(resource, destroyed_event);  // no such handle: inert from the start
        return;
    }
    imported->exported = exported;
    exported->imports.push_back(imported);
}

const struct zxdg_exporter_v1_interface exporter_v1_requests = {.destroy = destroy_resource,
                                                                 .export_ = export_toplevel<v1>};
const struct zxdg_exporter_v2_interface exporter_v2_requests = {.destroy = destroy_resource,
                                                                 .export_toplevel = export_toplevel<v2>};
const struct zxdg_importer_v1_interface importer_v1_requests = {.destroy = destroy_resource,
                                                                 .import = import_toplevel<v1>};
const struct zxdg_importer_v2_interface importer_v2_requests = {.destroy = destroy_resource,
                                                                 .import_toplevel = import_toplevel<v2>};

template <const wl_interface* Interface, auto Requests>
void bind_global(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
{
    wl_resource* resource = wl_resource_create(client, Interface, static_cast<int>(version), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    wl_resource_set_implementation(resource, Requests, data, nullptr);
}

}  // namespace

XdgForeign::XdgForeign(wl_display* display)
    : exporter_v1_(wl_global_create(display, &zxdg_exporter_v1_interface, 1, this,
                                    bind_global<&zxdg_exporter_v1_interface, &exporter_v1_requests>)),
      importer_v1_(wl_global_create(display, &zxdg_importer_v1_interface, 1, this,
                                    bind_global<&zxdg_importer_v1_interface, &importer_v1_requests>)),
      exporter_v2_(wl_global_create(display, &zxdg_exporter_v2_interface, 1, this,
                                    bind_global<&zxdg_exporter_v2_interface, &exporter_v2_requests>)),
      importer_v2_(wl_global_create(display, &zxdg_importer_v2_interface, 1, this,
                                    bind_global<&zxdg_importer_v2_interface, &importer_v2_requests>))
{
}

XdgForeign::~XdgForeign()
{
    // Clients are gone before kiln's globals, so nothing is exported any more; should one be, it lets go of us.
    for (auto& [handle, exported] : exported_)
        exported->owner = nullptr;
    for (wl_global* global : {exporter_v1_, importer_v1_, exporter_v2_, importer_v2_})
        if (global)
            wl_global_destroy(global);
}

XdgForeign::Exported* XdgForeign::find(const std::string& handle) const
{
    auto it = exported_.find(handle);
    return it == exported_.end() ? nullptr : it->second;
}

void XdgForeign::add(Exported* exported)
{
    exported->owner = this;
    exported_[exported->handle] = exported;
}

void XdgForeign::remove(Exported* exported)
{
    exported_.erase(exported->handle);
    exported->owner = nullptr;
}

}  // namespace kiln::compositor
