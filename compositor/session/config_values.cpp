// kiln.ini's values: how the text after '=' becomes numbers, scales, modes, transforms, positions and colours.
#include "compositor/session/config_values.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <system_error>

namespace kiln::compositor::ini {

std::string_view trim(std::string_view text)
{
    const auto first = text.find_first_not_of(" \t\r");
    if (first == std::string_view::npos)
        return {};
    const auto last = text.find_last_not_of(" \t\r");
    return text.substr(first, last - first + 1);
}

// A whole decimal integer in [low, high]; a sign only where low is negative.
std::optional<int32_t> parse_int(std::string_view text, int32_t low, int32_t high)
{
    if (text.starts_with('+'))
        return std::nullopt;
    int32_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || value < low || value > high)
        return std::nullopt;
    return value;
}

// An output scale: a decimal from 0.25 to 10 (1, 1.5, 1.25, 1.75, 2), kept as a whole number of 120ths, the unit
// wp_fractional_scale_v1 tells clients, so what a client is told is exactly what kiln draws at.
std::optional<double> parse_scale(std::string_view text)
{
    double value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::fixed);
    if (ec != std::errc{} || end != text.data() + text.size() || !(value >= 0.25 && value <= 10.0))
        return std::nullopt;
    return std::round(value * 120.0) / 120.0;
}

std::optional<OutputMode> parse_mode(std::string_view text)
{
    OutputMode mode;
    std::string_view size = text;
    if (const auto at = text.find('@'); at != std::string_view::npos) {
        size = text.substr(0, at);
        const std::string_view rate = text.substr(at + 1);
        // Hz, whole or with up to three decimals (59.94); kept in mHz as wlroots does.
        const auto dot = rate.find('.');
        auto hz = parse_int(rate.substr(0, dot), 1, 1000);
        if (!hz)
            return std::nullopt;
        int32_t mhz = *hz * 1000;
        if (dot != std::string_view::npos) {
            const std::string_view fraction = rate.substr(dot + 1);
            if (fraction.empty() || fraction.size() > 3 ||
                !std::all_of(fraction.begin(), fraction.end(), [](char c) { return c >= '0' && c <= '9'; }))
                return std::nullopt;
            int32_t thousandths = 0;
            for (size_t i = 0; i < 3; ++i)
                thousandths = thousandths * 10 + (i < fraction.size() ? fraction[i] - '0' : 0);
            mhz += thousandths;
        }
        mode.refresh_mhz = mhz;
    }
    const auto x = size.find('x');
    if (x == std::string_view::npos)
        return std::nullopt;
    auto width = parse_int(size.substr(0, x), 1, 16384);
    auto height = parse_int(size.substr(x + 1), 1, 16384);
    if (!width || !height)
        return std::nullopt;
    mode.width = *width;
    mode.height = *height;
    return mode;
}

std::optional<OutputTransform> parse_transform(std::string_view text)
{
    // weston.ini's older names (90, flipped-90) and its newer ones (rotate-90, flipped-rotate-90).
    static const std::pair<std::string_view, OutputTransform> names[] = {
        {"normal", OutputTransform::normal},
        {"90", OutputTransform::rotate_90},
        {"rotate-90", OutputTransform::rotate_90},
        {"180", OutputTransform::rotate_180},
        {"rotate-180", OutputTransform::rotate_180},
        {"270", OutputTransform::rotate_270},
        {"rotate-270", OutputTransform::rotate_270},
        {"flipped", OutputTransform::flipped},
        {"flipped-90", OutputTransform::flipped_90},
        {"flipped-rotate-90", OutputTransform::flipped_90},
        {"flipped-180", OutputTransform::flipped_180},
        {"flipped-rotate-180", OutputTransform::flipped_180},
        {"flipped-270", OutputTransform::flipped_270},
        {"flipped-rotate-270", OutputTransform::flipped_270},
    };
    for (const auto& [name, transform] : names)
        if (text == name)
            return transform;
    return std::nullopt;
}

std::optional<OutputPosition> parse_position(std::string_view text)
{
    const auto comma = text.find(',');
    if (comma == std::string_view::npos)
        return std::nullopt;
    auto x = parse_int(trim(text.substr(0, comma)), -65536, 65536);
    auto y = parse_int(trim(text.substr(comma + 1)), -65536, 65536);
    if (!x || !y)
        return std::nullopt;
    return OutputPosition{*x, *y};
}

std::optional<bool> parse_bool(std::string_view text)
{
    if (text == "true")
        return true;
    if (text == "false")
        return false;
    return std::nullopt;
}

std::optional<uint32_t> parse_rgb(std::string_view text)
{
    if (!text.starts_with("0x") && !text.starts_with("0X"))
        return std::nullopt;
    const std::string_view digits = text.substr(2);
    if (digits.size() != 6)
        return std::nullopt;
    uint32_t value = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, 16);
    if (ec != std::errc{} || end != digits.data() + digits.size())
        return std::nullopt;
    return value;
}

// Whitespace-separated words of a value.
std::vector<std::string_view> words(std::string_view text)
{
    std::vector<std::string_view> out;
    size_t start = 0;
    while ((start = text.find_first_not_of(" \t", start)) != std::string_view::npos) {
        const size_t end = std::min(text.find_first_of(" \t", start), text.size());
        out.push_back(text.substr(start, end - start));
        start = end;
    }
    return out;
}

}  // namespace kiln::compositor::ini
