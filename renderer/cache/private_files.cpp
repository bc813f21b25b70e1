// Opening, writing, listing and removing cache files relative to directory descriptors, with no symbolic link
// followed: a path can be swapped under kiln, a descriptor it holds cannot.
#include "renderer/cache/private_files.hpp"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln::cache {

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept
{
    if (this != &other)
        reset(other.release());
    return *this;
}

int UniqueFd::release()
{
    const int fd = fd_;
    fd_ = -1;
    return fd;
}

void UniqueFd::reset(int fd)
{
    if (fd_ >= 0)
        close(fd_);
    fd_ = fd;
}

namespace {

std::string owner_text(uid_t uid)
{
    return "is owned by uid " + std::to_string(uid) + ", not by this user: refused";
}

// Why `name` could not be opened as what was asked: a symbolic link and a wrong type are refusals, the rest errors.
Opened classify_failure(int dir, const std::string& name, int open_errno, bool want_directory)
{
    Opened out;
    struct stat st {};
    if (open_errno == ENOENT) {
        out.status = OpenStatus::missing;
        out.why = std::strerror(open_errno);
    } else if ((open_errno == ELOOP || open_errno == ENOTDIR || open_errno == ENXIO) &&
               fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
        out.status = OpenStatus::refused;
        out.why = S_ISLNK(st.st_mode) ? "is a symbolic link: refused"
                                      : (want_directory ? "is not a directory: refused" : "is not a regular file: refused");
    } else {
        out.status = OpenStatus::failed;
        out.why = std::strerror(open_errno);
    }
    return out;
}

bool write_all(int fd, std::span<const uint8_t> bytes, int& error)
{
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            error = n < 0 ? errno : ENOSPC;
            return false;
        }
        done += static_cast<size_t>(n);
    }
    return true;
}

}  // namespace

Opened open_private_dir(int parent, const std::string& name, bool create, uid_t owner)
{
    bool made = false;
    int mkdir_errno = 0;
    if (create) {
        if (mkdirat(parent, name.c_str(), 0700) == 0)
            made = true;
        else if (errno != EEXIST)
            mkdir_errno = errno;
    }
    Opened out;
    const int fd = openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        const int open_errno = errno;
        out = classify_failure(parent, name, open_errno, true);
        if (out.status == OpenStatus::missing && mkdir_errno != 0) {
            // Creating it was what failed; that is the cause worth reporting.
            out.status = OpenStatus::failed;
            out.why = std::strerror(mkdir_errno);
        }
        return out;
    }
    out.fd.reset(fd);
    struct stat st {};
    if (fstat(fd, &st) != 0) {
        out.why = std::strerror(errno);
        out.fd.reset();
        out.status = OpenStatus::failed;
        return out;
    }
    if (st.st_uid != owner) {
        out.why = owner_text(st.st_uid);
        out.fd.reset();
        out.status = OpenStatus::refused;
        return out;
    }
    // The umask may have taken bits from a new directory; an old one may have been made 0755 by an earlier kiln.
    // Only group and other bits are removed from an existing one: an owner who made it read-only meant it.
    if (create) {
        const mode_t mode = st.st_mode & 07777;
        const mode_t wanted = made ? 0700 : (mode & 0700);
        if (mode != wanted && fchmod(fd, wanted) != 0 && made) {
            out.why = std::strerror(errno);
            out.fd.reset();
            out.status = OpenStatus::failed;
            return out;
        }
    }
    out.status = OpenStatus::ok;
    return out;
}

Opened open_private_file(int dir, const std::string& name, uid_t owner)
{
    // O_NONBLOCK: a FIFO planted under an entry's name must not hang the reader; it is refused below.
    const int fd = openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return classify_failure(dir, name, errno, false);
    Opened out;
    out.fd.reset(fd);
    struct stat st {};
    if (fstat(fd, &st) != 0) {
        out.why = std::strerror(errno);
        out.status = OpenStatus::failed;
    } else if (!S_ISREG(st.st_mode)) {
        out.why = "is not a regular file: refused";
        out.status = OpenStatus::refused;
    } else if (st.st_uid != owner) {
        out.why = owner_text(st.st_uid);
        out.status = OpenStatus::refused;
    } else {
        out.status = OpenStatus::ok;
        return out;
    }
    out.fd.reset();
    return out;
}

