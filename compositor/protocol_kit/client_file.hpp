// A file a client passed by fd (a virtual keyboard's keymap), copied into kiln's memory with pread under a size cap
// and never mapped, and bytes handed on to wlroots as a memfd kiln made and sealed.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kiln::compositor {

// The first `size` bytes of the regular file behind `fd`, read with pread (the client's file offset untouched):
// nullopt with `why` when `size` is 0 or over `cap`, the fd is no regular file (a pipe, a socket, a device) or lies
// on FUSE (whose reads the client may stall), or the file holds fewer bytes, before or during the read. A client
// that shrinks the file meanwhile gets a short read, never SIGBUS in kiln.
std::optional<std::vector<char>> copy_client_file(int fd, size_t size, size_t cap, std::string& why);

// A new memfd (close-on-exec) holding `bytes`, sealed against writing, shrinking, growing and further seals: whoever
// maps it reads exactly these bytes. -1 with `why` when it cannot be made.
int sealed_memfd(const char* name, std::span<const char> bytes, std::string& why);

}  // namespace kiln::compositor
