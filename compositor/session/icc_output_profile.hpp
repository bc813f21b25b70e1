// read_icc_output_description: the file kiln.ini's [output NAME] color-profile=icc:PATH names, read and turned into
// the output's description; no Wayland in here, so kiln.ini's parser (and its unit tests) call it directly.
#pragma once

#include "renderer/colour/image_description.hpp"

#include <memory>
#include <string>

namespace kiln::compositor {

// An output described by the ICC profile at `path` (kiln.ini color-profile=icc:PATH): its primaries, the table
// surfaces described by it are read with, the table the renderer encodes with, and the bytes for icc_file. Null with
// `why` (naming the file) when it cannot be read, is over 32 MiB, or is not an RGB Display/ColorSpace profile lcms2
// can transform both ways.
std::shared_ptr<const renderer::ImageDescription> read_icc_output_description(const std::string& path,
                                                                              std::string& why);

}  // namespace kiln::compositor
