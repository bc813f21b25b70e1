// Import probes: a memfd stands in for a dma-buf, since a software display maps whatever fd it is handed.
#include "renderer/format_probe.hpp"

#include "renderer/dmabuf_image.hpp"
#include "renderer/formats.hpp"
#include "renderer/yuv.hpp"

#include <sys/mman.h>
#include <unistd.h>

namespace kiln::renderer {
namespace {

constexpr int32_t probe_size = 16;
constexpr uint32_t plane_spacing = 16384;  // room for 16 rows of 16 four-byte pixels

class ProbeMemory {
public:
    ProbeMemory() : fd_(memfd_create("kiln-format-probe", MFD_CLOEXEC))
    {
        if (fd_ >= 0 && ftruncate(fd_, plane_spacing * max_planes) != 0) {
            ::close(fd_);
            fd_ = -1;
        }
    }
    ~ProbeMemory()
    {
        if (fd_ >= 0)
            ::close(fd_);
    }
    ProbeMemory(const ProbeMemory&) = delete;
    ProbeMemory& operator=(const ProbeMemory&) = delete;
    int fd() const { return fd_; }

private:
    int fd_;
};

bool imports(const EglDisplay& display, const DmabufAttributes& attributes)
{
    std::string error;
    return static_cast<bool>(create_dmabuf_image(display, attributes, error));
}

}  // namespace

ProbeResult probe_import(const EglDisplay& display, uint32_t code)
{
    const auto info = format_info(code);
    ProbeMemory memory;
    if (!info || memory.fd() < 0)
        return ProbeResult::refused;
    DmabufAttributes whole;
    whole.width = probe_size;
    whole.height = probe_size;
    whole.fourcc = code;
    whole.plane_count = info->plane_count;
    for (uint32_t p = 0; p < info->plane_count; ++p)
        whole.planes[p] = {memory.fd(), p * plane_spacing, probe_size * info->planes[p].bytes_per_pixel};
    if (imports(display, whole))
        return ProbeResult::whole;
    const auto layout = yuv_layout(code, probe_size, probe_size);
    if (!layout)
        return ProbeResult::refused;
    for (uint32_t p = 0; p < layout->plane_count; ++p)
        if (!imports(display, yuv_plane_attributes(whole, *layout, p)))
            return ProbeResult::refused;
    return ProbeResult::through_planes;
}

}  // namespace kiln::renderer
