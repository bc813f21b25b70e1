// CommittedValues: a surface's pending value shows only after its commit, `changed` hears each change once, and a
// surface is forgotten (its listeners gone) when it goes, or when it is back at the initial value with no object.
#include "compositor/protocol_kit/committed_values.hpp"

#include <catch2/catch_test_macros.hpp>

#include <utility>
#include <vector>

namespace {

using kiln::compositor::CommittedValues;

// Only the two signals CommittedValues listens to are set up on the stand-in surface.
struct FakeSurface {
    wlr_surface surface{};
    FakeSurface()
    {
        wl_signal_init(&surface.events.commit);
        wl_signal_init(&surface.events.destroy);
    }
    void commit() { wl_signal_emit(&surface.events.commit, &surface); }
    void destroy() { wl_signal_emit(&surface.events.destroy, &surface); }
    bool listened() const
    {
        return !wl_list_empty(&surface.events.commit.listener_list) ||
               !wl_list_empty(&surface.events.destroy.listener_list);
    }
};

struct Seen {
    bool held = true;
    std::vector<std::pair<wlr_surface*, int>> changes;
};

CommittedValues<int> values_for(Seen& seen)
{
    return CommittedValues<int>(
        7, [&seen](wlr_surface*) { return seen.held; },
        [&seen](wlr_surface* surface, const int& value) { seen.changes.emplace_back(surface, value); });
}

}  // namespace

TEST_CASE("a pending value shows after the surface's commit, and changed hears it once")
{
    Seen seen;
    auto values = values_for(seen);
    FakeSurface a;
    CHECK(values.current(&a.surface) == 7);
    values.set_pending(&a.surface, 3);
    CHECK(values.current(&a.surface) == 7);
    CHECK(values.pending(&a.surface) == 3);
    a.commit();
    CHECK(values.current(&a.surface) == 3);
    a.commit();  // nothing new pending: no second change
    REQUIRE(seen.changes.size() == 1);
    CHECK(seen.changes[0] == std::pair{&a.surface, 3});
    CHECK(values.count([](int v) { return v == 3; }) == 1);

    values.set_pending(&a.surface, 3);  // set again to the same value: committed, but no change
    a.commit();
    CHECK(seen.changes.size() == 1);
}

TEST_CASE("a surface that goes is forgotten, listeners and all")
{
    Seen seen;
    auto values = values_for(seen);
    FakeSurface a;
    values.set_pending(&a.surface, 4);
    a.commit();
    REQUIRE(a.listened());
    a.destroy();
    CHECK_FALSE(a.listened());
    CHECK(values.count([](int) { return true; }) == 0);
}

TEST_CASE("back at the initial value: kept while the object is held, forgotten once it is not")
{
    Seen seen;
    auto values = values_for(seen);
    FakeSurface a;
    FakeSurface b;
    values.set_pending(&a.surface, 5);
    values.set_pending(&b.surface, 5);
    a.commit();
    b.commit();

    values.set_pending(&a.surface, 7);
    a.commit();
    CHECK(a.listened());  // its object may set it again

    seen.held = false;
    values.set_pending(&b.surface, 7);
    b.commit();
    CHECK_FALSE(b.listened());
    CHECK(values.current(&b.surface) == 7);
    CHECK(seen.changes.back() == std::pair{&b.surface, 7});
}

TEST_CASE("values still kept when the CommittedValues goes leave no listener behind")
{
    FakeSurface a;
    {
        Seen seen;
        auto values = values_for(seen);
        values.track(&a.surface);
        REQUIRE(a.listened());
    }
    CHECK_FALSE(a.listened());
}
