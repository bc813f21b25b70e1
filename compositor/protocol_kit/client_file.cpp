// Copying a client's file with pread under a cap, and sealed memfds of kiln's own for what wlroots maps.
#include "compositor/protocol_kit/client_file.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kiln::compositor {

namespace {

#ifndef FUSE_SUPER_MAGIC
constexpr long fuse_super_magic = 0x65735546;
#else
constexpr long fuse_super_magic = FUSE_SUPER_MAGIC;
#endif

std::string bytes_text(size_t n) { return std::to_string(n) + " bytes"; }

}  // namespace

std::optional<std::vector<char>> copy_client_file(int fd, size_t size, size_t cap, std::string& why)
{
    if (size == 0) {
        why = "an empty file";
        return std::nullopt;
    }
    if (size > cap) {
        why = "a file of " + bytes_text(size) + ", more than kiln takes (" + bytes_text(cap) + ")";
        return std::nullopt;
    }
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        why = "an fd that is not a file";
        return std::nullopt;
    }
    // A FUSE file's reads are answered by a process, maybe the client itself, which could hold kiln's one thread.
    struct statfs fs {};
    if (fstatfs(fd, &fs) != 0 || fs.f_type == fuse_super_magic) {
        why = "a file on FUSE";
        return std::nullopt;
    }
    std::vector<char> bytes(size);
    size_t done = 0;
    while (done < size) {
        const ssize_t n = pread(fd, bytes.data() + done, size - done, static_cast<off_t>(done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            why = std::string("a file kiln cannot read (") + std::strerror(errno) + ")";
            return std::nullopt;
        }
        if (n == 0) {
            // Shorter than the client said, from the start or since it shrank the file under the read.
            why = bytes_text(size) + " asked of a file that holds " + bytes_text(done);
            return std::nullopt;
        }
        done += static_cast<size_t>(n);
    }
    return bytes;
}

int sealed_memfd(const char* name, std::span<const char> bytes, std::string& why)
{
    const int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) {
        why = std::string("memfd_create: ") + std::strerror(errno);
        return -1;
    }
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = pwrite(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            why = std::string("writing the memfd: ") + (n < 0 ? std::strerror(errno) : "no progress");
            close(fd);
            return -1;
        }
        done += static_cast<size_t>(n);
    }
    if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
        why = std::string("sealing the memfd: ") + std::strerror(errno);
        close(fd);
        return -1;
    }
    return fd;
}

}  // namespace kiln::compositor
