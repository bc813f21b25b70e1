// ext-session-lock-v1: the manager global, lock objects, lock surfaces, and the frames that must reach every output
// before `locked` is sent.
#include "compositor/protocols/desktop/ext_session_lock_v1.hpp"

#include "compositor/input/seat_focus.hpp"
#include "compositor/output/output_ring.hpp"
#include "compositor/core.hpp"
#include "compositor/shell/desktop.hpp"

#include "ext-session-lock-v1-protocol.h"

#include <algorithm>
#include <vector>

namespace kiln::compositor {

struct ExtSessionLockV1::Lock {
    ExtSessionLockV1* manager = nullptr;
    wl_resource* resource = nullptr;
    bool locked_sent = false;
};

struct ExtSessionLockV1::LockSurface {
    struct Configure {
        uint32_t serial;
        uint32_t width;
        uint32_t height;
    };

    ExtSessionLockV1* manager = nullptr;
    wl_resource* resource = nullptr;
    Lock* lock = nullptr;           // null once its lock object is gone
    wlr_surface* surface = nullptr;  // null once the wl_surface is gone
    wlr_output* output = nullptr;    // null once its output is gone: never shown again
    wlr_scene_node* node = nullptr;  // in the lock tree; goes with the surface
    std::vector<Configure> configures;  // sent and not yet acknowledged, oldest first
    bool acked = false;
    uint32_t width = 0;  // the size last acknowledged
    uint32_t height = 0;
    uint32_t sent_width = 0;  // the size last sent
    uint32_t sent_height = 0;

    wl::Listener surface_destroy;
    wl::Listener output_destroy;
};

struct ExtSessionLockV1::Pending {
    wlr_output* output = nullptr;
    size_t commits_left = 0;
    wl::Listener commit;
    wl::Listener destroy;
};

// The protocol's requests, with access to the manager's state.
struct SessionLockRequests {
    using Lock = ExtSessionLockV1::Lock;
    using LockSurface = ExtSessionLockV1::LockSurface;

    static void destroy_resource(wl_client*, wl_resource* resource) noexcept { wl_resource_destroy(resource); }
    static LockSurface* lock_surface_from(wlr_surface* surface);

    static void bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
    {
        wl_resource* resource = wl_resource_create(client, &ext_session_lock_manager_v1_interface,
                                                   static_cast<int>(version), id);
        if (!resource) {
            wl_client_post_no_memory(client);
            return;
        }
        wl_resource_set_implementation(resource, &manager_impl, data, nullptr);
    }

    static void lock(wl_client* client, wl_resource* manager_resource, uint32_t id) noexcept
    {
        auto* self = static_cast<ExtSessionLockV1*>(wl_resource_get_user_data(manager_resource));
        wl_resource* resource =
            wl_resource_create(client, &ext_session_lock_v1_interface, wl_resource_get_version(manager_resource), id);
        if (!resource) {
            wl_client_post_no_memory(client);
            return;
        }
        auto lock = std::make_unique<Lock>();
        lock->manager = self;
        lock->resource = resource;
        Lock* raw = lock.get();
        self->locks_.push_back(std::move(lock));
        wl_resource_set_implementation(resource, &lock_impl, raw, [](wl_resource* r) noexcept {
            auto* lock = static_cast<Lock*>(wl_resource_get_user_data(r));
            lock->manager->remove_lock(lock);
        });
        if (self->locked_ && self->owner_) {
            // A live locker holds the session: this one is refused, as the protocol has it.
            ext_session_lock_v1_send_finished(resource);
            return;
        }
        self->lock(*raw);
    }

