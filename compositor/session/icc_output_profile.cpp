// Reading an output's ICC profile file (at most 32 MiB, as color-management-v1 allows a client's) and making its
// description with read_icc_output_profile.
#include "compositor/session/icc_output_profile.hpp"

#include "compositor/protocol_kit/icc_profile.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

namespace kiln::compositor {
namespace {

// color-management-v1's limit for an ICC file, kept for an output's too.
constexpr size_t max_icc_size = 32 << 20;

}  // namespace

std::shared_ptr<const renderer::ImageDescription> read_icc_output_description(const std::string& path,
                                                                              std::string& why)
{
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        why = path + ": " + std::strerror(errno);
        return nullptr;
    }
    std::vector<uint8_t> bytes;
    char chunk[65536];
    while (file.read(chunk, sizeof chunk) || file.gcount() > 0) {
        bytes.insert(bytes.end(), chunk, chunk + file.gcount());
        if (bytes.size() > max_icc_size) {
            why = path + ": over 32 MiB";
            return nullptr;
        }
    }
    if (file.bad()) {
        why = path + ": cannot be read";
        return nullptr;
    }
    IccProfile profile;
    std::shared_ptr<const renderer::IccTable> output_table;
    std::string refused;
    if (!read_icc_output_profile(bytes, profile, output_table, refused)) {
        why = path + ": " + refused;
        return nullptr;
    }
    auto description = std::make_shared<renderer::ImageDescription>();
    description->primaries = profile.primaries;
    description->icc = std::move(profile.table);
    description->output_table = std::move(output_table);
    description->icc_profile = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
    return description;
}

}  // namespace kiln::compositor
