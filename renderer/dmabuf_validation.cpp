// dma-buf validation: format, plane count, dimensions, fd kind and size, with overflow-free arithmetic.
#include "renderer/dmabuf_validation.hpp"

#include "renderer/formats.hpp"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln::renderer {
namespace {

DmabufCheck fail(DmabufError error, std::string reason)
{
    return DmabufCheck{error, std::move(reason)};
}

}  // namespace

int64_t buffer_fd_size(int fd, std::string& why)
{
    struct stat st {};
    if (fd < 0 || fstat(fd, &st) != 0) {
        why = "not an open file descriptor";
        return -1;
    }
    if (S_ISSOCK(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ||
        S_ISDIR(st.st_mode)) {
        why = S_ISSOCK(st.st_mode)   ? "a socket"
              : S_ISFIFO(st.st_mode) ? "a pipe"
              : S_ISCHR(st.st_mode)  ? "a character device"
              : S_ISBLK(st.st_mode)  ? "a block device"
                                     : "a directory";
        why = "fd is " + why + ", not a buffer";
        return -1;
    }
    // dma-bufs report their size through lseek(SEEK_END); so do memfds and regular files.
    const off_t size = lseek(fd, 0, SEEK_END);
    if (size < 0) {
        why = std::string("the fd has no size (lseek: ") + std::strerror(errno) + ")";
        return -1;
    }
    lseek(fd, 0, SEEK_SET);
    return static_cast<int64_t>(size);
}

DmabufCheck validate_dmabuf(const DmabufAttributes& attributes, std::span<const FormatModifier> supported)
{
    if (attributes.width < 1 || attributes.height < 1 || attributes.width > max_buffer_dimension ||
        attributes.height > max_buffer_dimension)
        return fail(DmabufError::invalid_dimensions, "size " + std::to_string(attributes.width) + "x" +
                                                         std::to_string(attributes.height) + " is outside 1.." +
                                                         std::to_string(max_buffer_dimension));
    const auto info = format_info(attributes.fourcc);
    if (!info)
        return fail(DmabufError::invalid_format, "unknown format 0x" + [&] {
            char buf[16];
            std::snprintf(buf, sizeof buf, "%08x", attributes.fourcc);
            return std::string(buf);
        }());
    bool advertised = false;
    for (const auto& fm : supported)
        advertised |= fm.fourcc == attributes.fourcc && fm.modifier == attributes.modifier;
    if (!advertised)
        return fail(DmabufError::invalid_format,
                    std::string("format ") + info->name + " with this modifier is not supported by the renderer");
    if (attributes.plane_count != info->plane_count)
        return fail(DmabufError::incomplete, std::string(info->name) + " needs " + std::to_string(info->plane_count) +
                                                 " planes, got " + std::to_string(attributes.plane_count));

    for (uint32_t i = 0; i < attributes.plane_count; ++i) {
        const DmabufPlane& plane = attributes.planes[i];
        const PlaneLayout& layout = info->planes[i];
        std::string why;
        const int64_t size = buffer_fd_size(plane.fd, why);
        if (size < 0)
            return fail(DmabufError::bad_fd, "plane " + std::to_string(i) + ": " + why);
        // 64-bit arithmetic on 32-bit inputs cannot overflow: 2^32 * 2^14 + 2^32 < 2^63.
        const uint64_t columns = (static_cast<uint64_t>(attributes.width) + layout.h_subsample - 1) / layout.h_subsample;
        const uint64_t rows = (static_cast<uint64_t>(attributes.height) + layout.v_subsample - 1) / layout.v_subsample;
        const uint64_t row_bytes = columns * layout.bytes_per_pixel;
        if (attributes.modifier == modifier_linear || attributes.modifier == modifier_invalid) {
            if (plane.stride < row_bytes)
                return fail(DmabufError::out_of_bounds, "plane " + std::to_string(i) + ": stride " +
                                                            std::to_string(plane.stride) + " is less than a row (" +
                                                            std::to_string(row_bytes) + " bytes)");
        } else if (plane.stride == 0) {
            return fail(DmabufError::out_of_bounds, "plane " + std::to_string(i) + ": stride is 0");
        }
        const uint64_t end = static_cast<uint64_t>(plane.offset) + static_cast<uint64_t>(plane.stride) * rows;
        if (end > static_cast<uint64_t>(size))
            return fail(DmabufError::out_of_bounds, "plane " + std::to_string(i) + " needs " + std::to_string(end) +
                                                        " bytes but its fd holds " + std::to_string(size));
    }
    return {};
}

}  // namespace kiln::renderer
