// wp_image_description_creator_icc_v1: set_icc_file checks the fd and range, reads the bytes and parses them at once
// (the XML lets kiln read any time until create answers): the client's fd is not kept, and neither are the bytes
// (up to 32 MiB; a client-made description never gives them back), only the sampled table. create answers.
#include "compositor/protocols/surface/icc_creator_v1.hpp"

#include "color-management-v1-protocol.h"
#include "compositor/protocol_kit/icc_profile.hpp"
#include "compositor/protocol_kit/resource_object.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace kiln::compositor {
namespace {

struct IccCreator {
    std::shared_ptr<DescriptionIdentities> identities;
    bool set = false;
    IccProfile profile;      // the parsed profile, when it was read and taken
    std::string read_error;  // why reading failed for a reason not the client's (operating_system)
    std::string refused;     // why the profile is not taken (unsupported)
};

IccCreator* creator_of(wl_resource* resource)
{
    return resource_object<IccCreator>(resource);
}

// Closes the client's fd whichever way set_icc_file returns.
struct OwnedFd {
    int fd;
    ~OwnedFd() { close(fd); }
};

void set_icc_file(wl_client*, wl_resource* resource, int32_t icc_fd, uint32_t offset, uint32_t length) noexcept
{
    OwnedFd fd{icc_fd};
    IccCreator* c = creator_of(resource);
    if (c->set) {
        wl_resource_post_error(resource, WP_IMAGE_DESCRIPTION_CREATOR_ICC_V1_ERROR_ALREADY_SET,
                               "the ICC file is already set");
        return;
    }
    if (length == 0 || length > icc_max_length) {
        wl_resource_post_error(resource, WP_IMAGE_DESCRIPTION_CREATOR_ICC_V1_ERROR_BAD_SIZE,
                               "an ICC file of %u bytes (1 to %u are accepted)", length, icc_max_length);
        return;
    }
    const int flags = fcntl(fd.fd, F_GETFL);
    struct stat st {};
    if (flags < 0 || (flags & O_ACCMODE) == O_WRONLY || fstat(fd.fd, &st) != 0 ||
        lseek(fd.fd, 0, SEEK_CUR) < 0) {
        wl_resource_post_error(resource, WP_IMAGE_DESCRIPTION_CREATOR_ICC_V1_ERROR_BAD_FD,
                               "the ICC file's fd is not seekable and readable");
        return;
    }
    if (uint64_t(offset) + length > uint64_t(st.st_size)) {
        wl_resource_post_error(resource, WP_IMAGE_DESCRIPTION_CREATOR_ICC_V1_ERROR_OUT_OF_FILE,
                               "offset %u + length %u is past the file's %lld bytes", offset, length,
                               static_cast<long long>(st.st_size));
        return;
    }
    c->set = true;
    std::vector<uint8_t> bytes(length);
    size_t done = 0;
    while (done < length) {
        const ssize_t n = pread(fd.fd, bytes.data() + done, length - done, off_t(offset) + off_t(done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            c->read_error = n == 0 ? std::string("the file ended while reading") : std::strerror(errno);
            return;
        }
        done += static_cast<size_t>(n);
    }
    if (!read_icc_profile(bytes, c->profile, c->refused) && c->refused.empty())
        c->refused = "not a profile kiln takes";
}

void create(wl_client* client, wl_resource* resource, uint32_t id) noexcept
{
    IccCreator& c = *creator_of(resource);
    const int version = wl_resource_get_version(resource);
    if (!c.set) {
        wl_resource_post_error(resource, WP_IMAGE_DESCRIPTION_CREATOR_ICC_V1_ERROR_INCOMPLETE_SET,
                               "the ICC file is not set");
        return;
    }
    if (!c.read_error.empty()) {
        create_failed_description(client, version, id, WP_IMAGE_DESCRIPTION_V1_CAUSE_OPERATING_SYSTEM,
                                  "reading the ICC file failed: " + c.read_error);
    } else if (!c.profile.table) {
        create_failed_description(client, version, id, WP_IMAGE_DESCRIPTION_V1_CAUSE_UNSUPPORTED, c.refused);
    } else {
        auto description = std::make_shared<renderer::ImageDescription>();
        description->primaries = c.profile.primaries;
        description->icc = std::move(c.profile.table);
        auto record = std::make_shared<DescriptionRecord>();
        record->identity = c.identities->take();
        record->description = std::move(description);
        create_ready_description(client, version, id, std::move(record), false);
    }
    wl_resource_destroy(resource);  // create is the creator's destructor
}

const struct wp_image_description_creator_icc_v1_interface requests = {
    .create = create,
    .set_icc_file = set_icc_file,
};

}  // namespace

void create_icc_creator(wl_resource* manager, uint32_t id, std::shared_ptr<DescriptionIdentities> identities)
{
    create_resource_object<IccCreator>(wl_resource_get_client(manager), &wp_image_description_creator_icc_v1_interface,
                                       wl_resource_get_version(manager), id, &requests, std::move(identities));
}

}  // namespace kiln::compositor
