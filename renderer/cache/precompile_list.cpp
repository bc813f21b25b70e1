// The precompile list file: one "<program key hex> <usage bits hex> <name>" line per program.
#include "renderer/cache/precompile_list.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace kiln::cache {

void PrecompileList::load(const std::filesystem::path& path)
{
    std::lock_guard lock(mutex_);
    path_ = path;
    items_.clear();
    dirty_ = false;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string key_hex;
        std::string usage_hex;
        std::string name;
        fields >> key_hex >> usage_hex >> name;
        Sha1 key{};
        if (!from_hex(key_hex, key) || usage_hex.empty() || usage_hex.size() > 8 ||
            usage_hex.find_first_not_of("0123456789abcdef") != std::string::npos)
            continue;  // a damaged line costs only its own program's precompile
        items_[key] = Item{static_cast<uint32_t>(std::stoul(usage_hex, nullptr, 16)), name};
    }
}

bool PrecompileList::save()
{
    std::lock_guard lock(mutex_);
    if (!dirty_ || path_.empty())
        return true;
    const auto temp = path_.parent_path() / (".precompile-" + std::to_string(getpid()));
    {
        std::ofstream out(temp, std::ios::trunc);
        for (const auto& [key, item] : items_) {
            char usage[16];
            std::snprintf(usage, sizeof usage, "%x", item.usage);
            out << to_hex(key) << ' ' << usage << ' ' << (item.name.empty() ? "-" : item.name) << '\n';
        }
        if (!out.flush())
            return false;
    }
    if (std::rename(temp.c_str(), path_.c_str()) != 0)
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
