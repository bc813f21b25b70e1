// Stats: dotted keys become nested JSON, providers add their numbers at write time.
#include "compositor/stats.hpp"

#include <catch2/catch_test_macros.hpp>

using kiln::compositor::Stats;

TEST_CASE("dotted keys nest and values keep their types")
{
    Stats stats(Stats::Clock::now());
    stats.set("startup.first_frame_ms", 12.5);
    stats.set("frames.rendered", uint64_t{42});
    stats.set("renderer.driver", std::string("llvm\"pipe"));
    const std::string json = stats.to_json();
    CHECK(json.find("\"startup\": {") != std::string::npos);
    CHECK(json.find("\"first_frame_ms\": 12.500") != std::string::npos);
    CHECK(json.find("\"rendered\": 42") != std::string::npos);
    CHECK(json.find("\"driver\": \"llvm\\\"pipe\"") != std::string::npos);
}

TEST_CASE("providers report when the file is written, and mark_once keeps the first time")
{
    Stats stats(Stats::Clock::now());
    int calls = 0;
    stats.add_provider([&](Stats& s) {
        ++calls;
        s.set("buffers.dmabuf_imports", uint64_t{3});
    });
    stats.mark_once("startup.first_frame_ms");
    const std::string first = stats.to_json();
    stats.mark_once("startup.first_frame_ms");
    CHECK(stats.to_json() == first);
    CHECK(calls == 2);
    CHECK(first.find("\"dmabuf_imports\": 3") != std::string::npos);
}

TEST_CASE("median of frame times")
{
    CHECK(kiln::compositor::median({}) == 0.0);
    CHECK(kiln::compositor::median({3.0, 1.0, 2.0}) == 2.0);
}
