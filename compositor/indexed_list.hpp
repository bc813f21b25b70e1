// IndexedList: a std::list of owned (std::unique_ptr) or watched (raw pointer) objects that removes one by its key
// in O(1), keeping the order they came in; the key is the object's address unless a key function says otherwise.
//
// A client can make hundreds of thousands of surfaces, roles and objects; each one's destroy scanned its owner's
// list (remove_if), so a client leaving with 100,000 surfaces froze kiln for every client for seconds.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <unordered_map>
#include <utility>

namespace kiln {

namespace indexed_list_detail {
template <typename T>
const T* address(const std::unique_ptr<T>& item)
{
    return item.get();
}
template <typename T>
const T* address(T* item)
{
    return item;
}
}  // namespace indexed_list_detail

// The default key: the object's own address.
struct ByAddress {
    template <typename Item>
    const void* operator()(const Item& item) const
    {
        return indexed_list_detail::address(item);
    }
};

template <typename Item, typename KeyOf = ByAddress>
class IndexedList {
    using List = std::list<Item>;
    using Key = decltype(std::declval<KeyOf>()(std::declval<const Item&>()));

public:
    using iterator = typename List::iterator;
    using const_iterator = typename List::const_iterator;

    IndexedList() = default;
    ~IndexedList() { clear(); }
    IndexedList(const IndexedList&) = delete;
    IndexedList& operator=(const IndexedList&) = delete;
    // Takes every item (std::list's iterators stay valid across a move); `other` is left empty.
    IndexedList(IndexedList&& other) noexcept : items_(std::move(other.items_)), where_(std::move(other.where_))
    {
        other.items_.clear();
        other.where_.clear();
    }
    IndexedList& operator=(IndexedList&&) = delete;

    // Appends `item` (its key must not be in the list yet) and returns it.
    Item& push_back(Item item)
    {
        items_.push_back(std::move(item));
        auto last = std::prev(items_.end());
        where_.emplace(KeyOf{}(*last), last);
        return *last;
    }
    Item& emplace_back(Item item) { return push_back(std::move(item)); }

    // Removes the item with `key`, if any; an owned object is destroyed after it has left the list, so its
    // destructor may touch the list. Returns whether one was there.
    bool erase(Key key)
    {
        auto found = where_.find(key);
        if (found == where_.end())
            return false;
        Item item = std::move(*found->second);
        items_.erase(found->second);
        where_.erase(found);
        (void)item;  // an owned object dies here, the list already without it
        return true;
    }
    // Removes the item at `it` (destroyed once out of the list); returns the one after it.
    iterator erase(iterator it)
    {
        where_.erase(KeyOf{}(*it));
        [[maybe_unused]] Item item = std::move(*it);  // destroyed after the erase below
        return items_.erase(it);
    }
    // Puts `item` before `pos` (its key must not be in the list yet) and returns it.
    Item& insert(iterator pos, Item item)
    {
        auto placed = items_.insert(pos, std::move(item));
        where_.emplace(KeyOf{}(*placed), placed);
        return *placed;
    }
    // The same as erase, for lists of raw pointers (std::list's name).
    bool remove(Key key) { return erase(key); }

    bool contains(Key key) const { return where_.contains(key); }
    // The item with `key`, or the end.
    iterator find(Key key)
    {
        auto found = where_.find(key);
        return found == where_.end() ? items_.end() : found->second;
    }

    // Empties the list, then destroys what it owned (in the order they came).
    void clear()
    {
        List gone = std::move(items_);
        items_.clear();
        where_.clear();
        gone.clear();
    }

    iterator begin() { return items_.begin(); }
    iterator end() { return items_.end(); }
    const_iterator begin() const { return items_.begin(); }
    const_iterator end() const { return items_.end(); }
    auto rbegin() { return items_.rbegin(); }
    auto rend() { return items_.rend(); }
    auto rbegin() const { return items_.rbegin(); }
    auto rend() const { return items_.rend(); }
    Item& front() { return items_.front(); }
    Item& back() { return items_.back(); }
    const Item& front() const { return items_.front(); }
    const Item& back() const { return items_.back(); }
    void pop_back() { erase(std::prev(items_.end())); }
    size_t size() const { return items_.size(); }
    bool empty() const { return items_.empty(); }

private:
    List items_;
    std::unordered_map<Key, iterator> where_;
};

}  // namespace kiln
