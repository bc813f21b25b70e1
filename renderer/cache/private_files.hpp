// Private cache files and directories, opened relative to a directory descriptor and never through a symbolic link:
// each one's type and owner are checked after it is open, and what kiln creates is 0700 / 0600 whatever the umask.
#pragma once

#include <cstdint>
#include <ctime>
#include <optional>
#include <span>
#include <string>
#include <sys/types.h>
#include <vector>

namespace kiln::cache {

// Owns one file descriptor; closes it when it goes.
class UniqueFd {
public:
    UniqueFd() = default;
    explicit UniqueFd(int fd) : fd_(fd) {}
    ~UniqueFd() { reset(); }
    UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
    UniqueFd& operator=(UniqueFd&& other) noexcept;
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;

    int get() const { return fd_; }
    explicit operator bool() const { return fd_ >= 0; }
    int release();
    void reset(int fd = -1);

private:
    int fd_ = -1;
};

// Why an open did not give a usable descriptor. `refused` is something kiln will not touch (a symbolic link, a
// file of the wrong type, someone else's file): the caller warns about it; `missing` is a plain miss.
enum class OpenStatus { ok, missing, refused, failed };

struct Opened {
    UniqueFd fd;
    OpenStatus status = OpenStatus::failed;
    std::string why;  // for refused and failed: the reason, with the errno text where there is one
};

// Opens directory `name` under `parent` (AT_FDCWD for a path) without following a symbolic link in its last
// component, and checks that it is a directory owned by `owner`. With `create`, a missing one is made, and the
// directory (kiln's own) is set to 0700.
Opened open_private_dir(int parent, const std::string& name, bool create, uid_t owner);

// Opens regular file `name` under `dir` for reading, never through a symbolic link, owned by `owner`.
Opened open_private_file(int dir, const std::string& name, uid_t owner);

// Reads a whole private file of at most `max_bytes`.
std::optional<std::vector<uint8_t>> read_private_file(int dir, const std::string& name, uid_t owner, size_t max_bytes,
                                                      OpenStatus& status, std::string& why);

// Writes `bytes` to a new 0600 temporary file `<temp_prefix><pid>-<n>` beside `name` (O_EXCL, no symbolic link
// followed) and renames it over `name`: readers see all or nothing. Every failure removes the temporary file and
// leaves `why` with the cause. A temporary name that is taken by something kiln did not leave (a symbolic link,
// another user's file) is skipped and described in `refused`.
bool write_private_file(int dir, const std::string& name, const std::string& temp_prefix,
                        std::span<const uint8_t> bytes, std::string& why, std::string& refused);

struct DirectoryItem {
    std::string name;
    bool regular = false;  // as the directory holds it, not what a symbolic link points to
    bool directory = false;
    bool symlink = false;
    uid_t owner = 0;
    uint64_t size = 0;
    timespec modified{};
};

// Every item of `dir` but . and .., described without following symbolic links.
std::vector<DirectoryItem> list_directory(int dir);

// Removes `name` under `dir` and, for a directory, everything in it; a symbolic link is removed, never followed.
// Returns false with `why` (the first failure) when something stayed.
bool remove_tree(int dir, const std::string& name, std::string& why);

}  // namespace kiln::cache
