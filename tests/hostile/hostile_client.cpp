// kiln-hostile-client CASE: breaks the Wayland protocol in one named way, then prints how the compositor answered
// as its last line: "protocol-error IFACE CODE", "disconnected ERRNO" or "connected". Exit 0 when the case ran,
// 1 when it could not (no compositor, missing globals), 2 for an unknown case.
#include "tests/hostile/hostile_connection.hpp"
#include "tests/hostile/limit_cases.hpp"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <poll.h>
#include <string>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace kiln::hostile;

namespace {

// An interface with only a name and a version: enough to ask the registry for a global kiln hides.
const wl_interface screencopy_manager_name_only = {"zwlr_screencopy_manager_v1", 1, 0, nullptr, 0, nullptr};

const std::map<std::string, Case> cases = {
    // --- popups and parents ---
    {"popup-null-parent", [](Connection& c) {
         // xdg-shell allows a null parent (another protocol may name it); kiln has none, so nothing is shown.
         c.make_popup_surface(wl_compositor_create_surface(c.compositor), nullptr);
         return c.outcome();
     }},
    {"popup-roleless-parent", [](Connection& c) {
         // The parent is an xdg_surface that never got a role: not a toplevel, not a popup.
         xdg_surface* parent = xdg_wm_base_get_xdg_surface(c.wm_base, wl_compositor_create_surface(c.compositor));
         c.make_popup_surface(wl_compositor_create_surface(c.compositor), parent);
         return c.outcome();
     }},
    {"popup-nested-null-parent", [](Connection& c) {
         // A popup of a popup whose own parent was null: the grandparent has no scene node.
         wl_surface* first = wl_compositor_create_surface(c.compositor);
         xdg_surface* parent = c.make_popup_surface(first, nullptr);
         c.roundtrip();
         wl_surface_attach(first, c.make_buffer(32, 32), 0, 0);
         wl_surface_commit(first);
         c.make_popup_surface(wl_compositor_create_surface(c.compositor), parent);
         return c.outcome();
     }},
    {"popup-parent-destroyed", [](Connection& c) {
         // The toplevel's surface goes while its popup is open and shown.
         Toplevel t = c.make_toplevel();
         wl_surface* surface = wl_compositor_create_surface(c.compositor);
         c.make_popup_surface(surface, t.xdg);
         c.roundtrip();
         wl_surface_attach(surface, c.make_buffer(32, 32), 0, 0);
         wl_surface_commit(surface);
         c.roundtrip();
         xdg_toplevel_destroy(t.toplevel);
         xdg_surface_destroy(t.xdg);
         wl_surface_destroy(t.surface);
         wl_surface_commit(surface);
         return c.outcome();
     }},
    {"popup-surface-destroyed", [](Connection& c) {
         // The popup's wl_surface goes before its xdg_popup and xdg_surface, which are then used.
         Toplevel t = c.make_toplevel();
         wl_surface* surface = wl_compositor_create_surface(c.compositor);
         xdg_popup* popup = nullptr;
         xdg_surface* xdg = c.make_popup_surface(surface, t.xdg, &popup);
         c.roundtrip();
         wl_surface_attach(surface, c.make_buffer(32, 32), 0, 0);
         wl_surface_commit(surface);
         c.roundtrip();
         wl_surface_destroy(surface);
         xdg_popup_grab(popup, c.seat, 0);
         xdg_surface_set_window_geometry(xdg, 0, 0, 8, 8);
         wl_surface_commit(t.surface);
         return c.outcome();
     }},
    {"popup-parent-role-destroyed", [](Connection& c) {
         // The parent's xdg_toplevel is destroyed (its xdg_surface stays, role-less); then it is named as a parent.
         Toplevel t = c.make_toplevel();
         c.roundtrip();
         xdg_toplevel_destroy(t.toplevel);
         wl_surface_attach(t.surface, nullptr, 0, 0);
         wl_surface_commit(t.surface);
         c.roundtrip();
         wl_surface* surface = wl_compositor_create_surface(c.compositor);
         c.make_popup_surface(surface, t.xdg);
         c.roundtrip();
         wl_surface_attach(surface, c.make_buffer(32, 32), 0, 0);
         wl_surface_commit(surface);
         return c.outcome();
     }},
    {"set-parent-self", [](Connection& c) {
         Toplevel t = c.make_toplevel();
         xdg_toplevel_set_parent(t.toplevel, t.toplevel);
         wl_surface_commit(t.surface);
         return c.outcome();
     }},
    {"set-parent-destroyed", [](Connection& c) {
         Toplevel parent = c.make_toplevel();
         Toplevel child = c.make_toplevel();
         xdg_toplevel_set_parent(child.toplevel, parent.toplevel);
         wl_surface_commit(child.surface);
         c.roundtrip();
         xdg_toplevel_destroy(parent.toplevel);
         xdg_surface_destroy(parent.xdg);
         wl_surface_destroy(parent.surface);
         c.roundtrip();
         xdg_toplevel_set_fullscreen(child.toplevel, nullptr);
         wl_surface_commit(child.surface);
         return c.outcome();
     }},
    // --- wl_shm ---
    {"shm-short-stride", [](Connection& c) {
         // stride >= width passes libwayland's check, but a 256-pixel ARGB row is 1024 bytes, not 256: the pool
         // holds a quarter of what an upload would read.
         Toplevel t = c.make_toplevel(false);
         Pool pool = c.make_pool(256 * 256);
         wl_buffer* buffer = wl_shm_pool_create_buffer(pool.pool, 0, 256, 256, 256, WL_SHM_FORMAT_ARGB8888);
         wl_surface_attach(t.surface, buffer, 0, 0);
         wl_surface_damage(t.surface, 0, 0, 256, 256);
         wl_surface_commit(t.surface);
         return c.outcome();
     }},
    {"shm-pool-size-zero", [](Connection& c) {
         c.make_pool(0, 4096);
         return c.outcome();
     }},
    {"shm-negative-offset", [](Connection& c) {
         Pool pool = c.make_pool(64 * 64 * 4);
         wl_shm_pool_create_buffer(pool.pool, -64, 64, 64, 256, WL_SHM_FORMAT_ARGB8888);
         return c.outcome();
     }},
    {"shm-sigbus", [](Connection& c) {
         // The memfd shrinks under a pool kiln has mapped: reading the buffer would raise SIGBUS.
         Toplevel t = c.make_toplevel(false);
         Pool pool = c.make_pool(64 * 64 * 4);
         wl_buffer* buffer = wl_shm_pool_create_buffer(pool.pool, 0, 64, 64, 256, WL_SHM_FORMAT_ARGB8888);
         c.roundtrip();
         if (ftruncate(pool.fd, 0) != 0)
             return std::string("setup-failed ftruncate");
         wl_surface_attach(t.surface, buffer, 0, 0);
         wl_surface_damage(t.surface, 0, 0, 64, 64);
         wl_surface_commit(t.surface);
         return c.outcome();
     }},
    {"huge-surface", [](Connection& c) {
         // 16384x16384 ARGB: 1 GiB of (sparse) pool; kiln must neither crash nor fall over.
         Toplevel t = c.make_toplevel(false);
         const int32_t side = 16384;
         Pool pool = c.make_pool(side * side * 4);
         wl_buffer* buffer = wl_shm_pool_create_buffer(pool.pool, 0, side, side, side * 4, WL_SHM_FORMAT_XRGB8888);
         wl_surface_attach(t.surface, buffer, 0, 0);
         wl_surface_damage(t.surface, 0, 0, side, side);
         wl_surface_commit(t.surface);
         return c.outcome(5);
     }},
    // --- foreign objects, enums and sizes ---
    {"attach-foreign-object", [](Connection& c) {
         // A wl_region where a wl_buffer belongs.
         Toplevel t = c.make_toplevel(false);
         wl_region* region = wl_compositor_create_region(c.compositor);
         wl_surface_attach(t.surface, reinterpret_cast<wl_buffer*>(region), 0, 0);
         wl_surface_commit(t.surface);
         return c.outcome();
     }},
    {"geometry-negative", [](Connection& c) {
         Toplevel t = c.make_toplevel();
         xdg_surface_set_window_geometry(t.xdg, -50, -50, -100, -100);
         wl_surface_commit(t.surface);
         return c.outcome();
     }},
    {"scale-huge", [](Connection& c) {
         Toplevel t = c.make_toplevel();
         wl_surface_set_buffer_scale(t.surface, 1 << 30);
         wl_surface_commit(t.surface);
         return c.outcome();
     }},
    {"scale-zero", [](Connection& c) {
         Toplevel t = c.make_toplevel();
         wl_surface_set_buffer_scale(t.surface, 0);
         wl_surface_commit(t.surface);
         return c.outcome();
     }},
    {"transform-invalid", [](Connection& c) {
         Toplevel t = c.make_toplevel();
         wl_surface_set_buffer_transform(t.surface, 99);
         wl_surface_commit(t.surface);
         return c.outcome();
     }},
    {"viewport-huge-destination", [](Connection& c) {
         // A 64x64 buffer stretched to 2^30 x 2^30 surface pixels.
         if (!c.viewporter)
             return std::string("setup-failed no wp_viewporter");
         Toplevel t = c.make_toplevel();
         wp_viewport* viewport = wp_viewporter_get_viewport(c.viewporter, t.surface);
         wp_viewport_set_destination(viewport, 1 << 30, 1 << 30);
         wl_surface_commit(t.surface);
         return c.outcome(5);
     }},
    {"viewport-source-outside", [](Connection& c) {
         // A source rectangle far outside the 64x64 buffer.
         if (!c.viewporter)
             return std::string("setup-failed no wp_viewporter");
         Toplevel t = c.make_toplevel();
         wp_viewport* viewport = wp_viewporter_get_viewport(c.viewporter, t.surface);
         wp_viewport_set_source(viewport, wl_fixed_from_int(1000), wl_fixed_from_int(1000), wl_fixed_from_int(10),
                                wl_fixed_from_int(10));
         wl_surface_attach(t.surface, c.make_buffer(64, 64), 0, 0);
         wl_surface_commit(t.surface);
         return c.outcome();
     }},
    // --- roles ---
    {"subsurface-then-xdg", [](Connection& c) {
         // A surface that is already a subsurface asks for the xdg_toplevel role too.
         Toplevel t = c.make_toplevel();
         wl_surface* child = wl_compositor_create_surface(c.compositor);
         wl_subcompositor_get_subsurface(c.subcompositor, child, t.surface);
         xdg_surface* xdg = xdg_wm_base_get_xdg_surface(c.wm_base, child);
         xdg_surface_get_toplevel(xdg);
         wl_surface_commit(child);
         return c.outcome();
     }},
    {"subsurface-cycle", [](Connection& c) {
         // Two role-less surfaces, each the other's subsurface parent, under a shown toplevel.
         Toplevel t = c.make_toplevel();
         wl_surface* a = wl_compositor_create_surface(c.compositor);
         wl_surface* b = wl_compositor_create_surface(c.compositor);
         wl_subcompositor_get_subsurface(c.subcompositor, a, b);
         wl_subcompositor_get_subsurface(c.subcompositor, b, a);
         wl_surface_attach(a, c.make_buffer(16, 16), 0, 0);
         wl_surface_commit(a);
         wl_surface_commit(b);
         wl_surface_commit(t.surface);
         return c.outcome();
     }},
    {"two-roles", [](Connection& c) {
         // One xdg_surface made both a toplevel and a popup.
         Toplevel parent = c.make_toplevel();
         Toplevel t = c.make_toplevel(false);
         xdg_positioner* positioner = xdg_wm_base_create_positioner(c.wm_base);
         xdg_positioner_set_size(positioner, 32, 32);
         xdg_positioner_set_anchor_rect(positioner, 0, 0, 1, 1);
         xdg_surface_get_popup(t.xdg, parent.xdg, positioner);
         wl_surface_commit(t.surface);
         return c.outcome();
     }},
    // --- objects destroyed while in use ---
    {"buffer-destroyed-while-shown", [](Connection& c) {
         Toplevel t = c.make_toplevel(false);
         wl_buffer* buffer = c.make_buffer(64, 64);
         wl_surface_attach(t.surface, buffer, 0, 0);
         wl_surface_commit(t.surface);
         c.roundtrip();
         wl_buffer_destroy(buffer);
         wl_surface_damage(t.surface, 0, 0, 64, 64);
         wl_surface_commit(t.surface);
         c.roundtrip();
         return c.outcome();
     }},
    {"xdg-surface-destroyed-first", [](Connection& c) {
         // The xdg_surface goes while its toplevel is alive and mapped; then the toplevel is used.
         Toplevel t = c.make_toplevel();
         c.roundtrip();
         xdg_surface_destroy(t.xdg);
         xdg_toplevel_set_title(t.toplevel, "orphan");
         wl_surface_commit(t.surface);
         return c.outcome();
     }},
    {"surface-destroyed-first", [](Connection& c) {
         // The wl_surface goes while its xdg_surface and toplevel are alive.
         Toplevel t = c.make_toplevel();
         c.roundtrip();
         wl_surface_destroy(t.surface);
         xdg_toplevel_set_title(t.toplevel, "orphan");
         return c.outcome();
     }},
    {"roleless-surface-destroyed", [](Connection& c) {
         // The wl_surface of an xdg_surface without a role goes; then the xdg_surface is given one.
         wl_surface* surface = wl_compositor_create_surface(c.compositor);
         xdg_surface* xdg = xdg_wm_base_get_xdg_surface(c.wm_base, surface);
         c.roundtrip();
         wl_surface_destroy(surface);
         xdg_surface_get_toplevel(xdg);
         return c.outcome();
     }},
    // --- seat requests with null objects ---
    {"selection-null", [](Connection& c) {
         if (!c.seat || !c.data_device_manager)
             return std::string("setup-failed no seat");
         c.make_toplevel();
         c.roundtrip();
         wl_data_device* device = wl_data_device_manager_get_data_device(c.data_device_manager, c.seat);
         wl_data_device_set_selection(device, nullptr, 0);
         wl_data_source* source = wl_data_device_manager_create_data_source(c.data_device_manager);
         wl_data_source_offer(source, "text/plain");
         wl_data_device_set_selection(device, source, 1);
         wl_data_source_destroy(source);
         wl_data_device_set_selection(device, nullptr, 2);
         return c.outcome();
     }},
    {"cursor-null-surface", [](Connection& c) {
         if (!c.seat)
             return std::string("setup-failed no seat");
         Toplevel t = c.make_toplevel();
         wl_pointer* pointer = wl_seat_get_pointer(c.seat);
         wl_pointer_set_cursor(pointer, 0, nullptr, 0, 0);
         // And a cursor surface that already has the toplevel role.
         wl_pointer_set_cursor(pointer, 0, t.surface, 0, 0);
         return c.outcome();
     }},
    // --- floods ---
    {"commit-flood", [](Connection& c) {
         Toplevel t = c.make_toplevel();
         wl_buffer* buffer = c.make_buffer(64, 64, 0xffc03060);
         for (int i = 0; i < 10000; ++i) {
             wl_surface_attach(t.surface, buffer, 0, 0);
             wl_surface_damage(t.surface, i % 64, 0, 1, 64);
             wl_surface_commit(t.surface);
             if (i % 200 == 0 && !flush_all(c.display))
                 break;
         }
         return c.outcome(5);
     }},
    {"never-read", [](Connection& c) {
         // Asks for far more events than a socket holds and never reads them.
         for (int i = 0; i < 4000; ++i) {
             wl_display_get_registry(c.display);
             if (i % 50 == 0 && !flush_all(c.display))
                 break;
         }
         flush_all(c.display);
         std::this_thread::sleep_for(std::chrono::seconds(3));
         return c.outcome(1);
     }},
    {"many-surfaces", [](Connection& c) {
         // 2,000 mapped toplevels, all from one pool.
         const int count = 2000;
         Pool pool = c.make_pool(16 * 16 * 4);
         wl_buffer* buffer = wl_shm_pool_create_buffer(pool.pool, 0, 16, 16, 64, WL_SHM_FORMAT_ARGB8888);
         std::vector<Toplevel> toplevels(count);
         for (auto& t : toplevels) {
             t.surface = wl_compositor_create_surface(c.compositor);
             t.xdg = xdg_wm_base_get_xdg_surface(c.wm_base, t.surface);
             t.toplevel = xdg_surface_get_toplevel(t.xdg);
             static const xdg_surface_listener ack = {
                 [](void*, xdg_surface* s, uint32_t serial) { xdg_surface_ack_configure(s, serial); }};
             xdg_surface_add_listener(t.xdg, &ack, nullptr);
             wl_surface_commit(t.surface);
         }
         c.roundtrip();
         // The last one (on top) asks for a frame: done means kiln has drawn a frame with all 2,000 in the scene.
         bool drawn = false;
         static const wl_callback_listener done = {
             [](void* data, wl_callback*, uint32_t) { *static_cast<bool*>(data) = true; }};
         wl_callback_add_listener(wl_surface_frame(toplevels.back().surface), &done, &drawn);
         for (auto& t : toplevels) {
             wl_surface_attach(t.surface, buffer, 0, 0);
             wl_surface_commit(t.surface);
             if (!flush_all(c.display))
                 break;
         }
         while (!drawn && wl_display_dispatch(c.display) >= 0) {
         }
         if (!drawn)
             return c.outcome(0);
         std::printf("drawn\n");
         return c.outcome(5);
     }},
    // --- privileged globals ---
    {"bind-screencopy", [](Connection& c) {
         // Binds wlr-screencopy when announced; when not, asks for an unannounced name below the highest one
         // (where kiln's hidden global would be), which the registry must refuse.
         uint32_t highest = 0;
         for (const auto& [name, interface] : c.globals) {
             highest = name > highest ? name : highest;
             if (interface == screencopy_manager_name_only.name) {
                 wl_registry_bind(c.registry, name, &screencopy_manager_name_only, 1);
                 std::printf("screencopy announced\n");
                 return c.outcome();
             }
         }
         std::printf("screencopy not announced\n");
         for (uint32_t name = 1; name < highest; ++name)
             if (!c.globals.contains(name)) {
                 std::printf("binding unannounced name %u\n", name);
                 wl_registry_bind(c.registry, name, &screencopy_manager_name_only, 1);
                 return c.outcome();
             }
         return std::string("no-unannounced-name");
     }},
};

// Connect, show a window, disconnect; `cycles` times. Each cycle uses a fresh connection.
int churn(int cycles)
{
    for (int i = 0; i < cycles; ++i) {
        Connection c;
        if (!c.ok()) {
            std::printf("cycle %d: cannot connect\n", i);
            return 1;
        }
        // Mapped and drawn: the frame callback is done once kiln has rendered a frame with the window in it.
        Toplevel t = c.make_toplevel(false);
        bool drawn = false;
        static const wl_callback_listener done = {
            [](void* data, wl_callback*, uint32_t) { *static_cast<bool*>(data) = true; }};
        wl_callback_add_listener(wl_surface_frame(t.surface), &done, &drawn);
        wl_surface_attach(t.surface, c.make_buffer(32, 32), 0, 0);
        wl_surface_damage(t.surface, 0, 0, 32, 32);
        wl_surface_commit(t.surface);
        while (!drawn && wl_display_dispatch(c.display) >= 0) {
        }
        if (!drawn || !c.roundtrip()) {
            std::printf("cycle %d: %s\n", i, c.outcome(0).c_str());
            return 1;
        }
    }
    std::printf("churned %d\n", cycles);
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    const std::string name = argc > 1 ? argv[1] : "";
    if (name == "churn" && argc == 3)
        return churn(std::atoi(argv[2]));
    const Case* found = nullptr;
    for (const auto* table : {&cases, &limit_cases()})
        if (auto it = table->find(name); it != table->end())
            found = &it->second;
    if (!found) {
        std::fprintf(stderr, "usage: %s CASE | churn CYCLES\ncases:", argv[0]);
        for (const auto* table : {&cases, &limit_cases()})
            for (const auto& [case_name, fn] : *table)
                std::fprintf(stderr, " %s", case_name.c_str());
        std::fprintf(stderr, "\n");
        return 2;
    }
    Connection c;
    if (!c.ok()) {
        std::printf("cannot connect (errno %d) or missing globals (compositor %d subcompositor %d shm %d "
                    "xdg_wm_base %d)\n",
                    c.display ? wl_display_get_error(c.display) : errno, c.compositor != nullptr,
                    c.subcompositor != nullptr, c.shm != nullptr, c.wm_base != nullptr);
        return 1;
    }
    const std::string result = (*found)(c);
    std::printf("%s\n", result.c_str());
    std::fflush(stdout);
    return 0;
}
