// DrmLeaseV1: wp_drm_lease_device_v1 (drm-lease-v1), one global per DRM device kiln drives: connectors kiln keeps
// off the desktop (the kernel marks a VR headset non-desktop; kiln.ini lease=true marks any) are offered to clients,
// which lease them (a DRM lease fd of the connector, its CRTC and planes) and drive them themselves (SteamVR, Monado).
// A connector leased or unplugged is withdrawn from every offer; a lease ended by its client (destroy, or closing
// the lease fd, which the kernel reports) puts the connector back on offer. Away from kiln's VT nothing is offered
// and the leases are revoked. wlroots 0.15's wlr_drm_lease_v1 is not used: it raises none of the protocol's errors.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>
#include <list>
#include <memory>
#include <vector>

namespace kiln::compositor {

class DrmLeaseV1 {
public:
    // A device for each DRM backend in `backend` (itself, or a multi backend's children); none where there is no DRM
    // device (headless, nested): then globals() is empty and offer() refuses every output.
    DrmLeaseV1(wl_display* display, wlr_backend* backend);
    ~DrmLeaseV1();
    DrmLeaseV1(const DrmLeaseV1&) = delete;
    DrmLeaseV1& operator=(const DrmLeaseV1&) = delete;

    // Offers `output` for lease from now until it is destroyed (unplugged). False: it is no DRM device's connector.
    bool offer(wlr_output* output);
    std::vector<const wl_global*> globals() const;
    uint64_t leases_granted() const { return leases_granted_; }

    struct Device;
    struct Connector;
    struct Request;
    struct Lease;

private:
    std::list<std::unique_ptr<Device>> devices_;
    uint64_t leases_granted_ = 0;
    // kiln's session going (a VT switch: DRM master lost) revokes every lease and withdraws every connector; its
    // return offers them again.
    wl::Listener session_active_;
};

}  // namespace kiln::compositor
