// The precompile list file: one "<program key hex> <usage bits hex> <name>" line per program.
#include "renderer/cache/precompile_list.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sstream>

namespace kiln::cache {

namespace {
constexpr size_t max_bytes = 16u << 20;  // far above any real list; a bigger file is not ours
}

bool PrecompileList::load(int dir, std::string name, uid_t owner, std::string& why)
{
    std::lock_guard lock(mutex_);
    dir_.reset(fcntl(dir, F_DUPFD_CLOEXEC, 0));
    name_ = std::move(name);
    items_.clear();
    dirty_ = false;
    if (!dir_) {
        why = std::strerror(errno);
        return false;
    }
    OpenStatus status = OpenStatus::failed;
    const auto bytes = read_private_file(dir_.get(), name_, owner, max_bytes, status, why);
    if (!bytes)
        return status == OpenStatus::missing;
    std::istringstream in(std::string(bytes->begin(), bytes->end()));
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string key_hex;
        std::string usage_hex;
        std::string program_name;
        fields >> key_hex >> usage_hex >> program_name;
        Sha1 key{};
        if (!from_hex(key_hex, key) || usage_hex.empty() || usage_hex.size() > 8 ||
            usage_hex.find_first_not_of("0123456789abcdef") != std::string::npos)
            continue;  // a damaged line costs only its own program's precompile
        items_[key] = Item{static_cast<uint32_t>(std::stoul(usage_hex, nullptr, 16)), program_name};
    }
    return true;
}

bool PrecompileList::save(std::string& why, std::string& refused)
{
    std::lock_guard lock(mutex_);
    if (!dirty_ || !dir_)
        return true;
    std::string text;
    for (const auto& [key, item] : items_) {
        char usage[16];
        std::snprintf(usage, sizeof usage, "%x", item.usage);
        text += to_hex(key) + ' ' + usage + ' ' + (item.name.empty() ? "-" : item.name) + '\n';
    }
    const auto* bytes = reinterpret_cast<const uint8_t*>(text.data());
    if (!write_private_file(dir_.get(), name_, ".precompile-", {bytes, text.size()}, why, refused))
        return false;
    dirty_ = false;
    return true;
}

bool PrecompileList::record(const Sha1& key, uint32_t usage_bits, const std::string& name)
{
    std::lock_guard lock(mutex_);
    auto [it, inserted] = items_.try_emplace(key, Item{usage_bits, name});
    if (!inserted && (it->second.usage | usage_bits) != it->second.usage) {
        it->second.usage |= usage_bits;
        dirty_ = true;
    }
    if (inserted)
        dirty_ = true;
    return inserted;
}

bool PrecompileList::contains(const Sha1& key) const
{
    std::lock_guard lock(mutex_);
    return items_.contains(key);
}

uint32_t PrecompileList::usage(const Sha1& key) const
{
    std::lock_guard lock(mutex_);
    auto it = items_.find(key);
    return it == items_.end() ? 0 : it->second.usage;
}

std::string PrecompileList::name(const Sha1& key) const
{
    std::lock_guard lock(mutex_);
    auto it = items_.find(key);
    return it == items_.end() ? std::string() : it->second.name;
}

std::vector<PrecompileList::Listed> PrecompileList::entries() const
{
    std::lock_guard lock(mutex_);
    std::vector<Listed> out;
    out.reserve(items_.size());
    for (const auto& [key, item] : items_)
        out.push_back({key, item.usage, item.name});
    return out;
}

bool PrecompileList::empty() const
{
    std::lock_guard lock(mutex_);
    return items_.empty();
}

size_t PrecompileList::size() const
{
    std::lock_guard lock(mutex_);
    return items_.size();
}

}  // namespace kiln::cache
