// LinuxDmabufV1: kiln's zwp_linux_dmabuf_v1 global (up to v5): formats, default and per-surface feedback, buffer
// params with every protocol error, and buffers imported once through the render bridge.
#pragma once

#include "compositor/wlr.hpp"
#include "renderer/types.hpp"

#include <functional>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace kiln::compositor {

class RenderBridge;

class LinuxDmabufV1 {
public:
    // Formats an output's primary plane can scan out, or nullptr: feeds the scan-out tranche of surface feedback.
    using ScanoutFormats = std::function<const wlr_drm_format_set*()>;

    // Without a main device the feedback events (v4+) cannot name one, so only v3 is offered then.
    LinuxDmabufV1(wl_display* display, RenderBridge& bridge, std::optional<dev_t> main_device,
                  ScanoutFormats scanout_formats);
    ~LinuxDmabufV1();
    LinuxDmabufV1(const LinuxDmabufV1&) = delete;
    LinuxDmabufV1& operator=(const LinuxDmabufV1&) = delete;

    uint32_t version() const { return version_; }
    // The device the feedback names (where clients allocate), if any.
    std::optional<dev_t> main_device() const { return main_device_; }
    uint64_t buffers_created() const { return buffers_created_; }
    uint64_t requests_refused() const { return requests_refused_; }

    // Validates a description against the renderer's formats and the fds' sizes; on failure `code` is the params
    // error to post and `error` says why.
    bool validate(const renderer::DmabufAttributes& attributes, uint32_t& code, std::string& error) const;

    // Implementation details used by the C request handlers.
    struct Params;
    void bind(wl_client* client, uint32_t version, uint32_t id);
    void create_params(wl_resource* dmabuf, uint32_t id);
    void create_buffer(Params& params, wl_resource* params_resource, uint32_t buffer_id, int32_t width,
                       int32_t height, uint32_t format, uint32_t flags, bool immediate);
    void send_feedback(wl_resource* dmabuf, uint32_t id, wlr_surface* surface);

private:
    bool build_format_table();

    wl_display* display_;
    RenderBridge& bridge_;
    std::optional<dev_t> main_device_;
    ScanoutFormats scanout_formats_;
    std::vector<renderer::FormatModifier> formats_;
    wl_global* global_ = nullptr;
    uint32_t version_ = 3;
    int format_table_fd_ = -1;
    size_t format_table_size_ = 0;
    uint64_t buffers_created_ = 0;
    uint64_t requests_refused_ = 0;
};

}  // namespace kiln::compositor
