// LinuxDrmSyncobjV1: explicit synchronization (wp_linux_drm_syncobj_manager_v1, staging), kiln's own since wlroots
// 0.15 has none. A commit's acquire point is waited on without blocking (a DRM syncobj eventfd polled by the event
// loop; the commit is held back meanwhile); its release point is signalled once the last frame that sampled the
// buffer is done, when kiln lets go of that commit's buffer.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <chrono>
#include <list>
#include <map>
#include <memory>
#include <vector>

namespace kiln::compositor {

class LinuxDrmSyncobjV1 {
public:
    // nullptr when the device cannot serve timelines (no DRM_CAP_SYNCOBJ_TIMELINE): the global is then not offered.
    // `drm_fd` is borrowed and must outlive this object.
    static std::unique_ptr<LinuxDrmSyncobjV1> create(wl_display* display, int drm_fd);
    ~LinuxDrmSyncobjV1();
    LinuxDrmSyncobjV1(const LinuxDrmSyncobjV1&) = delete;
    LinuxDrmSyncobjV1& operator=(const LinuxDrmSyncobjV1&) = delete;

    // Whether the surface uses explicit sync (its implicit fences are then not waited for).
    bool is_explicit(wlr_surface* surface) const { return surfaces_.contains(surface); }
    uint64_t acquire_waits() const { return acquire_waits_; }
    uint64_t release_points_signalled() const { return releases_signalled_; }
    const std::vector<double>& acquire_wait_ms() const { return wait_ms_; }

    struct Timeline;
    struct Point;
    struct SurfaceSync;
    struct AcquireWait;
    struct PendingRelease;

private:
    LinuxDrmSyncobjV1(wl_display* display, int drm_fd);
    static void bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept;
    static void on_request(void* data, wl_protocol_logger_type type, const wl_protocol_logger_message* message) noexcept;
    void before_commit(SurfaceSync& sync);
    void acquire_signalled(AcquireWait* wait);
    void drop_wait(AcquireWait* wait);
    void surface_committed(SurfaceSync& sync);
    void signal(const Point& point);

    friend struct SurfaceSyncAccess;

    wl_display* display_;
    wl_event_loop* loop_;
    int drm_fd_;
    wl_global* global_ = nullptr;
    wl_protocol_logger* logger_ = nullptr;
    std::map<wlr_surface*, SurfaceSync*> surfaces_;
    std::list<std::unique_ptr<AcquireWait>> waits_;
    std::list<std::unique_ptr<PendingRelease>> releases_;
    uint64_t acquire_waits_ = 0;
    uint64_t releases_signalled_ = 0;
    std::vector<double> wait_ms_;
    wl::Listener display_destroy_;
};

}  // namespace kiln::compositor
