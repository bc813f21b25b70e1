// wp_linux_drm_syncobj_manager_v1: timelines imported as DRM syncobj handles, per-surface acquire/release points
// checked at commit (every protocol error) and handed to output/sync/: the acquire point to the commit gate, the
// release point to the commit's BufferRelease once the commit is applied.
#include "compositor/protocols/buffers/linux_drm_syncobj_v1.hpp"

#include "linux-drm-syncobj-v1-protocol.h"

#include <xf86drm.h>

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace kiln::compositor {

// Lives until both its resource and its surface are gone, so release points of commits made before the object was
// destroyed still reach their buffers ("points set before the last commit are not affected").
struct LinuxDrmSyncobjV1::SurfaceSync {
    LinuxDrmSyncobjV1* owner = nullptr;
    wl_resource* resource = nullptr;
    wlr_surface* surface = nullptr;
    Point acquire;  // pending, for the next commit
    Point release;
    std::map<uint32_t, Point> releases_by_seq;  // committed but not applied yet, by the surface state's seq
    wl::Listener surface_commit;
    wl::Listener surface_destroy;
};

namespace {

LinuxDrmSyncobjV1::Point* point_slot(LinuxDrmSyncobjV1::SurfaceSync& sync, bool acquire)
{
    return acquire ? &sync.acquire : &sync.release;
}

std::shared_ptr<LinuxDrmSyncobjV1::Timeline> timeline_from(wl_resource* resource)
{
    return *static_cast<std::shared_ptr<LinuxDrmSyncobjV1::Timeline>*>(wl_resource_get_user_data(resource));
}

}  // namespace

// Request handlers reach the class's private parts through this one friend.
struct SurfaceSyncAccess {
    using Self = LinuxDrmSyncobjV1;

    static void set_point(wl_resource* resource, wl_resource* timeline, uint32_t hi, uint32_t lo, bool acquire)
    {
        auto* sync = static_cast<Self::SurfaceSync*>(wl_resource_get_user_data(resource));
        if (!sync || !sync->surface) {
            wl_resource_post_error(resource, WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_NO_SURFACE,
                                   "the wl_surface was destroyed");
            return;
        }
        *point_slot(*sync, acquire) = Self::Point{timeline_from(timeline), (static_cast<uint64_t>(hi) << 32) | lo};
    }

    static void resource_destroyed(wl_resource* resource) noexcept
    {
        auto* sync = static_cast<Self::SurfaceSync*>(wl_resource_get_user_data(resource));
        if (!sync)
            return;  // the manager went first and freed it
        sync->resource = nullptr;
        sync->acquire = {};
        sync->release = {};
        if (sync->surface) {
            sync->owner->surfaces_.erase(sync->surface);
            if (sync->releases_by_seq.empty())
                delete sync;
            // else: it stays until its surface applies (or drops) those commits
        } else {
            delete sync;
        }
    }

    static void surface_gone(Self::SurfaceSync* sync)
    {
        if (sync->resource)
            sync->owner->surfaces_.erase(sync->surface);
        // Commits that will never be applied: their buffers are not used, so their release points are due now.
        for (auto& [seq, point] : sync->releases_by_seq)
            sync->owner->points_.signal(point);
        sync->releases_by_seq.clear();
        sync->surface = nullptr;
        sync->surface_commit.disconnect();
        sync->surface_destroy.disconnect();
        if (!sync->resource)
            delete sync;
    }

    static void get_surface(wl_client* client, wl_resource* manager, uint32_t id, wl_resource* surface_resource)
    {
        auto* self = static_cast<Self*>(wl_resource_get_user_data(manager));
        wlr_surface* surface = wlr_surface_from_resource(surface_resource);
        if (self->surfaces_.contains(surface)) {
            wl_resource_post_error(manager, WP_LINUX_DRM_SYNCOBJ_MANAGER_V1_ERROR_SURFACE_EXISTS,
                                   "the surface already has a syncobj surface object");
            return;
        }
        wl_resource* resource =
            wl_resource_create(client, &wp_linux_drm_syncobj_surface_v1_interface, wl_resource_get_version(manager), id);
        if (!resource) {
            wl_client_post_no_memory(client);
            return;
        }
        static const struct wp_linux_drm_syncobj_surface_v1_interface surface_requests = {
            .destroy = [](wl_client*, wl_resource* r) noexcept { wl_resource_destroy(r); },
            .set_acquire_point = [](wl_client*, wl_resource* r, wl_resource* t, uint32_t hi, uint32_t lo) noexcept {
                set_point(r, t, hi, lo, true);
            },
            .set_release_point = [](wl_client*, wl_resource* r, wl_resource* t, uint32_t hi, uint32_t lo) noexcept {
                set_point(r, t, hi, lo, false);
            },
        };
        auto* sync = new Self::SurfaceSync{};
        sync->owner = self;
        sync->resource = resource;
        sync->surface = surface;
        wl_resource_set_implementation(resource, &surface_requests, sync, resource_destroyed);
        sync->surface_commit.connect(&surface->events.commit, [sync](void*) { sync->owner->surface_committed(*sync); });
        sync->surface_destroy.connect(&surface->events.destroy, [sync](void*) { surface_gone(sync); });
        self->surfaces_[surface] = sync;
    }

    static void import_timeline(wl_client* client, wl_resource* manager, uint32_t id, int32_t fd)
    {
        auto* self = static_cast<Self*>(wl_resource_get_user_data(manager));
        uint32_t handle = 0;
        const int result = drmSyncobjFDToHandle(self->drm_fd_, fd, &handle);
        close(fd);
        if (result != 0) {
            wl_resource_post_error(manager, WP_LINUX_DRM_SYNCOBJ_MANAGER_V1_ERROR_INVALID_TIMELINE,
                                   "the fd is not a DRM syncobj of this device (%s)", std::strerror(errno));
            return;
        }
        auto timeline = std::make_shared<Self::Timeline>(self->drm_fd_, handle);
        wl_resource* resource = wl_resource_create(client, &wp_linux_drm_syncobj_timeline_v1_interface,
                                                   wl_resource_get_version(manager), id);
        if (!resource) {
            wl_client_post_no_memory(client);
            return;
        }
        static const struct wp_linux_drm_syncobj_timeline_v1_interface timeline_requests = {
            .destroy = [](wl_client*, wl_resource* r) noexcept { wl_resource_destroy(r); },
        };
        wl_resource_set_implementation(resource, &timeline_requests,
                                       new std::shared_ptr<Self::Timeline>(std::move(timeline)),
                                       [](wl_resource* r) noexcept {
                                           delete static_cast<std::shared_ptr<Self::Timeline>*>(
                                               wl_resource_get_user_data(r));
                                       });
    }
};

std::unique_ptr<LinuxDrmSyncobjV1> LinuxDrmSyncobjV1::create(wl_display* display, int drm_fd, CommitGate& gate,
                                                             std::function<BufferRelease*(wlr_client_buffer*)> release_of)
{
    uint64_t timeline = 0;
    if (drm_fd < 0 || drmGetCap(drm_fd, DRM_CAP_SYNCOBJ_TIMELINE, &timeline) != 0 || !timeline)
        return nullptr;
    return std::unique_ptr<LinuxDrmSyncobjV1>(new LinuxDrmSyncobjV1(display, drm_fd, gate, std::move(release_of)));
}

LinuxDrmSyncobjV1::LinuxDrmSyncobjV1(wl_display* display, int drm_fd, CommitGate& gate,
                                     std::function<BufferRelease*(wlr_client_buffer*)> release_of)
    : drm_fd_(drm_fd),
      points_(gate, wl_display_get_event_loop(display), drm_fd, std::move(release_of)),
      source_(gate, [this](wlr_surface* surface) {
          if (auto it = surfaces_.find(surface); it != surfaces_.end())
              before_commit(*it->second);
      })
{
    global_ = wl_global_create(display, &wp_linux_drm_syncobj_manager_v1_interface, 1, this, &LinuxDrmSyncobjV1::bind);
}

LinuxDrmSyncobjV1::~LinuxDrmSyncobjV1()
{
    if (global_)
        wl_global_destroy(global_);
    // Surface objects still alive belong to clients that are being torn down with the display; their surfaces'
    // destroy listeners free them. Detach them from this object first.
    for (auto& [surface, sync] : surfaces_) {
        sync->surface_commit.disconnect();
        sync->surface_destroy.disconnect();
        sync->surface = nullptr;
        if (sync->resource)
            wl_resource_set_user_data(sync->resource, nullptr);
        delete sync;
    }
}

void LinuxDrmSyncobjV1::bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept
{
    wl_resource* resource = wl_resource_create(client, &wp_linux_drm_syncobj_manager_v1_interface,
                                               static_cast<int>(version), id);
    if (!resource) {
        wl_client_post_no_memory(client);
        return;
    }
    static const struct wp_linux_drm_syncobj_manager_v1_interface manager_requests = {
        .destroy = [](wl_client*, wl_resource* r) noexcept { wl_resource_destroy(r); },
        .get_surface = [](wl_client* c, wl_resource* m, uint32_t id, wl_resource* s) noexcept {
            SurfaceSyncAccess::get_surface(c, m, id, s);
        },
        .import_timeline = [](wl_client* c, wl_resource* m, uint32_t id, int32_t fd) noexcept {
            SurfaceSyncAccess::import_timeline(c, m, id, fd);
        },
    };
    wl_resource_set_implementation(resource, &manager_requests, data, nullptr);
}

void LinuxDrmSyncobjV1::before_commit(SurfaceSync& sync)
{
    wlr_surface* surface = sync.surface;
    Point acquire = std::exchange(sync.acquire, {});
    Point release = std::exchange(sync.release, {});
    auto fail = [&](uint32_t code, const char* why) { wl_resource_post_error(sync.resource, code, "%s", why); };

    const bool attached = (surface->pending.committed & WLR_SURFACE_STATE_BUFFER) && surface->pending.buffer;
    if (!attached) {
        if (acquire || release)
            fail(WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_NO_BUFFER, "timeline points set but no buffer attached");
        return;
    }
    if (!acquire)
        return fail(WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_NO_ACQUIRE_POINT, "a buffer attached with no acquire point");
    if (!release)
        return fail(WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_NO_RELEASE_POINT, "a buffer attached with no release point");
    wlr_dmabuf_attributes dmabuf{};
    if (!wlr_buffer_get_dmabuf(surface->pending.buffer, &dmabuf))
        return fail(WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_UNSUPPORTED_BUFFER,
                    "explicit sync needs a dma-buf (linux-dmabuf) buffer");
    if (acquire.timeline == release.timeline && acquire.value >= release.value)
        return fail(WP_LINUX_DRM_SYNCOBJ_SURFACE_V1_ERROR_CONFLICTING_POINTS,
                    "on one timeline the release point must come after the acquire point");

    sync.releases_by_seq[surface->pending.seq] = std::move(release);
    points_.hold_for(surface, acquire);
}

void LinuxDrmSyncobjV1::surface_committed(SurfaceSync& sync)
{
    const uint32_t seq = sync.surface->current.seq;
    for (auto it = sync.releases_by_seq.begin(); it != sync.releases_by_seq.end();) {
        if (it->first > seq) {
            ++it;
            continue;
        }
        Point point = std::move(it->second);
        it = sync.releases_by_seq.erase(it);
        // The commit's buffer goes back (and its release point with it) when its BufferRelease says so.
        points_.signal_on_release(sync.surface->buffer, std::move(point));
    }
    // An object whose resource is gone is freed with its surface (surface_gone), not here inside its own listener.
}

}  // namespace kiln::compositor