    static void get_lock_surface(wl_client* client, wl_resource* lock_resource, uint32_t id,
                                 wl_resource* surface_resource, wl_resource* output_resource) noexcept
    {
        auto* lock = static_cast<Lock*>(wl_resource_get_user_data(lock_resource));
        ExtSessionLockV1* self = lock->manager;
        wlr_surface* surface = wlr_surface_from_resource(surface_resource);
        wlr_output* output = wlr_output_from_resource(output_resource);  // null: an output already gone
        if (wlr_surface_has_buffer(surface) || (surface->pending.committed & WLR_SURFACE_STATE_BUFFER)) {
            wl_resource_post_error(lock_resource, EXT_SESSION_LOCK_V1_ERROR_ALREADY_CONSTRUCTED,
                                   "the wl_surface already has a buffer attached or committed");
            return;
        }
        for (const auto& other : self->surfaces_) {
            if (output && other->lock == lock && other->output == output) {
                wl_resource_post_error(lock_resource, EXT_SESSION_LOCK_V1_ERROR_DUPLICATE_OUTPUT,
                                       "this lock already has a surface on output %s", output->name);
                return;
            }
        }
        wl_resource* resource = wl_resource_create(client, &ext_session_lock_surface_v1_interface,
                                                   wl_resource_get_version(lock_resource), id);
        if (!resource) {
            wl_client_post_no_memory(client);
            return;
        }
        auto lock_surface = std::make_unique<LockSurface>();
        LockSurface* raw = lock_surface.get();
        if (!wlr_surface_set_role(surface, &role, raw, lock_resource, EXT_SESSION_LOCK_V1_ERROR_ROLE)) {
            wl_resource_destroy(resource);
            return;
        }
        raw->manager = self;
        raw->resource = resource;
        raw->lock = lock;
        raw->surface = surface;
        raw->output = output;
        raw->node = wlr_scene_subsurface_tree_create(&self->layers_.lock->node, surface);
        wlr_scene_node_set_enabled(raw->node, false);
        raw->surface_destroy.connect(&surface->events.destroy, [raw](void*) {
            raw->surface = nullptr;
            raw->node = nullptr;  // the scene's subsurface tree goes with its surface
            raw->surface_destroy.disconnect();  // the signal is freed with the surface
        });
        if (output) {
            raw->output_destroy.connect(&output->events.destroy, [raw](void*) {
                raw->output = nullptr;
                if (raw->node)
                    wlr_scene_node_set_enabled(raw->node, false);
                raw->output_destroy.disconnect();
            });
        }
        self->surfaces_.push_back(std::move(lock_surface));
        wl_resource_set_implementation(resource, &surface_impl, raw, [](wl_resource* r) noexcept {
            auto* lock_surface = static_cast<LockSurface*>(wl_resource_get_user_data(r));
            lock_surface->manager->remove_surface(lock_surface);
        });
        self->arrange();  // places it and sends its first configure
    }

    static void destroy_lock(wl_client*, wl_resource* resource) noexcept
    {
        auto* lock = static_cast<Lock*>(wl_resource_get_user_data(resource));
        if (lock->locked_sent) {
            wl_resource_post_error(resource, EXT_SESSION_LOCK_V1_ERROR_INVALID_DESTROY,
                                   "the session is locked: unlock_and_destroy, not destroy");
            return;
        }
        // Given up before the session showed locked: the lock is withdrawn.
        if (lock->manager->owner_ == lock)
            lock->manager->unlock();
        wl_resource_destroy(resource);
    }

    static void unlock_and_destroy(wl_client*, wl_resource* resource) noexcept
    {
        auto* lock = static_cast<Lock*>(wl_resource_get_user_data(resource));
        if (!lock->locked_sent) {
            wl_resource_post_error(resource, EXT_SESSION_LOCK_V1_ERROR_INVALID_UNLOCK,
                                   "the locked event was never sent: destroy, not unlock_and_destroy");
            return;
        }
        if (lock->manager->owner_ == lock)
            lock->manager->unlock();
        wl_resource_destroy(resource);
    }

    static void ack_configure(wl_client*, wl_resource* resource, uint32_t serial) noexcept
    {
        auto* surface = static_cast<LockSurface*>(wl_resource_get_user_data(resource));
        auto it = std::find_if(surface->configures.begin(), surface->configures.end(),
                               [serial](const auto& c) { return c.serial == serial; });
        if (it == surface->configures.end()) {
            wl_resource_post_error(resource, EXT_SESSION_LOCK_SURFACE_V1_ERROR_INVALID_SERIAL,
                                   "no configure with serial %u is waiting for an ack", serial);
            return;
        }
        surface->width = it->width;
        surface->height = it->height;
        surface->acked = true;
        surface->configures.erase(surface->configures.begin(), it + 1);  // it and every older one
    }

