// Opening the EGL display: GBM render node, EGL device or surfaceless, then a GLES 3 context with no surface.
#include "renderer/egl_display.hpp"

#include "renderer/format_probe.hpp"

#include "renderer/egl_device_choice.hpp"
#include "renderer/elapsed.hpp"
#include "renderer/formats.hpp"

#include <GLES3/gl3.h>
#include <fcntl.h>
#include <gbm.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xf86drm.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <utility>

namespace kiln::renderer {
namespace {

std::optional<dev_t> device_of(const char* path)
{
    struct stat st {};
    if (path && stat(path, &st) == 0)
        return st.st_rdev;
    return std::nullopt;
}

}  // namespace

std::unique_ptr<EglDisplay> EglDisplay::open(const DisplayOptions& options, std::string& error)
{
    std::unique_ptr<EglDisplay> self(new EglDisplay());
    auto start = Clock::now();
    self->procs_.load_client();
    const char* client_exts = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    self->times_.client_ms = ms_since(start);
    const std::string_view client = client_exts ? client_exts : "";
    if (!self->procs_.get_platform_display) {
        error = "EGL has no eglGetPlatformDisplayEXT";
        return nullptr;
    }
    std::string why;

    // 1. GBM on the render node of the backend's device, when its driver is real hardware.
    if (options.drm_fd >= 0 && in_extension_list(client, "EGL_KHR_platform_gbm")) {
        char* render_node = drmGetRenderDeviceNameFromFd(options.drm_fd);
        if (render_node) {
            self->render_fd_ = ::open(render_node, O_RDWR | O_CLOEXEC);
            if (self->render_fd_ >= 0)
                self->gbm_ = gbm_create_device(self->render_fd_);
            if (self->gbm_) {
                EGLDisplay display = self->procs_.get_platform_display(EGL_PLATFORM_GBM_KHR, self->gbm_, nullptr);
                if (display != EGL_NO_DISPLAY && self->initialize(display, DisplayKind::gbm, why, true)) {
                    self->device_path_ = render_node;
                    self->main_device_ = device_of(render_node);
                    free(render_node);
                    return self;
                }
                self->discard_attempt();
                gbm_device_destroy(self->gbm_);
                self->gbm_ = nullptr;
            }
            if (self->render_fd_ >= 0)
                ::close(self->render_fd_);
            self->render_fd_ = -1;
            free(render_node);
        }
    }

    // 2. The EGL device platform: a hardware vendor's device before Mesa's software one (egl_device_choice.hpp),
    // each tried until one initialises.
    if (in_extension_list(client, "EGL_EXT_platform_device") && self->procs_.query_devices) {
        EGLDeviceEXT devices[16];
        EGLint count = 0;
        start = Clock::now();
        if (self->procs_.query_devices(16, devices, &count) && count > 0) {
            std::vector<EglDeviceInfo> infos(static_cast<size_t>(count));
            for (size_t i = 0; i < infos.size(); ++i)
                infos[i] = self->describe_device(devices[i]);
            self->times_.devices_ms += ms_since(start);
            for (size_t i : device_try_order(infos)) {
                EGLDisplay display = self->procs_.get_platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
                const bool software = classify_device(infos[i]) == DeviceClass::software;
                if (display != EGL_NO_DISPLAY && self->initialize(display, DisplayKind::device, why, !software)) {
                    if (in_extension_list(infos[i].extensions, "EGL_EXT_device_drm_render_node")) {
                        const char* node = self->procs_.query_device_string(devices[i], EGL_DRM_RENDER_NODE_FILE_EXT);
                        if (node) {
                            self->device_path_ = node;
                            self->main_device_ = device_of(node);
                        }
                    }
                    return self;
                }
                self->discard_attempt();
            }
        }
    }

    // 3. Surfaceless: renders, but imports no dma-buf.
    if (options.allow_surfaceless && in_extension_list(client, "EGL_MESA_platform_surfaceless")) {
        EGLDisplay display =
            self->procs_.get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
        if (display != EGL_NO_DISPLAY && self->initialize(display, DisplayKind::surfaceless, why, false))
            return self;
    }
    error = "no usable EGL display" + (why.empty() ? std::string() : " (" + why + ")");
    return nullptr;
}

// What a device says of itself before it is initialised: its extensions and, with EGL_EXT_device_persistent_id,
// its driver's and renderer's names.
EglDeviceInfo EglDisplay::describe_device(EGLDeviceEXT device) const
{
    EglDeviceInfo info;
    const char* exts = procs_.query_device_string(device, EGL_EXTENSIONS);
    info.extensions = exts ? exts : "";
    if (in_extension_list(info.extensions, "EGL_EXT_device_persistent_id")) {
        const char* driver = procs_.query_device_string(device, EGL_DRIVER_NAME_EXT);
        const char* renderer = procs_.query_device_string(device, EGL_RENDERER_EXT);
        info.driver_name = driver ? driver : "";
        info.renderer = renderer ? renderer : "";
    }
    return info;
}

// Tears down a failed attempt (context, display) before the next device or platform is tried.
void EglDisplay::discard_attempt()
{
    if (display_ != EGL_NO_DISPLAY) {
        eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        if (context_ != EGL_NO_CONTEXT)
            eglDestroyContext(display_, context_);
        eglTerminate(display_);
    }
    context_ = EGL_NO_CONTEXT;
    display_ = EGL_NO_DISPLAY;
    mesa_driver_.clear();
}

bool EglDisplay::initialize(EGLDisplay display, DisplayKind kind, std::string& error, bool refuse_software)
{
    display_ = display;
    kind_ = kind;
    EGLint major = 0;
    EGLint minor = 0;
    auto start = Clock::now();
    const bool initialized = eglInitialize(display_, &major, &minor);
    times_.initialize_ms += ms_since(start);
    if (!initialized) {
        error = "eglInitialize failed";
        return false;
    }
    const char* exts = eglQueryString(display_, EGL_EXTENSIONS);
    extensions_ = exts ? exts : "";
    procs_.load_display();
    if (!has_extension("EGL_KHR_no_config_context") || !has_extension("EGL_KHR_surfaceless_context")) {
        error = "EGL lacks EGL_KHR_no_config_context or EGL_KHR_surfaceless_context";
        return false;
    }
    if (has_extension("EGL_MESA_query_driver") && procs_.get_display_driver_name) {
        const char* name = procs_.get_display_driver_name(display_);
        mesa_driver_ = name ? name : "";
    }
    // A software driver behind a hardware node (kms_swrast on GBM or on a DRM device) is refused before a context
    // and the format list are made for it: Mesa's software device follows, and imports foreign dma-bufs correctly.
    if (refuse_software && is_software_driver(mesa_driver_)) {
        error = std::string(kind == DisplayKind::gbm ? "GBM" : "device") + " driver " + mesa_driver_ + " is software";
        return false;
    }
    if (!eglBindAPI(EGL_OPENGL_ES_API)) {
        error = "eglBindAPI(GLES) failed";
        return false;
    }
    const EGLint attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 0, EGL_NONE};
    start = Clock::now();
    context_ = eglCreateContext(display_, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attribs);
    if (context_ == EGL_NO_CONTEXT) {
        error = "cannot create a GLES 3 context";
        return false;
    }
    if (!make_current()) {
        error = "cannot make the GLES context current";
        return false;
    }
    times_.context_ms += ms_since(start);
    start = Clock::now();
    const char* gl_exts = reinterpret_cast<const char*>(glGetString(GL_EXTENSIONS));
    gl_extensions_ = gl_exts ? gl_exts : "";
    identify_driver();
    times_.identify_ms += ms_since(start);
    const auto probe_start = Clock::now();
    query_dmabuf_formats();
    probe_ms_ = ms_since(probe_start);
    return true;
}

