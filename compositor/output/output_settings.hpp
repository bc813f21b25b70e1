// Applies an [output NAME] section of kiln.ini to a wlr_output as it appears: mode, scale, transform, enabled.
#pragma once

#include "compositor/session/settings.hpp"
#include "compositor/wlr.hpp"

namespace kiln::compositor {

// Sets and commits the output's first state: the preferred mode, or the section's (null: none for this output).
// A mode the output refuses is reported and replaced by the preferred one. False: the output could not be committed.
bool commit_output_settings(wlr_output* output, const OutputSettings* settings);

}  // namespace kiln::compositor
