// wp_image_description_v1 and wp_image_description_info_v1: a client's handle on one immutable description record
// (ready with the record's identity, or failed with a cause), and the information events of records that allow them.
#pragma once

#include "compositor/wlr.hpp"
#include "renderer/colour/image_description.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::compositor {

// What a ready wp_image_description_v1 refers to. Immutable once made; shared by every object and surface using it.
struct DescriptionRecord {
    uint32_t identity = 0;  // never 0; unique among live records
    std::shared_ptr<const renderer::ImageDescription> description;
    std::optional<uint32_t> primaries_named;  // wp_color_manager_v1.primaries, when the primaries are a named set
    std::vector<uint8_t> icc;  // an ICC output description's profile bytes (for icc_file); clients' are not kept
};

// The identities of one manager's records: a counter, so no two records made by it share one.
class DescriptionIdentities {
public:
    uint32_t take()
    {
        if (next_ == 0)
            next_ = 1;  // 0 is the protocol's invalid identity
        return next_++;
    }

private:
    uint32_t next_ = 1;
};

// Makes wp_image_description_v1 `id` of `client`, ready with `record`; `information` says whether its
// get_information is allowed (output and preferred descriptions) or the no_information error (clients' own).
void create_ready_description(wl_client* client, int version, uint32_t id,
                              std::shared_ptr<const DescriptionRecord> record, bool information);
// Makes wp_image_description_v1 `id` that fails at once with `cause` (wp_image_description_v1.cause).
void create_failed_description(wl_client* client, int version, uint32_t id, uint32_t cause, const std::string& why);
// The record of a wp_image_description_v1 resource, null when it is not ready (failed).
std::shared_ptr<const DescriptionRecord> ready_record(wl_resource* description);

}  // namespace kiln::compositor
