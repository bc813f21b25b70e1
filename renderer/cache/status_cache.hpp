// Compile and link status caches: a shader compiled once serves every program that uses it (reference counted);
// a program whose link failed is not linked again.
#pragma once

#include "renderer/cache/digest.hpp"

#include <cstdint>

#include <map>
#include <set>
#include <string>

namespace kiln::cache {

// Compiled shader objects by shader key, kept while a cached program references them.
class ShaderStatusCache {
public:
    ShaderStatusCache() = default;
    ~ShaderStatusCache();
    ShaderStatusCache(const ShaderStatusCache&) = delete;
    ShaderStatusCache& operator=(const ShaderStatusCache&) = delete;

    // The compiled shader for `key`, or 0.
    uint32_t find(const Sha1& key) const;
    bool compiled(const Sha1& key) const { return find(key) != 0; }
    // Stores a freshly compiled shader (reference count 0 until a program takes a reference).
    void store(const Sha1& key, uint32_t shader);
    void add_ref(const Sha1& key);
    // Drops a reference; at zero the shader object is deleted and its status forgotten.
    void release(const Sha1& key);
    int refs(const Sha1& key) const;
    size_t size() const { return shaders_.size(); }
    void clear();

private:
    struct Entry {
        uint32_t shader = 0;
        int refs = 0;
    };
    std::map<Sha1, Entry> shaders_;
};

// Programs known to link (or to fail, with the log), by program key.
class LinkStatusCache {
public:
    void set_linked(const Sha1& key) { failed_.erase(key), linked_.insert(key); }
    void set_failed(const Sha1& key, std::string log) { linked_.erase(key), failed_[key] = std::move(log); }
    bool linked(const Sha1& key) const { return linked_.contains(key); }
    const std::string* failure(const Sha1& key) const
    {
        auto it = failed_.find(key);
        return it == failed_.end() ? nullptr : &it->second;
    }
    void erase(const Sha1& key) { linked_.erase(key), failed_.erase(key); }
    void clear() { linked_.clear(), failed_.clear(); }

private:
    std::set<Sha1> linked_;
    std::map<Sha1, std::string> failed_;
};

}  // namespace kiln::cache