    static void precommit(wlr_surface* surface) noexcept
    {
        LockSurface* lock_surface = lock_surface_from(surface);
        if (!lock_surface)
            return;
        if (!lock_surface->acked) {
            wl_resource_post_error(lock_surface->resource, EXT_SESSION_LOCK_SURFACE_V1_ERROR_COMMIT_BEFORE_FIRST_ACK,
                                   "committed before acknowledging the first configure");
        } else if ((surface->pending.committed & WLR_SURFACE_STATE_BUFFER) && !surface->pending.buffer) {
            wl_resource_post_error(lock_surface->resource, EXT_SESSION_LOCK_SURFACE_V1_ERROR_NULL_BUFFER,
                                   "a lock surface cannot be unmapped with a null buffer");
        }
    }

    static void commit(wlr_surface* surface) noexcept
    {
        LockSurface* lock_surface = lock_surface_from(surface);
        if (!lock_surface || !wlr_surface_has_buffer(surface))
            return;
        if (static_cast<uint32_t>(surface->current.width) != lock_surface->width ||
            static_cast<uint32_t>(surface->current.height) != lock_surface->height) {
            wl_resource_post_error(lock_surface->resource, EXT_SESSION_LOCK_SURFACE_V1_ERROR_DIMENSIONS_MISMATCH,
                                   "committed %dx%d, configured %ux%u", surface->current.width,
                                   surface->current.height, lock_surface->width, lock_surface->height);
            return;
        }
        lock_surface->manager->focus_lock_surface();
    }

