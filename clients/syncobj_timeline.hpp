// SyncobjTimeline: a client-side DRM timeline syncobj (create, export, CPU signal, query, eventfd on a point), and
// the search for a DRM device that has timeline syncobjs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace kiln::clients {

// Opens `path`, or else the first /dev/dri/card* that reports DRM_CAP_SYNCOBJ_TIMELINE. -1 with `error` if none does.
int open_syncobj_device(const std::string& path, std::string& error, std::string& opened);

class SyncobjTimeline {
public:
    // nullptr with `error` when the device cannot create a timeline syncobj. `drm_fd` is borrowed.
    static std::unique_ptr<SyncobjTimeline> create(int drm_fd, std::string& error);
    ~SyncobjTimeline();
    SyncobjTimeline(const SyncobjTimeline&) = delete;
    SyncobjTimeline& operator=(const SyncobjTimeline&) = delete;

    // A new fd for the syncobj (for import_timeline, which takes ownership of it); -1 on failure.
    int export_fd() const;
    // Signals `point` from the CPU (a stub fence at that value).
    bool signal(uint64_t point) const;
    // The highest point signalled so far.
    uint64_t reached() const;
    // An eventfd that becomes readable once `point` has signalled; -1 on failure. The caller closes it.
    int eventfd_for(uint64_t point) const;

private:
    SyncobjTimeline(int drm_fd, uint32_t handle) : drm_fd_(drm_fd), handle_(handle) {}
    int drm_fd_;
    uint32_t handle_;
};

}  // namespace kiln::clients