// What names the driver: Mesa's own name, the EGL device's (EGL_EXT_device_query, then
// EGL_EXT_device_persistent_id: NVIDIA has no EGL_MESA_query_driver), and the context's GL strings.
void EglDisplay::identify_driver()
{
    identity_ = DriverIdentity{};
    identity_.mesa_driver = mesa_driver_;
    auto gl_string = [](GLenum name) {
        const auto* text = reinterpret_cast<const char*>(glGetString(name));
        return std::string(text ? text : "");
    };
    identity_.gl_vendor = gl_string(GL_VENDOR);
    identity_.gl_renderer = gl_string(GL_RENDERER);
    identity_.gl_version = gl_string(GL_VERSION);
    EGLAttrib device = 0;
    if (procs_.query_display_attrib && procs_.query_device_string &&
        procs_.query_display_attrib(display_, EGL_DEVICE_EXT, &device) && device) {
        const auto handle = reinterpret_cast<EGLDeviceEXT>(device);
        const char* exts = procs_.query_device_string(handle, EGL_EXTENSIONS);
        if (exts && in_extension_list(exts, "EGL_EXT_device_persistent_id")) {
            const char* driver = procs_.query_device_string(handle, EGL_DRIVER_NAME_EXT);
            const char* renderer = procs_.query_device_string(handle, EGL_RENDERER_EXT);
            identity_.device_driver = driver ? driver : "";
            identity_.device_renderer = renderer ? renderer : "";
        }
    }
    driver_name_ = describe_driver(identity_);
}

