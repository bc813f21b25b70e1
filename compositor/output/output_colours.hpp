// OutputColours: each output's colour description as kiln.ini's [output NAME] color-profile=, sdr-white= and peak=
// give it, one shared object per output that stays the same until the configuration changes it (color-management-v1
// gives each distinct object its own identity, so a new one for the same values would announce a change).
#pragma once

#include "compositor/session/options.hpp"
#include "renderer/colour/image_description.hpp"

#include <map>
#include <memory>
#include <string>

struct wlr_output;

namespace kiln::compositor {

// The description kiln.ini's section gives an output (null section, or no color-profile=: sRGB at 80 cd/m²).
renderer::ImageDescription configured_description(const OutputSettings* settings);

class OutputColours {
public:
    // Reads `options` at each call, so a reload (which replaces its outputs) takes effect at the next frame.
    explicit OutputColours(const Options& options) : options_(options) {}

    // `output`'s description, the same object as long as its settings give the same one; null for plain sRGB (kiln's
    // default, what color-management-v1 and the renderer take a null for).
    std::shared_ptr<const renderer::ImageDescription> description(const wlr_output* output);

private:
    struct Entry {
        OutputColourProfile profile;
        double sdr_white;
        double peak;
        std::shared_ptr<const renderer::ImageDescription> description;
    };

    const Options& options_;
    std::map<std::string, Entry, std::less<>> entries_;
};

}  // namespace kiln::compositor
