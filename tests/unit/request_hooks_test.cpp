// The request-hook table: handlers of one request run in HookOrder (then registration order), only for their own
// interface and request, stop when their hook goes, and one protocol logger on a real display feeds the table.
#include "compositor/protocol_kit/request_hooks.hpp"

#include <catch2/catch_test_macros.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

using namespace kiln::compositor;

namespace {

const wl_protocol_logger_message no_message{};

}  // namespace

TEST_CASE("handlers of one request run in the stated order, whatever order they were added in")
{
    RequestTable table;
    std::vector<std::string> ran;
    auto note = [&ran](std::string name) {
        return [&ran, name](const wl_protocol_logger_message&) { ran.push_back(name); };
    };
    auto gate = table.add("wl_surface", 6, HookOrder::commit_gate, note("commit_gate"));
    auto viewporter = table.add("wl_surface", 6, HookOrder::viewporter, note("viewporter"));
    auto rules = table.add("wl_surface", 6, HookOrder::xdg_surface_rules, note("xdg_surface_rules"));
    auto guard = table.add("wl_surface", 6, HookOrder::request_guard, note("request_guard"));
    auto second_guard = table.add("wl_surface", 6, HookOrder::request_guard, note("request_guard, added later"));
    table.dispatch("wl_surface", 6, no_message);
    CHECK(ran == std::vector<std::string>{"xdg_surface_rules", "request_guard", "request_guard, added later",
                                          "viewporter", "commit_gate"});
}

TEST_CASE("a handler runs for its interface and request only; any_request takes every request of its interface")
{
    RequestTable table;
    int commits = 0, toplevel_requests = 0;
    auto commit = table.add(wl_surface_interface, "commit", HookOrder::viewporter,
                            [&](const wl_protocol_logger_message&) { ++commits; });
    auto any = table.add("xdg_toplevel", RequestTable::any_request, HookOrder::request_guard,
                         [&](const wl_protocol_logger_message&) { ++toplevel_requests; });
    table.dispatch("wl_surface", 6, no_message);  // commit is wl_surface's request 6
    table.dispatch("wl_surface", 1, no_message);  // attach
    table.dispatch("wl_subsurface", 6, no_message);
    table.dispatch("xdg_toplevel", 0, no_message);
    table.dispatch("xdg_toplevel", 2, no_message);
    table.dispatch("xdg_toplevel_icon_v1", 2, no_message);
    CHECK(commits == 1);
    CHECK(toplevel_requests == 2);
}

TEST_CASE("a handler stops running when its hook goes; a moved hook keeps it")
{
    RequestTable table;
    int first = 0, second = 0;
    RequestTable::Hook kept;
    {
        using Message = const wl_protocol_logger_message&;
        auto a = table.add("wl_surface", 0, HookOrder::defunct_role, [&](Message) { ++first; });
        auto b = table.add("wl_surface", 0, HookOrder::defunct_role, [&](Message) { ++second; });
        kept = std::move(b);
        table.dispatch("wl_surface", 0, no_message);
    }
    table.dispatch("wl_surface", 0, no_message);
    CHECK(first == 1);
    CHECK(second == 2);
    CHECK(table.size() == 1);
    kept = {};
    CHECK(table.size() == 0);
}

TEST_CASE("one protocol logger on a display feeds the table the requests clients send")
{
    wl_display* display = wl_display_create();
    REQUIRE(display);
    int fds[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
    {
        RequestHooks hooks(display);
        wl_client* client = wl_client_create(display, fds[0]);
        REQUIRE(client);
        int syncs = 0, registries = 0;
        auto sync = hooks.add(wl_display_interface, "sync", HookOrder::request_guard,
                              [&](const wl_protocol_logger_message& m) {
                                  CHECK(wl_resource_get_client(m.resource) == client);
                                  ++syncs;
                              });
        auto registry = hooks.add(wl_display_interface, "get_registry", HookOrder::request_guard,
                                  [&](const wl_protocol_logger_message&) { ++registries; });
        // wl_display@1.sync(new id 2), twice (ids 2 and 3), as a client writes it on the wire.
        const uint32_t requests[] = {1, (12u << 16) | 0, 2, 1, (12u << 16) | 0, 3};
        REQUIRE(write(fds[1], requests, sizeof(requests)) == static_cast<ssize_t>(sizeof(requests)));
        for (int i = 0; i < 10 && syncs < 2; ++i)
            wl_event_loop_dispatch(wl_display_get_event_loop(display), 100);
        CHECK(syncs == 2);
        CHECK(registries == 0);
        wl_client_destroy(client);
    }
    close(fds[1]);
    wl_display_destroy(display);
}
