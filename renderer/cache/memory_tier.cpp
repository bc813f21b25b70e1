// LRU bookkeeping for the memory tier.
#include "renderer/cache/memory_tier.hpp"

namespace kiln::cache {

MemoryTier::MemoryTier(size_t budget_bytes, EvictCallback on_evict)
    : budget_(budget_bytes), on_evict_(std::move(on_evict))
{
}

const ProgramBinary* MemoryTier::get(const Sha1& key)
{
    auto it = index_.find(key);
    if (it == index_.end())
        return nullptr;
    order_.splice(order_.begin(), order_, it->second);
    return &it->second->second;
}

const ProgramBinary* MemoryTier::peek(const Sha1& key) const
{
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &it->second->second;
}

void MemoryTier::put(const Sha1& key, ProgramBinary binary)
{
    erase(key);
    if (binary.bytes.size() > budget_)
        return;
    bytes_ += binary.bytes.size();
    order_.emplace_front(key, std::move(binary));
    index_[key] = order_.begin();
    evict_to(budget_);
}

std::optional<std::pair<Sha1, ProgramBinary>> MemoryTier::pop()
{
    if (order_.empty())
        return std::nullopt;
    auto entry = std::move(order_.back());
    order_.pop_back();
    index_.erase(entry.first);
    bytes_ -= entry.second.bytes.size();
    return entry;
}

bool MemoryTier::erase(const Sha1& key)
{
    auto it = index_.find(key);
    if (it == index_.end())
        return false;
    bytes_ -= it->second->second.bytes.size();
    order_.erase(it->second);
    index_.erase(it);
    return true;
}

void MemoryTier::clear()
{
    order_.clear();
    index_.clear();
    bytes_ = 0;
}

std::vector<Sha1> MemoryTier::keys_by_recency() const
{
    std::vector<Sha1> keys;
    for (const auto& [key, binary] : order_)
        keys.push_back(key);
    return keys;
}

void MemoryTier::evict_to(size_t limit)
{
    while (bytes_ > limit && !order_.empty()) {
        auto entry = pop();
        ++evictions_;
        if (on_evict_)
            on_evict_(entry->first, entry->second);
    }
}

}  // namespace kiln::cache
