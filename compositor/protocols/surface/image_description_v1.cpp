// wp_image_description_v1: ready or failed at creation (kiln decides every description synchronously), the
// not_ready and no_information errors, and get_information's events (parametric fields, or the ICC profile in a
// sealed memfd).
#include "compositor/protocols/surface/image_description_v1.hpp"

#include "color-management-v1-protocol.h"
#include "compositor/protocol_kit/resource_object.hpp"
#include "compositor/protocols/surface/color_management_names.hpp"

#include <cmath>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace kiln::compositor {
namespace {

struct DescriptionObject {
    std::shared_ptr<const DescriptionRecord> record;  // null: failed
    bool information = false;
};

DescriptionObject* object_of(wl_resource* resource)
{
    return resource_object<DescriptionObject>(resource);
}

int32_t millionths(double v)
{
    return static_cast<int32_t>(std::lround(v * 1e6));
}

void send_primaries(wl_resource* info, const renderer::Primaries& p, bool target)
{
    auto send = target ? &wp_image_description_info_v1_send_target_primaries
                       : &wp_image_description_info_v1_send_primaries;
    send(info, millionths(p.red.x), millionths(p.red.y), millionths(p.green.x), millionths(p.green.y),
         millionths(p.blue.x), millionths(p.blue.y), millionths(p.white.x), millionths(p.white.y));
}

uint32_t unscaled(double v)
{
    return static_cast<uint32_t>(std::lround(v));
}
uint32_t ten_thousandths(double v)
{
    return static_cast<uint32_t>(std::lround(v * 10000.0));
}

// The profile in a read-only, sealed memfd, as icc_file asks (mapped MAP_PRIVATE by the client); -1 on failure.
int icc_fd(const std::vector<uint8_t>& bytes)
{
    const int fd = memfd_create("kiln-icc-profile", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return -1;
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
        if (n <= 0) {
            close(fd);
            return -1;
        }
        done += static_cast<size_t>(n);
    }
    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
    // A read-only descriptor of the same file: the client cannot write through it whatever the seals.
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    const int readonly = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    close(fd);
    return readonly;
}

void send_information(wl_resource* info, const DescriptionRecord& record)
{
    const renderer::ImageDescription& d = *record.description;
    if (!record.icc.empty()) {
        const int fd = icc_fd(record.icc);
        if (fd >= 0) {
            wp_image_description_info_v1_send_icc_file(info, fd, static_cast<uint32_t>(record.icc.size()));
            close(fd);  // libwayland sent a duplicate
        } else {
            wl_client_post_implementation_error(wl_resource_get_client(info), "cannot make the ICC profile's file");
            return;
        }
    }
    send_primaries(info, d.primaries, false);
    if (record.primaries_named)
        wp_image_description_info_v1_send_primaries_named(info, *record.primaries_named);
    // An ICC description's curve is the profile's, not a named one.
    if (auto tf = color_management::number_of(color_management::transfer_functions, d.transfer); tf && !d.icc)
        wp_image_description_info_v1_send_tf_named(info, *tf);
    wp_image_description_info_v1_send_luminances(info, ten_thousandths(d.min_luminance), unscaled(d.max_luminance),
                                                 unscaled(d.reference_white));
    send_primaries(info, d.mastering_primaries.value_or(d.primaries), true);
    const renderer::LuminanceRange target = d.mastering_luminance.value_or(
        renderer::LuminanceRange{d.min_luminance, d.max_luminance});
    wp_image_description_info_v1_send_target_luminance(info, ten_thousandths(target.min), unscaled(target.max));
    if (d.max_cll > 0)
        wp_image_description_info_v1_send_target_max_cll(info, unscaled(d.max_cll));
    if (d.max_fall > 0)
        wp_image_description_info_v1_send_target_max_fall(info, unscaled(d.max_fall));
    wp_image_description_info_v1_send_done(info);
}

void get_information(wl_client* client, wl_resource* resource, uint32_t id) noexcept
{
    DescriptionObject* object = object_of(resource);
    if (!object->record) {
        wl_resource_post_error(resource, WP_IMAGE_DESCRIPTION_V1_ERROR_NOT_READY,
                               "this image description failed; it can only be destroyed");
        return;
    }
    if (!object->information) {
        wl_resource_post_error(resource, WP_IMAGE_DESCRIPTION_V1_ERROR_NO_INFORMATION,
                               "a client-made image description does not allow get_information");
        return;
    }
    wl_resource* info = wl_resource_create(client, &wp_image_description_info_v1_interface,
                                           wl_resource_get_version(resource), id);
    if (!info) {
        wl_client_post_no_memory(client);
        return;
    }
    wl_resource_set_implementation(info, nullptr, nullptr, nullptr);
    send_information(info, *object->record);
    wl_resource_destroy(info);  // done is its destructor event
}

void destroy(wl_client*, wl_resource* resource) noexcept
{
    wl_resource_destroy(resource);
}

const struct wp_image_description_v1_interface requests = {
    .destroy = destroy,
    .get_information = get_information,
};

wl_resource* create(wl_client* client, int version, uint32_t id, std::shared_ptr<const DescriptionRecord> record,
                    bool information)
{
    return create_resource_object<DescriptionObject>(client, &wp_image_description_v1_interface, version, id,
                                                     &requests, std::move(record), information);
}

}  // namespace

void create_ready_description(wl_client* client, int version, uint32_t id,
                              std::shared_ptr<const DescriptionRecord> record, bool information)
{
    const uint32_t identity = record->identity;
    if (wl_resource* resource = create(client, version, id, std::move(record), information))
        wp_image_description_v1_send_ready(resource, identity);
}

void create_failed_description(wl_client* client, int version, uint32_t id, uint32_t cause, const std::string& why)
{
    if (wl_resource* resource = create(client, version, id, nullptr, false))
        wp_image_description_v1_send_failed(resource, cause, why.c_str());
}

std::shared_ptr<const DescriptionRecord> ready_record(wl_resource* description)
{
    return object_of(description)->record;
}

}  // namespace kiln::compositor
