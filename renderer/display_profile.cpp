// DisplayProfile from an open EGL display, and comparing two.
#include "renderer/display_profile.hpp"

#include "renderer/egl_display.hpp"

namespace kiln::renderer {

const char* DisplayProfile::kind_name() const
{
    switch (kind) {
    case DisplayKind::gbm: return "gbm";
    case DisplayKind::device: return "device";
    case DisplayKind::surfaceless: return "surfaceless";
    }
    return "?";
}

DisplayProfile DisplayProfile::of(const EglDisplay& display)
{
    DisplayProfile out;
    out.kind = display.kind();
    out.driver_name = display.driver_name();
    out.device_path = display.device_path();
    out.main_device = display.main_device();
    out.software = display.is_software();
    out.dmabuf_formats.assign(display.dmabuf_formats().begin(), display.dmabuf_formats().end());
    return out;
}

bool DisplayProfile::same_as(const DisplayProfile& other) const
{
    if (kind != other.kind || driver_name != other.driver_name || device_path != other.device_path ||
        software != other.software || dmabuf_formats.size() != other.dmabuf_formats.size())
        return false;
    for (size_t i = 0; i < dmabuf_formats.size(); ++i) {
        const FormatModifier& a = dmabuf_formats[i];
        const FormatModifier& b = other.dmabuf_formats[i];
        if (a.fourcc != b.fourcc || a.modifier != b.modifier || a.external_only != b.external_only ||
            a.through_planes != b.through_planes)
            return false;
    }
    return true;
}

}  // namespace kiln::renderer
