// libdrm's syncobj calls wrapped for the explicit-sync test client.
#include "clients/syncobj_timeline.hpp"

#include <fcntl.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <xf86drm.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

namespace kiln::clients {

int open_syncobj_device(const std::string& path, std::string& error, std::string& opened)
{
    std::vector<std::string> candidates;
    if (!path.empty()) {
        candidates.push_back(path);
    } else {
        std::error_code ec;
        for (const auto& entry : std::filesystem::directory_iterator("/dev/dri", ec))
            if (entry.path().filename().string().starts_with("card"))
                candidates.push_back(entry.path().string());
        std::sort(candidates.begin(), candidates.end());
    }
    for (const auto& candidate : candidates) {
        const int fd = open(candidate.c_str(), O_RDWR | O_CLOEXEC);
        if (fd < 0)
            continue;
        uint64_t cap = 0;
        if (drmGetCap(fd, DRM_CAP_SYNCOBJ_TIMELINE, &cap) == 0 && cap) {
            opened = candidate;
            return fd;
        }
        close(fd);
    }
    error = path.empty() ? "no /dev/dri/card* has DRM_CAP_SYNCOBJ_TIMELINE" : path + " has no DRM_CAP_SYNCOBJ_TIMELINE";
    return -1;
}

std::unique_ptr<SyncobjTimeline> SyncobjTimeline::create(int drm_fd, std::string& error)
{
    uint32_t handle = 0;
    if (drmSyncobjCreate(drm_fd, 0, &handle) != 0) {
        error = std::string("drmSyncobjCreate: ") + std::strerror(errno);
        return nullptr;
    }
    return std::unique_ptr<SyncobjTimeline>(new SyncobjTimeline(drm_fd, handle));
}

SyncobjTimeline::~SyncobjTimeline()
{
    drmSyncobjDestroy(drm_fd_, handle_);
}

int SyncobjTimeline::export_fd() const
{
    int fd = -1;
    return drmSyncobjHandleToFD(drm_fd_, handle_, &fd) == 0 ? fd : -1;
}

bool SyncobjTimeline::signal(uint64_t point) const
{
    uint32_t handle = handle_;
    return drmSyncobjTimelineSignal(drm_fd_, &handle, &point, 1) == 0;
}

uint64_t SyncobjTimeline::reached() const
{
    uint32_t handle = handle_;
    uint64_t point = 0;
    return drmSyncobjQuery(drm_fd_, &handle, &point, 1) == 0 ? point : 0;
}

int SyncobjTimeline::eventfd_for(uint64_t point) const
{
    const int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (fd < 0)
        return -1;
    // Flags 0: fire once the point has signalled, even if no fence is attached to it yet (the compositor attaches it
    // later, when it lets go of the buffer).
    if (drmSyncobjEventfd(drm_fd_, handle_, point, fd, 0) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

}  // namespace kiln::clients
