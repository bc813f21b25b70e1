// IndexedList: keeps the order items came in, removes one by its key (its address, or what a key function says),
// destroys an owned object only once it has left the list, and stays consistent through insert and erase(iterator).
#include "compositor/indexed_list.hpp"

#include <catch2/catch_test_macros.hpp>

#include <memory>
#include <vector>

using kiln::IndexedList;

namespace {

struct Item {
    int value;
};

std::vector<int> values(const IndexedList<std::unique_ptr<Item>>& list)
{
    std::vector<int> out;
    for (const auto& item : list)
        out.push_back(item->value);
    return out;
}

// An object whose destructor looks at the list that owned it.
struct Watcher {
    IndexedList<std::unique_ptr<Watcher>>* list = nullptr;
    bool* saw_itself = nullptr;
    ~Watcher()
    {
        if (list && saw_itself)
            *saw_itself = list->contains(this);
    }
};

}  // namespace

TEST_CASE("items keep their order; one is removed by its address, the rest stay in order")
{
    IndexedList<std::unique_ptr<Item>> list;
    std::vector<Item*> raw;
    for (int i = 0; i < 5; ++i)
        raw.push_back(list.push_back(std::make_unique<Item>(Item{i})).get());
    REQUIRE(values(list) == std::vector<int>{0, 1, 2, 3, 4});
    CHECK(list.erase(raw[2]));
    CHECK_FALSE(list.erase(raw[2]));  // gone already
    CHECK(values(list) == std::vector<int>{0, 1, 3, 4});
    CHECK(list.erase(raw[0]));
    CHECK(list.erase(raw[4]));
    CHECK(values(list) == std::vector<int>{1, 3});
    CHECK(list.size() == 2);
    CHECK(list.contains(raw[1]));
    CHECK_FALSE(list.contains(raw[0]));
}

TEST_CASE("an owned object is destroyed after it has left the list")
{
    IndexedList<std::unique_ptr<Watcher>> list;
    bool saw_itself = true;
    Watcher& watcher = *list.push_back(std::make_unique<Watcher>());
    watcher.list = &list;
    watcher.saw_itself = &saw_itself;
    list.erase(&watcher);
    CHECK_FALSE(saw_itself);
    CHECK(list.empty());
}

TEST_CASE("a list of raw pointers: remove, insert before, erase at an iterator, pop_back")
{
    int a = 0, b = 0, c = 0, d = 0;
    IndexedList<int*> list;
    list.push_back(&a);
    list.push_back(&b);
    list.push_back(&c);
    list.insert(std::prev(list.end()), &d);  // before the last
    std::vector<int*> order(list.begin(), list.end());
    CHECK(order == std::vector<int*>{&a, &b, &d, &c});
    CHECK(list.remove(&b));
    auto it = list.erase(list.find(&a));
    CHECK(*it == &d);
    list.pop_back();
    CHECK(list.size() == 1);
    CHECK(list.back() == &d);
    CHECK(list.contains(&d));
    CHECK_FALSE(list.contains(&c));
    CHECK(list.find(&c) == list.end());
}

TEST_CASE("a key function finds an item by what it watches")
{
    struct Handle {
        const int* watched;
    };
    struct ByWatched {
        const void* operator()(const std::unique_ptr<Handle>& h) const { return h->watched; }
    };
    int one = 1, two = 2;
    IndexedList<std::unique_ptr<Handle>, ByWatched> handles;
    handles.push_back(std::make_unique<Handle>(Handle{&one}));
    handles.push_back(std::make_unique<Handle>(Handle{&two}));
    CHECK(handles.contains(&two));
    CHECK(handles.erase(&one));
    CHECK(handles.size() == 1);
    CHECK(handles.front()->watched == &two);
}

TEST_CASE("100,000 items removed one by one, in an order a scan would find last")
{
    IndexedList<std::unique_ptr<Item>> list;
    std::vector<Item*> raw;
    for (int i = 0; i < 100000; ++i)
        raw.push_back(list.push_back(std::make_unique<Item>(Item{i})).get());
    for (auto it = raw.rbegin(); it != raw.rend(); ++it)
        REQUIRE(list.erase(*it));
    CHECK(list.empty());
}
