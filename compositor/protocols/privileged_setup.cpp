// PrivilegedSetup: the privileged globals made before the desktop, and the filter that hides them.
#include "compositor/protocols/privileged_setup.hpp"

namespace kiln::compositor {

bool PrivilegedSetup::make(wl_display* display, wlr_backend* backend, RequestHooks& hooks, const Options& options,
                           std::function<bool(pid_t)> started, std::string& error)
{
    // wlroots' *_create return null when memory or a global cannot be had: kiln says which and does not start.
    auto made = [&error](const void* object, const char* what) {
        if (!object)
            error = std::string("cannot create ") + what;
        return object != nullptr;
    };
    wlr_screencopy_manager_v1* screencopy = wlr_screencopy_manager_v1_create(display);
    // Screen recorders (export-dmabuf) and night-light tools (gamma-control) work as on sway unless restricted.
    wlr_export_dmabuf_manager_v1* export_dmabuf = wlr_export_dmabuf_manager_v1_create(display);
    wlr_gamma_control_manager_v1* gamma_control = wlr_gamma_control_manager_v1_create(display);
    if (!made(screencopy, "the screencopy manager") || !made(export_dmabuf, "the export-dmabuf manager") ||
        !made(gamma_control, "the gamma-control manager"))
        return false;
    // Privileged globals: hidden from sandboxed clients (security contexts) always, from others under --restrict.
    privileged = std::make_unique<PrivilegedGlobals>(display, hooks, std::move(started), options.sandbox_grants);
    security_context = std::make_unique<SecurityContextV1>(
        display, [&filter = *privileged](const wl_client* maker) { return filter.trusted(maker); });
    privileged->set_sandbox_lookup(
        [&context = security_context](const wl_client* client) -> std::optional<SandboxedIdentity> {
            const SecurityContextV1::Metadata* metadata = context->context_of(client);
            if (!metadata)
                return std::nullopt;
            return SandboxedIdentity{.app_id = metadata->app_id, .creator_trusted = metadata->creator_trusted};
        });
    auto restricts = [&options](PrivilegedProtocol p) { return options.restricts(p); };
    privileged->guard(security_context->global(), "security-context", false);
    privileged->guard(screencopy->global, "screencopy", restricts(PrivilegedProtocol::screencopy));
    privileged->guard(export_dmabuf->global, "export-dmabuf", restricts(PrivilegedProtocol::export_dmabuf));
    privileged->guard(gamma_control->global, "gamma-control", restricts(PrivilegedProtocol::gamma_control));
    // A lease device per DRM device (none headless or nested): it hands out connectors, so sandboxes never see it.
    drm_lease = std::make_unique<DrmLeaseV1>(display, backend);
    for (const wl_global* global : drm_lease->globals())
        privileged->guard(global, "drm-lease", false);
    return true;
}

}  // namespace kiln::compositor
