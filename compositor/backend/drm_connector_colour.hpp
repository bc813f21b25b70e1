// DrmConnectorColour: tells one DRM connector what kiln's output description means, through its HDR_OUTPUT_METADATA
// blob and Colorspace property, which wlroots 0.15 does not set; kiln sets them itself with libdrm on wlroots' fd.
#pragma once

#include "compositor/backend/drm_hdr_metadata.hpp"

#include <cstdint>
#include <optional>
#include <string>

struct wlr_output;

namespace kiln::compositor {

class DrmConnectorColour {
public:
    // Looks the connector's properties up once; does nothing at all for an output that is not a DRM connector.
    explicit DrmConnectorColour(wlr_output* output);
    ~DrmConnectorColour();
    DrmConnectorColour(const DrmConnectorColour&) = delete;
    DrmConnectorColour& operator=(const DrmConnectorColour&) = delete;

    // Signals `description` (null: sRGB) when it says something else than what the connector was last told: for PQ
    // or HLG the metadata blob and Colorspace BT2020_RGB (for BT.2020 primaries), for SDR no blob and Colorspace
    // Default once HDR had been signalled (an SDR desktop never touches them). Where the connector lacks a property,
    // or the kernel refuses a value, one log line says so for this output.
    void apply(const renderer::ImageDescription* description);

private:
    struct Property {
        uint32_t id = 0;  // 0: the connector has none
        uint64_t bt2020 = 0;
        uint64_t standard = 0;
        bool has_bt2020 = false;
    };
    bool set(uint32_t property, uint64_t value, const char* what);

    wlr_output* output_;
    int fd_ = -1;  // wlroots' DRM fd; -1: not a DRM output
    uint32_t connector_ = 0;
    Property metadata_;
    Property colorspace_;
    uint32_t blob_ = 0;  // the blob kiln last set, destroyed when replaced
    bool signalled_hdr_ = false;
    std::optional<std::optional<HdrOutputMetadata>> last_metadata_;
    std::string last_colorspace_;
    bool warned_metadata_ = false;
    bool warned_colorspace_ = false;
};

}  // namespace kiln::compositor