std::optional<std::vector<uint8_t>> read_private_file(int dir, const std::string& name, uid_t owner, size_t max_bytes,
                                                      OpenStatus& status, std::string& why)
{
    Opened file = open_private_file(dir, name, owner);
    status = file.status;
    why = file.why;
    if (!file.fd)
        return std::nullopt;
    struct stat st {};
    if (fstat(file.fd.get(), &st) != 0 || static_cast<uint64_t>(st.st_size) > max_bytes) {
        status = OpenStatus::refused;
        why = "is larger than " + std::to_string(max_bytes) + " bytes: refused";
        return std::nullopt;
    }
    std::vector<uint8_t> bytes(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::read(file.fd.get(), bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += static_cast<size_t>(n);
    }
    bytes.resize(done);
    return bytes;
}

bool write_private_file(int dir, const std::string& name, const std::string& temp_prefix,
                        std::span<const uint8_t> bytes, std::string& why, std::string& refused)
{
    static std::atomic<uint64_t> counter{0};
    std::string temp;
    int fd = -1;
    // A name left by a killed writer (ours, regular) or planted by someone else is skipped, never opened.
    for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
        temp = temp_prefix + std::to_string(getpid()) + "-" + std::to_string(counter.fetch_add(1));
        fd = openat(dir, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0)
            break;
        if (errno != EEXIST) {
            why = std::strerror(errno);
            return false;
        }
        struct stat st {};
        if (fstatat(dir, temp.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            (S_ISLNK(st.st_mode) || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) && refused.empty())
            refused = temp + (S_ISLNK(st.st_mode) ? " is a symbolic link" : " is not kiln's") + ": skipped";
    }
    if (fd < 0) {
        why = "no free temporary file name";
        return false;
    }
    int error = 0;
    // The umask can only remove bits, but 0600 must hold whatever it is.
    bool ok = fchmod(fd, 0600) == 0 || (error = errno, false);
    ok = ok && write_all(fd, bytes, error);
    if (close(fd) != 0 && ok) {
        error = errno;
        ok = false;
    }
    if (ok && renameat(dir, temp.c_str(), dir, name.c_str()) != 0) {
        error = errno;
        ok = false;
    }
    if (!ok) {
        why = std::strerror(error);
        unlinkat(dir, temp.c_str(), 0);
    }
    return ok;
}

std::vector<DirectoryItem> list_directory(int dir)
{
    std::vector<DirectoryItem> items;
    // A fresh open file description: listing from two threads must not share a directory offset.
    const int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return items;
    DIR* stream = fdopendir(fd);
    if (!stream) {
        close(fd);
        return items;
    }
    while (const dirent* entry = readdir(stream)) {
        const std::string name = entry->d_name;
        if (name == "." || name == "..")
            continue;
        struct stat st {};
        if (fstatat(fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;  // gone since readdir
        DirectoryItem item;
        item.name = name;
        item.regular = S_ISREG(st.st_mode);
        item.directory = S_ISDIR(st.st_mode);
        item.symlink = S_ISLNK(st.st_mode);
        item.owner = st.st_uid;
        item.size = static_cast<uint64_t>(st.st_size);
        item.modified = st.st_mtim;
        items.push_back(std::move(item));
    }
    closedir(stream);
    return items;
}

bool remove_tree(int dir, const std::string& name, std::string& why)
{
    struct stat st {};
    if (fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT)
            return true;
        why = name + ": " + std::strerror(errno);
        return false;
    }
    if (!S_ISDIR(st.st_mode)) {
        if (unlinkat(dir, name.c_str(), 0) != 0 && errno != ENOENT) {
            why = name + ": " + std::strerror(errno);
            return false;
        }
        return true;
    }
    UniqueFd sub(openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!sub) {
        why = name + ": " + std::strerror(errno);
        return false;
    }
    bool ok = true;
    for (const auto& item : list_directory(sub.get())) {
        std::string item_why;
        if (!remove_tree(sub.get(), item.name, item_why) && ok) {
            why = name + "/" + item_why;
            ok = false;
        }
    }
    sub.reset();
    if (ok && unlinkat(dir, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) {
        why = name + ": " + std::strerror(errno);
        ok = false;
    }
    return ok;
}

}  // namespace kiln::cache
