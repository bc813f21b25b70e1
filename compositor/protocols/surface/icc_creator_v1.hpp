// wp_image_description_creator_icc_v1: takes an ICC file (fd, offset, length) with the XML's bad_fd, bad_size,
// out_of_file, already_set and incomplete_set errors, and makes a wp_image_description_v1 ready with the profile
// sampled by read_icc_profile, or failed (`unsupported` for a profile kiln does not take, `operating_system` when
// reading fails).
#pragma once

#include "compositor/protocols/surface/image_description_v1.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>
#include <memory>

namespace kiln::compositor {

// The XML's largest ICC profile: 32 MiB.
inline constexpr uint32_t icc_max_length = 32u * 1024u * 1024u;

// create_icc_creator: creator `id` on `manager`'s client; its descriptions take identities from `identities`.
void create_icc_creator(wl_resource* manager, uint32_t id, std::shared_ptr<DescriptionIdentities> identities);

}  // namespace kiln::compositor
