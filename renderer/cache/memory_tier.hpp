// MemoryTier: linked program binaries in memory, least recently used evicted first once over a byte budget.
#pragma once

#include "renderer/cache/digest.hpp"

#include <cstddef>
#include <functional>
#include <list>
#include <map>
#include <optional>
#include <vector>

namespace kiln::cache {

struct ProgramBinary {
    uint32_t format = 0;  // the GLenum glGetProgramBinary gave
    std::vector<uint8_t> bytes;
    Sha1 vertex{};    // the shaders it was linked from, so eviction can release their compile status
    Sha1 fragment{};
};

class MemoryTier {
public:
    static constexpr size_t default_budget = 6u << 20;
    // Called for every entry the budget pushes out (not for clear()).
    using EvictCallback = std::function<void(const Sha1& key, const ProgramBinary& binary)>;

    explicit MemoryTier(size_t budget_bytes = default_budget, EvictCallback on_evict = nullptr);

    // Marks the entry most recently used.
    const ProgramBinary* get(const Sha1& key);
    // Looks without changing the order.
    const ProgramBinary* peek(const Sha1& key) const;
    // Inserts or replaces, then evicts least recently used entries until within budget. An entry larger than the
    // whole budget is not kept.
    void put(const Sha1& key, ProgramBinary binary);
    // Removes and returns the least recently used entry.
    std::optional<std::pair<Sha1, ProgramBinary>> pop();
    bool erase(const Sha1& key);
    void clear();

    size_t bytes() const { return bytes_; }
    size_t size() const { return order_.size(); }
    size_t budget() const { return budget_; }
    uint64_t evictions() const { return evictions_; }
    // Keys from most to least recently used (tests, kiln-cache).
    std::vector<Sha1> keys_by_recency() const;

private:
    using Order = std::list<std::pair<Sha1, ProgramBinary>>;
    void evict_to(size_t limit);

    size_t budget_;
    EvictCallback on_evict_;
    Order order_;  // front: most recently used
    std::map<Sha1, Order::iterator> index_;
    size_t bytes_ = 0;
    uint64_t evictions_ = 0;
};

}  // namespace kiln::cache
