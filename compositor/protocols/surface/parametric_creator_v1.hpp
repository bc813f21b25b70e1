// wp_image_description_creator_params_v1: collects a parametric description (named or custom primaries, a named
// transfer function, luminances, mastering display, max_cll/max_fall), raising every error the XML gives it, and
// makes the wp_image_description_v1 (ready, or failed `unsupported` for a set kiln cannot convert).
#pragma once

#include "compositor/protocols/surface/image_description_v1.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>
#include <memory>

namespace kiln::compositor {

// create_parametric_creator: creator `id` on `manager`'s client, whose descriptions take identities from
// `identities` (shared: a creator may outlive the manager global).
void create_parametric_creator(wl_resource* manager, uint32_t id, std::shared_ptr<DescriptionIdentities> identities);

}  // namespace kiln::compositor
