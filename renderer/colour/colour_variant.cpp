// Colour program names: written from a ColourVariant, read back by matching each part against the names it may hold.
#include "renderer/colour/colour_variant.hpp"

#include <array>

namespace kiln::renderer {
namespace {

constexpr std::array samplings{ShaderVariant::rgba,     ShaderVariant::rgbx,           ShaderVariant::bgra,
                               ShaderVariant::bgrx,     ShaderVariant::external,       ShaderVariant::yuv_semiplanar,
                               ShaderVariant::yuv_planar};
constexpr std::array transfers{TransferFunction::srgb,      TransferFunction::gamma22, TransferFunction::bt1886,
                               TransferFunction::st2084_pq, TransferFunction::hlg,     TransferFunction::ext_linear};
constexpr std::array tones{ToneMap::none, ToneMap::bt2390, ToneMap::hlg_ootf};

std::string_view tone_name(ToneMap tone)
{
    switch (tone) {
    case ToneMap::none:
        return "none";
    case ToneMap::bt2390:
        return "bt2390";
    case ToneMap::hlg_ootf:
        return "hlg_ootf";
    }
    return "?";
}

// Consumes `word` followed by `separator` from the front of `rest`.
bool take(std::string_view& rest, std::string_view word, std::string_view separator = "_")
{
    if (!rest.starts_with(word) || rest.substr(word.size()).substr(0, separator.size()) != separator)
        return false;
    rest.remove_prefix(word.size() + separator.size());
    return true;
}

// The one of `choices` whose name `rest` starts with (followed by `separator`), consumed; several may share a
// prefix ("hlg" and "hlg_ootf" do not here, but the longest match is taken all the same).
template <typename T, size_t N, typename Name>
std::optional<T> take_one(std::string_view& rest, const std::array<T, N>& choices, Name name,
                          std::string_view separator = "_")
{
    std::optional<T> best;
    size_t best_size = 0;
    for (T choice : choices) {
        std::string_view attempt = rest;
        const std::string word(name(choice));
        if (word.size() > best_size && take(attempt, word, separator)) {
            best = choice;
            best_size = word.size();
        }
    }
    if (best)
        rest.remove_prefix(best_size + separator.size());
    return best;
}

}  // namespace

std::string colour_program_name(const ColourVariant& variant)
{
    const ColourKey& key = variant.key;
    std::string name = "colour_";
    name += shader_source(variant.sampling).name;
    name += key.lut ? "_lut" : "_" + std::string(transfer_name(key.decode));
    name += key.matrix ? "_matrix_" : "_";
    name += tone_name(key.tone);
    name += "_to_";
    name += key.encode_lut ? "icc" : transfer_name(key.encode);
    return name;
}

std::optional<ColourVariant> parse_colour_program_name(std::string_view name)
{
    std::string_view rest = name;
    if (!take(rest, "colour"))
        return std::nullopt;
    ColourVariant out;
    const auto sampling = take_one(rest, samplings, [](ShaderVariant v) { return shader_source(v).name; });
    if (!sampling)
        return std::nullopt;
    out.sampling = *sampling;
    if (take(rest, "lut")) {
        out.key.lut = true;
    } else if (auto decode = take_one(rest, transfers, transfer_name)) {
        out.key.decode = *decode;
    } else {
        return std::nullopt;
    }
    out.key.matrix = take(rest, "matrix");
    const auto tone = take_one(rest, tones, tone_name, "_to_");
    if (!tone)
        return std::nullopt;
    out.key.tone = *tone;
    if (rest == "icc") {
        out.key.encode_lut = true;  // an ICC output's table (encode stays srgb, unused)
        return colour_program_name(out) == name ? std::optional(out) : std::nullopt;
    }
    for (TransferFunction encode : transfers)
        if (rest == transfer_name(encode)) {
            out.key.encode = encode;
            // Only names colour_program_name() writes: anything else (a damaged list line) is not a variant.
            if (colour_program_name(out) != name)
                return std::nullopt;
            return out;
        }
    return std::nullopt;
}

std::string describe_colour_variant(const ColourVariant& variant)
{
    const ColourKey& key = variant.key;
    std::string sampling = shader_source(variant.sampling).name;
    if (sampling.starts_with("texture_"))
        sampling = sampling.substr(8);
    std::string out = sampling + ": ";
    out += key.lut ? "icc table" : "decode " + std::string(transfer_name(key.decode));
    if (key.tone != ToneMap::none)
        out += ", tone map " + std::string(tone_name(key.tone));
    if (key.matrix)
        out += ", matrix";
    out += key.encode_lut ? ", encode icc table" : ", encode " + std::string(transfer_name(key.encode));
    return out;
}

}  // namespace kiln::renderer
