// Checks a dma-buf description before anything hands it to EGL: llvmpipe reads out of bounds on an undersized fd
// and crashes on /dev/zero, so every plane's fd, size and layout is verified here.
#pragma once

#include "renderer/types.hpp"

#include <span>
#include <string>

namespace kiln::renderer {

enum class DmabufError { none, incomplete, invalid_format, invalid_dimensions, out_of_bounds, bad_fd };

struct DmabufCheck {
    DmabufError error = DmabufError::none;
    std::string reason;
    bool ok() const { return error == DmabufError::none; }
};

constexpr int32_t max_buffer_dimension = 16384;

DmabufCheck validate_dmabuf(const DmabufAttributes& attributes, std::span<const FormatModifier> supported);

// Size of the file behind fd as lseek(SEEK_END) reports it, or -1 when it is not a file that can back a buffer
// (socket, pipe, character device such as /dev/zero, directory) or has no size. `why` says which.
int64_t buffer_fd_size(int fd, std::string& why);

}  // namespace kiln::renderer