void EglDisplay::query_dmabuf_formats()
{
    dmabuf_formats_.clear();
    // Surfaceless refuses dma-buf import even when it lists the extension (EGL_BAD_ALLOC), so it offers none.
    if (kind_ == DisplayKind::surfaceless || !has_extension("EGL_EXT_image_dma_buf_import") ||
        !procs_.create_image || !procs_.image_target_texture)
        return;
    std::vector<EGLint> formats;
    if (procs_.query_dmabuf_formats) {
        EGLint count = 0;
        procs_.query_dmabuf_formats(display_, 0, nullptr, &count);
        formats.resize(static_cast<size_t>(count));
        procs_.query_dmabuf_formats(display_, count, formats.data(), &count);
        formats.resize(static_cast<size_t>(count));
    }
    const bool with_modifiers =
        has_extension("EGL_EXT_image_dma_buf_import_modifiers") && procs_.query_dmabuf_modifiers;
    for (EGLint raw : formats) {
        const auto code = static_cast<uint32_t>(raw);
        const auto info = format_info(code);
        if (!info)
            continue;  // kiln cannot describe it, so it does not offer it
        // Implicit modifier: the driver picks the layout it shares with the client (linear for llvmpipe).
        dmabuf_formats_.push_back({code, modifier_invalid, info->yuv});
        if (!with_modifiers)
            continue;
        EGLint count = 0;
        procs_.query_dmabuf_modifiers(display_, raw, 0, nullptr, nullptr, &count);
        std::vector<EGLuint64KHR> modifiers(static_cast<size_t>(count));
        std::vector<EGLBoolean> external(static_cast<size_t>(count));
        procs_.query_dmabuf_modifiers(display_, raw, count, modifiers.data(), external.data(), &count);
        for (EGLint i = 0; i < count; ++i)
            dmabuf_formats_.push_back({code, modifiers[static_cast<size_t>(i)],
                                       external[static_cast<size_t>(i)] == EGL_TRUE || info->yuv});
    }
    drop_unimportable_formats();
}

// A software device maps any fd it is given, so a small memfd shows whether it really imports a format: llvmpipe
// lists NV12 yet refuses every NV12 image (measured with memfds and udmabufs alike), while it imports the R8 and
// GR88 planes such a buffer is made of; such a format is offered "through planes" (kiln's shader converts it). A
// format no client can use is not offered. Hardware displays need real dma-bufs, so they are taken at their word.
void EglDisplay::drop_unimportable_formats()
{
    if (kind_ != DisplayKind::device || !is_software())
        return;
    std::vector<std::pair<uint32_t, ProbeResult>> probed;
    auto result_for = [&](uint32_t code) {
        for (const auto& [known, result] : probed)
            if (known == code)
                return result;
        probed.emplace_back(code, probe_import(*this, code));
        return probed.back().second;
    };
    std::erase_if(dmabuf_formats_, [&](FormatModifier& fm) {
        const ProbeResult result = result_for(fm.fourcc);
        if (result != ProbeResult::through_planes)
            return result == ProbeResult::refused;
        // Planes are plain single-channel images: no external sampler, and only layouts a CPU-visible plane has.
        if (fm.modifier != modifier_invalid && fm.modifier != modifier_linear)
            return true;
        fm.through_planes = true;
        fm.external_only = false;
        return false;
    });
}

EglDisplay::~EglDisplay()
{
    if (display_ != EGL_NO_DISPLAY) {
        eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        if (context_ != EGL_NO_CONTEXT)
            eglDestroyContext(display_, context_);
        eglTerminate(display_);
    }
    if (gbm_)
        gbm_device_destroy(gbm_);
    if (render_fd_ >= 0)
        ::close(render_fd_);
}

const char* EglDisplay::kind_name() const
{
    switch (kind_) {
    case DisplayKind::gbm: return "gbm";
    case DisplayKind::device: return "device";
    case DisplayKind::surfaceless: return "surfaceless";
    }
    return "?";
}

bool EglDisplay::make_current() const
{
    return eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, context_) == EGL_TRUE;
}

bool EglDisplay::has_extension(std::string_view name) const
{
    return in_extension_list(extensions_, name);
}

bool EglDisplay::has_gl_extension(std::string_view name) const
{
    return in_extension_list(gl_extensions_, name);
}

bool EglDisplay::is_software() const
{
    if (is_software_driver(mesa_driver_))
        return true;
    // Without EGL_MESA_query_driver, the GL renderer string names llvmpipe/softpipe.
    const auto* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    const std::string_view name = renderer ? renderer : "";
    return name.find("llvmpipe") != name.npos || name.find("softpipe") != name.npos;
}

}  // namespace kiln::renderer
