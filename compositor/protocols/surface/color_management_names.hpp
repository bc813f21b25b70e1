// What kiln's color-management-v1 offers, in the protocol's numbers: the named primaries and transfer functions the
// renderer (renderer/colour/) has formulas for, the render intents it implements, and the maps between the two.
#pragma once

#include "renderer/colour/image_description.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <utility>

namespace kiln::compositor::color_management {

// wp_color_manager_v1.primaries values and kiln's sets.
inline constexpr std::array<std::pair<uint32_t, renderer::NamedPrimaries>, 5> primaries{{
    {1, renderer::NamedPrimaries::srgb},
    {6, renderer::NamedPrimaries::bt2020},
    {8, renderer::NamedPrimaries::dci_p3},
    {9, renderer::NamedPrimaries::display_p3},
    {10, renderer::NamedPrimaries::adobe_rgb},
}};

// wp_color_manager_v1.transfer_function values and kiln's curves.
inline constexpr std::array<std::pair<uint32_t, renderer::TransferFunction>, 6> transfer_functions{{
    {1, renderer::TransferFunction::bt1886},
    {2, renderer::TransferFunction::gamma22},
    {5, renderer::TransferFunction::ext_linear},
    {9, renderer::TransferFunction::srgb},
    {11, renderer::TransferFunction::st2084_pq},
    {13, renderer::TransferFunction::hlg},
}};

// wp_color_manager_v1.render_intent values kiln implements (the renderer converts with both).
inline constexpr std::array<std::pair<uint32_t, renderer::RenderIntent>, 2> intents{{
    {0, renderer::RenderIntent::perceptual},
    {1, renderer::RenderIntent::relative},
}};

template <class Table, class Value>
std::optional<uint32_t> number_of(const Table& table, Value value)
{
    for (const auto& [number, v] : table)
        if (v == value)
            return number;
    return std::nullopt;
}

template <class Table>
auto value_of(const Table& table, uint32_t number) -> std::optional<typename Table::value_type::second_type>
{
    for (const auto& [n, v] : table)
        if (n == number)
            return v;
    return std::nullopt;
}

// The protocol's default luminances for a transfer function (min, max, reference white in cd/m²): BT.1886 from
// BT.2035, PQ and HLG from BT.2408, the rest sRGB's (color.org's srgb.xalter).
struct Luminances {
    double min, max, reference;
};
inline Luminances default_luminances(renderer::TransferFunction tf)
{
    switch (tf) {
    case renderer::TransferFunction::bt1886: return {0.01, 100, 100};
    case renderer::TransferFunction::st2084_pq: return {0.005, 10000, 203};
    case renderer::TransferFunction::hlg: return {0.005, 1000, 203};
    default: return {0.2, 80, 80};
    }
}

}  // namespace kiln::compositor::color_management