    static constexpr struct ext_session_lock_manager_v1_interface manager_impl{
        .destroy = destroy_resource,
        .lock = lock,
    };
    static constexpr struct ext_session_lock_v1_interface lock_impl{
        .destroy = destroy_lock,
        .get_lock_surface = get_lock_surface,
        .unlock_and_destroy = unlock_and_destroy,
    };
    static constexpr struct ext_session_lock_surface_v1_interface surface_impl{
        .destroy = destroy_resource,
        .ack_configure = ack_configure,
    };
    static constexpr struct wlr_surface_role role{
        .name = "ext_session_lock_surface_v1",
        .commit = commit,
        .precommit = precommit,
    };
};

ExtSessionLockV1::LockSurface* SessionLockRequests::lock_surface_from(wlr_surface* surface)
{
    if (surface->role != &role)
        return nullptr;
    return static_cast<LockSurface*>(surface->role_data);
}

ExtSessionLockV1::ExtSessionLockV1(const Core& core, Desktop& desktop, SeatFocus& seat, const SceneLayers& layers)
    : core_(core),
      desktop_(desktop),
      seat_(seat),
      layers_(layers),
      global_(wl_global_create(core.display, &ext_session_lock_manager_v1_interface, 1, this,
                               &SessionLockRequests::bind))
{
    wlr_scene_node_set_enabled(&layers_.lock->node, false);
    layout_change_.connect(&core.layout->events.change, [this](void*) { arrange(); });
}

ExtSessionLockV1::~ExtSessionLockV1()
{
    // Clients, and so every lock and lock surface resource, are gone before the subsystems.
    pending_.clear();
    wl_global_destroy(global_);
}

void ExtSessionLockV1::lock(Lock& lock)
{
    owner_ = &lock;
    if (locked_) {
        // Taking over from a locker that died: locked at once, unless frames from before the first lock may still
        // be on their way to an output (that locker died quickly), then when they are through.
        send_locked_once_shown();
        return;
    }
    locked_ = true;
    for (wlr_scene_tree* tree : layers_.unlocked())
        wlr_scene_node_set_enabled(&tree->node, false);
    wlr_scene_node_set_enabled(&layers_.lock->node, true);
    desktop_.coverage_changed();  // every window is hidden now
    // No other client keeps the keyboard or the pointer; the pointer finds what is under it now.
    wlr_seat_keyboard_clear_focus(seat_.wlr());
    wlr_seat_pointer_clear_focus(seat_.wlr());
    seat_.scene_changed();
    arrange();
    send_locked_when_shown();
}

void ExtSessionLockV1::unlock()
{
    locked_ = false;
    owner_ = nullptr;
    pending_.clear();
    wlr_scene_node_set_enabled(&layers_.lock->node, false);
    for (wlr_scene_tree* tree : layers_.unlocked())
        wlr_scene_node_set_enabled(&tree->node, true);
    desktop_.coverage_changed();
    wlr_seat_keyboard_clear_focus(seat_.wlr());
    seat_.scene_changed();
    desktop_.restore_focus();
}

void ExtSessionLockV1::send_locked_when_shown()
{
    // Frames drawn before the lock may still be on their way to an output (kiln's ring holds up to
    // OutputRing::capacity); once each output has committed that many since, none of them shows the unlocked
    // session any more.
    pending_.clear();
    wlr_output_layout_output* entry = nullptr;
    wl_list_for_each(entry, &core_.layout->outputs, link)
    {
        wlr_output* output = entry->output;
        if (!output->enabled)
            continue;
        auto pending = std::make_unique<Pending>();
        pending->output = output;
        pending->commits_left = OutputRing::capacity;
        Pending* raw = pending.get();
        raw->commit.connect(&output->events.commit, [this, raw](void* data) {
            if (!(static_cast<wlr_output_event_commit*>(data)->committed & WLR_OUTPUT_STATE_BUFFER))
                return;  // a mode or scale change, no frame
            if (--raw->commits_left > 0) {
                if (wlr_scene_output* scene_output = wlr_scene_get_scene_output(core_.scene, raw->output))
                    wlr_output_damage_add_whole(scene_output->damage);
                return;
            }
            raw->commit.disconnect();
            raw->destroy.disconnect();
            send_locked_once_shown();
        });
        raw->destroy.connect(&output->events.destroy, [this, raw](void*) {
            raw->commit.disconnect();
            raw->destroy.disconnect();
            send_locked_once_shown();
        });
        if (wlr_scene_output* scene_output = wlr_scene_get_scene_output(core_.scene, output))
            wlr_output_damage_add_whole(scene_output->damage);
        pending_.push_back(std::move(pending));
    }
    send_locked_once_shown();
}

void ExtSessionLockV1::send_locked_once_shown()
{
    for (const auto& pending : pending_)
        if (pending->commit.connected())
            return;
    if (owner_ && !owner_->locked_sent) {
        owner_->locked_sent = true;
        ext_session_lock_v1_send_locked(owner_->resource);
    }
}

void ExtSessionLockV1::remove_lock(Lock* lock)
{
    // A lock whose client died while holding the session leaves it locked: owner_ goes, locked_ stays.
    if (owner_ == lock)
        owner_ = nullptr;
    for (const auto& surface : surfaces_)
        if (surface->lock == lock)
            surface->lock = nullptr;
    locks_.erase(lock);
}

void ExtSessionLockV1::remove_surface(LockSurface* surface)
{
    wlr_seat* seat = seat_.wlr();
    const bool had_keyboard = surface->surface && seat->keyboard_state.focused_surface == surface->surface;
    if (surface->surface) {
        surface->surface->role_data = nullptr;  // the wl_surface keeps the role, inert
        if (surface->node)
            wlr_scene_node_destroy(surface->node);
    }
    surfaces_.erase(surface);
    if (had_keyboard) {
        wlr_seat_keyboard_clear_focus(seat);
        focus_lock_surface();
    }
}

void ExtSessionLockV1::arrange()
{
    for (const auto& surface : surfaces_) {
        if (!surface->node)
            continue;
        const wlr_box* box = surface->output ? wlr_output_layout_get_box(core_.layout, surface->output) : nullptr;
        const bool shown = box && locked_ && owner_ && surface->lock == owner_;
        wlr_scene_node_set_enabled(surface->node, shown);
        if (!box)
            continue;
        wlr_scene_node_set_position(surface->node, box->x, box->y);
        const auto width = static_cast<uint32_t>(box->width);
        const auto height = static_cast<uint32_t>(box->height);
        if (surface->sent_width == width && surface->sent_height == height)
            continue;  // this size was sent already (a lock surface is never 0x0, so the first one always goes)
        const uint32_t serial = wl_display_next_serial(core_.display);
        surface->configures.push_back({serial, width, height});
        surface->sent_width = width;
        surface->sent_height = height;
        ext_session_lock_surface_v1_send_configure(surface->resource, serial, width, height);
    }
}

void ExtSessionLockV1::focus_lock_surface()
{
    if (!locked_ || !owner_)
        return;
    wlr_surface* focused = seat_.wlr()->keyboard_state.focused_surface;
    for (const auto& surface : surfaces_)
        if (surface->surface && surface->surface == focused && surface->lock == owner_)
            return;
    for (const auto& surface : surfaces_) {
        if (surface->lock == owner_ && surface->surface && wlr_surface_has_buffer(surface->surface)) {
            seat_.focus_keyboard(surface->surface);
            return;
        }
    }
}

}  // namespace kiln::compositor
