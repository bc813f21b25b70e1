// EglDisplay: the EGL display and GLES 3 context kiln renders with, chosen for what the machine has.
#pragma once

#include "renderer/driver_identity.hpp"
#include "renderer/egl_device_choice.hpp"
#include "renderer/gl_procs.hpp"
#include "renderer/types.hpp"

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

struct gbm_device;

namespace kiln::renderer {

struct DisplayOptions {
    int drm_fd = -1;  // the backend's DRM fd, -1 when there is none
    bool allow_surfaceless = true;
};

class EglDisplay {
public:
    // GBM on the render node of drm_fd's device when it has a hardware driver; else the EGL device platform
    // (a hardware vendor's device before Mesa's software one, egl_device_choice.hpp; a hardware node whose driver is
    // kms_swrast is refused: GBM on kms_swrast maps foreign dma-bufs through MAP_DUMB and crashes, the software
    // device imports them correctly); else surfaceless (no dma-buf import).
    static std::unique_ptr<EglDisplay> open(const DisplayOptions& options, std::string& error);
    ~EglDisplay();
    EglDisplay(const EglDisplay&) = delete;
    EglDisplay& operator=(const EglDisplay&) = delete;

    DisplayKind kind() const { return kind_; }
    const char* kind_name() const;
    EGLDisplay handle() const { return display_; }
    EGLContext context() const { return context_; }
    bool make_current() const;
    bool has_extension(std::string_view name) const;
    bool has_gl_extension(std::string_view name) const;
    const EglProcs& procs() const { return procs_; }

    bool can_import_dmabuf() const { return !dmabuf_formats_.empty(); }
    std::span<const FormatModifier> dmabuf_formats() const { return dmabuf_formats_; }
    std::optional<dev_t> main_device() const { return main_device_; }
    const std::string& device_path() const { return device_path_; }
    // Mesa's driver name, or the vendor, renderer and version on other stacks (describe_driver).
    const std::string& driver_name() const { return driver_name_; }
    const DriverIdentity& driver_identity() const { return identity_; }
    // GL runs on the CPU (llvmpipe, softpipe, swrast): no GPU does the shading.
    bool is_software() const;
    // How long listing and probing the dma-buf formats took at start-up.
    double format_probe_ms() const { return probe_ms_; }
    // Where open() spent its time, for --stats (startup.egl.*): what kiln asks for and what the driver does with it.
    struct OpenTimes {
        double client_ms = 0;      // the first EGL calls: glvnd loads the vendor libraries
        double devices_ms = 0;     // eglQueryDevicesEXT and each device's extensions
        double initialize_ms = 0;  // eglInitialize of every display tried
        double context_ms = 0;     // eglCreateContext and eglMakeCurrent
        double identify_ms = 0;    // the GL and EGL device strings
    };
    const OpenTimes& open_times() const { return times_; }

private:
    EglDisplay() = default;
    // refuse_software: fail when the driver turns out to be software (a hardware node's kms_swrast).
    bool initialize(EGLDisplay display, DisplayKind kind, std::string& error, bool refuse_software);
    EglDeviceInfo describe_device(EGLDeviceEXT device) const;
    void discard_attempt();
    void identify_driver();
    void query_dmabuf_formats();
    void drop_unimportable_formats();

    DisplayKind kind_ = DisplayKind::surfaceless;
    EGLDisplay display_ = EGL_NO_DISPLAY;
    EGLContext context_ = EGL_NO_CONTEXT;
    EglProcs procs_;
    std::string extensions_;
    std::string gl_extensions_;
    std::string mesa_driver_;  // EGL_MESA_query_driver's name: what the software checks go by
    std::string driver_name_;
    DriverIdentity identity_;
    std::string device_path_;
    std::optional<dev_t> main_device_;
    std::vector<FormatModifier> dmabuf_formats_;
    double probe_ms_ = 0;
    OpenTimes times_;
    gbm_device* gbm_ = nullptr;
    int render_fd_ = -1;
};

}  // namespace kiln::renderer
