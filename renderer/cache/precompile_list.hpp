// PrecompileList: which programs kiln actually used, with usage bits, kept on disk so the next start can prepare
// exactly those before (or right after) the first frame.
#pragma once

#include "renderer/cache/digest.hpp"
#include "renderer/cache/private_files.hpp"

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace kiln::cache {

class PrecompileList {
public:
    struct Listed {
        Sha1 key{};
        uint32_t usage = 0;
        std::string name;
    };

    // Reads file `name` in directory `dir` (a descriptor it keeps a duplicate of), owned by `owner`. A missing file
    // is an empty list (first start); one that is refused (a symbolic link, not a regular file, not `owner`'s) or
    // unreadable is an empty list too, and false with `why`.
    bool load(int dir, std::string name, uid_t owner, std::string& why);
    // Saves atomically (0600, never through a symbolic link) when it changed since load/save. False with the cause
    // in `why` on failure, leaving no temporary file; `refused` describes a planted temporary name it skipped.
    bool save(std::string& why, std::string& refused);

    // Records a use. Returns true the first time a program is seen (not in the loaded list nor recorded before).
    bool record(const Sha1& key, uint32_t usage_bits, const std::string& name);
    bool contains(const Sha1& key) const;
    uint32_t usage(const Sha1& key) const;
    std::string name(const Sha1& key) const;  // "" when not listed
    // Every program listed, in key order: what a warm start prepares beyond the renderer's fixed programs (colour
    // conversion variants are named by what they do, renderer/colour/colour_variant.hpp) and what kiln-cache shows.
    std::vector<Listed> entries() const;
    bool empty() const;
    size_t size() const;

private:
    struct Item {
        uint32_t usage = 0;
        std::string name;
    };
    mutable std::mutex mutex_;
    UniqueFd dir_;
    std::string name_;
    std::map<Sha1, Item> items_;
    bool dirty_ = false;
};

}  // namespace kiln::cache
