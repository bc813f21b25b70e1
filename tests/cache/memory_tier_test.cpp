// The memory tier's LRU: order with and without reuse, clear, peek/pop, eviction by byte budget.
#include "renderer/cache/memory_tier.hpp"

#include <catch2/catch_test_macros.hpp>

#include <vector>

using namespace kiln::cache;

namespace {

Sha1 key(uint8_t n)
{
    Sha1 k{};
    k[0] = n;
    return k;
}

ProgramBinary binary(size_t bytes, uint8_t fill = 0)
{
    ProgramBinary b;
    b.format = 1;
    b.bytes.assign(bytes, fill);
    return b;
}

}  // namespace

TEST_CASE("LRU order without reuse: the oldest insert goes first")
{
    MemoryTier tier(300);
    tier.put(key(1), binary(100));
    tier.put(key(2), binary(100));
    tier.put(key(3), binary(100));
    CHECK(tier.keys_by_recency() == std::vector<Sha1>{key(3), key(2), key(1)});
    tier.put(key(4), binary(100));
    CHECK(tier.peek(key(1)) == nullptr);
    CHECK(tier.size() == 3);
    CHECK(tier.bytes() == 300);
}

TEST_CASE("LRU order with reuse: a get makes an entry the most recent")
{
    MemoryTier tier(300);
    tier.put(key(1), binary(100));
    tier.put(key(2), binary(100));
    tier.put(key(3), binary(100));
    REQUIRE(tier.get(key(1)) != nullptr);
    tier.put(key(4), binary(100));
    CHECK(tier.peek(key(1)) != nullptr);
    CHECK(tier.peek(key(2)) == nullptr);
    CHECK(tier.keys_by_recency() == std::vector<Sha1>{key(4), key(1), key(3)});
}

TEST_CASE("peek does not reorder; pop takes the least recently used")
{
    MemoryTier tier(1000);
    tier.put(key(1), binary(10, 1));
    tier.put(key(2), binary(20, 2));
    REQUIRE(tier.peek(key(1)) != nullptr);
    auto popped = tier.pop();
    REQUIRE(popped);
    CHECK(popped->first == key(1));
    CHECK(popped->second.bytes.size() == 10);
    CHECK(tier.bytes() == 20);
    CHECK(tier.pop()->first == key(2));
    CHECK_FALSE(tier.pop());
}

TEST_CASE("clear empties the tier without calling the eviction callback")
{
    int evicted = 0;
    MemoryTier tier(1000, [&](const Sha1&, const ProgramBinary&) { ++evicted; });
    tier.put(key(1), binary(10));
    tier.put(key(2), binary(10));
    tier.clear();
    CHECK(tier.size() == 0);
    CHECK(tier.bytes() == 0);
    CHECK(tier.get(key(1)) == nullptr);
    CHECK(evicted == 0);
}

TEST_CASE("eviction when full reports each evicted entry; a too-large entry is not kept")
{
    std::vector<Sha1> evicted;
    MemoryTier tier(250, [&](const Sha1& k, const ProgramBinary&) { evicted.push_back(k); });
    tier.put(key(1), binary(100));
    tier.put(key(2), binary(100));
    tier.put(key(3), binary(100));
    CHECK(evicted == std::vector<Sha1>{key(1)});
    tier.put(key(4), binary(1000));
    CHECK(tier.peek(key(4)) == nullptr);
    CHECK(tier.bytes() <= 250);
    CHECK(tier.evictions() == 1);
}

TEST_CASE("replacing an entry keeps the byte count right")
{
    MemoryTier tier(1000);
    tier.put(key(1), binary(100));
    tier.put(key(1), binary(40));
    CHECK(tier.size() == 1);
    CHECK(tier.bytes() == 40);
}
