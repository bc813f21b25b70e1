// PrecompileList: which programs kiln actually used, with usage bits, kept on disk so the next start can prepare
// exactly those before (or right after) the first frame.
#pragma once

#include "renderer/cache/digest.hpp"

#include <filesystem>
#include <map>
#include <mutex>
#include <string>

namespace kiln::cache {

class PrecompileList {
public:
    // Reads the list; a missing or unreadable file is an empty list (first start).
    void load(const std::filesystem::path& path);
    // Saves atomically when it changed since load/save; false on I/O failure.
    bool save();

    // Records a use. Returns true the first time a program is seen (not in the loaded list nor recorded before).
    bool record(const Sha1& key, uint32_t usage_bits, const std::string& name);
    bool contains(const Sha1& key) const;
    uint32_t usage(const Sha1& key) const;
    bool empty() const;
    size_t size() const;

private:
    struct Item {
        uint32_t usage = 0;
        std::string name;
    };
    mutable std::mutex mutex_;
    std::filesystem::path path_;
    std::map<Sha1, Item> items_;
    bool dirty_ = false;
};

}  // namespace kiln::cache
