// kiln.ini's values: trimming and parsing the text after '=' (numbers, scales, modes, transforms, colours, words).
#pragma once

#include "compositor/session/options.hpp"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace kiln::compositor::ini {

std::string_view trim(std::string_view text);
// A whole decimal integer in [low, high]; a sign only where low is negative.
std::optional<int32_t> parse_int(std::string_view text, int32_t low, int32_t high);
// An output scale: a decimal from 0.25 to 10, kept as a whole number of 120ths (what wp_fractional_scale_v1 tells).
std::optional<double> parse_scale(std::string_view text);
std::optional<OutputMode> parse_mode(std::string_view text);
std::optional<OutputTransform> parse_transform(std::string_view text);
std::optional<OutputPosition> parse_position(std::string_view text);
std::optional<bool> parse_bool(std::string_view text);
std::optional<uint32_t> parse_rgb(std::string_view text);
// Whitespace-separated words of a value.
std::vector<std::string_view> words(std::string_view text);

}  // namespace kiln::compositor::ini
