// The tiered program cache on llvmpipe: keys, status caches, memory and disk tiers, fallbacks, blob cache.
#include "renderer/cache/entry_file.hpp"
#include "renderer/cache/program_key.hpp"
#include "renderer/cache/tiered_program_cache.hpp"
#include "tests/cache/cache_fixture.hpp"

#include <catch2/catch_test_macros.hpp>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sys/wait.h>
#include <unistd.h>

using namespace kiln;
using namespace kiln::cache;
using kiln::test::colour_program;
using kiln::test::draw_centre;
using kiln::test::GlContext;
using kiln::test::quiet_options;
using kiln::test::TempDir;

namespace {

// Stores `source` through a cache on `dir` and returns its entry file and the file's bytes.
std::pair<std::filesystem::path, std::vector<char>> stored_entry(GlContext& gl, const TempDir& dir,
                                                                 const renderer::ProgramSource& source)
{
    std::string error;
    std::filesystem::path entry;
    {
        TieredProgramCache cache(quiet_options(dir.path));
        cache.context_ready(gl.display->handle(), "");
        REQUIRE(cache.get(source, error));
        cache.flush();
        for (const auto& e : cache.user_tier()->list())
            if (e.kind == EntryKind::program)
                entry = e.path;
    }
    REQUIRE(!entry.empty());
    std::ifstream in(entry, std::ios::binary);
    return {entry, std::vector<char>(std::istreambuf_iterator<char>(in), {})};
}

}  // namespace

TEST_CASE("keys: a source or attribute change gives another key; equal inputs give the same key", "[cache]")
{
    const auto a = program_key(colour_program("a"));
    CHECK(program_key(colour_program("renamed")).program == a.program);  // the name is only for logs
    CHECK(program_key(colour_program("a", 1)).program != a.program);     // fragment source changed
    CHECK(program_key(colour_program("a", 1)).vertex == a.vertex);
    auto vs_changed = colour_program("a");
    vs_changed.vertex += "\n";
    CHECK(program_key(vs_changed).program != a.program);
    CHECK(program_key(vs_changed).fragment == a.fragment);
    CHECK(program_key(colour_program("a", 0, {{"pos", 3}})).program != a.program);
    CHECK(program_key(colour_program("a", 0, {{"pos", 0}, {"extra", 1}})).program != a.program);
    CHECK(shader_key("x") == sha1(std::string_view("x")));
}

TEST_CASE("a miss compiles and links; the program draws; its status and binary are kept", "[cache][gl]")
{
    GlContext gl;
    TieredProgramCache cache(quiet_options({}));
    cache.context_ready(gl.display->handle(), "");
    std::string error;
    auto source = colour_program("red");
    auto result = cache.get(source, error);
    INFO(error);
    REQUIRE(result);
    CHECK(result->origin == renderer::ProgramOrigin::compiled);
    CHECK(cache.linked_from_source() == 1);
    const auto key = program_key(source);
    CHECK(cache.links().linked(key.program));
    CHECK(cache.shaders().compiled(key.vertex));
    CHECK(cache.shaders().compiled(key.fragment));
    CHECK(cache.memory().peek(key.program) != nullptr);
    CHECK(draw_centre(result->program.id(), 1, 0, 0) == 0xff0000);
}

TEST_CASE("a cached program loads from memory without relinking and keeps attribute and uniform locations",
          "[cache][gl]")
{
    GlContext gl;
    TieredProgramCache cache(quiet_options({}));
    cache.context_ready(gl.display->handle(), "");
    std::string error;
    auto source = colour_program("green", 0, {{"pos", 5}, {"extra", 2}});
    auto first = cache.get(source, error);
    REQUIRE(first);
    const GLint uniform = glGetUniformLocation(first->program.id(), "colour");
    auto second = cache.get(source, error);
    REQUIRE(second);
    CHECK(second->origin == renderer::ProgramOrigin::memory);
    CHECK(cache.linked_from_source() == 1);
    CHECK(cache.stats().loaded_from_memory == 1);
    CHECK(glGetAttribLocation(second->program.id(), "pos") == 5);
    CHECK(glGetUniformLocation(second->program.id(), "colour") == uniform);
    CHECK(draw_centre(second->program.id(), 0, 1, 0) == 0x00ff00);
}

TEST_CASE("different sources or attribute maps never return the same program", "[cache][gl]")
{
    GlContext gl;
    TieredProgramCache cache(quiet_options({}));
    cache.context_ready(gl.display->handle(), "");
    std::string error;
    auto a = cache.get(colour_program("a", 0, {{"pos", 0}}), error);
    auto b = cache.get(colour_program("a", 0, {{"pos", 4}}), error);
    auto c = cache.get(colour_program("a", 7), error);
    REQUIRE((a && b && c));
    CHECK(cache.linked_from_source() == 3);
    CHECK(b->origin == renderer::ProgramOrigin::compiled);
    CHECK(glGetAttribLocation(a->program.id(), "pos") == 0);
    CHECK(glGetAttribLocation(b->program.id(), "pos") == 4);
}

TEST_CASE("a shader shared by several programs is compiled once, and released when they are evicted", "[cache][gl]")
{
    GlContext gl;
    TieredProgramCache cache(quiet_options({}));
    cache.context_ready(gl.display->handle(), "");
    std::string error;
    for (int i = 0; i < 4; ++i)
        REQUIRE(cache.get(colour_program("p", i), error));
    const auto vertex = program_key(colour_program("p", 0)).vertex;
    CHECK(cache.stats().shaders_compiled == 5);  // one vertex shader + four fragment shaders
    CHECK(cache.stats().shaders_reused == 3);
    CHECK(cache.shaders().refs(vertex) == 4);

    // Eviction with shader reuse: the shared vertex shader stays while any program holds it...
    auto popped = cache.memory().pop();
    REQUIRE(popped);
    cache.shaders().release(popped->second.vertex);
    cache.shaders().release(popped->second.fragment);
    CHECK(cache.shaders().compiled(vertex));
    CHECK_FALSE(cache.shaders().compiled(popped->second.fragment));
    // ...and without: once the last program goes, so does its compile status.
    while (auto next = cache.memory().pop()) {
        cache.shaders().release(next->second.vertex);
        cache.shaders().release(next->second.fragment);
    }
    CHECK_FALSE(cache.shaders().compiled(vertex));
}

TEST_CASE("eviction when the memory tier is full keeps it within budget and later misses recompile", "[cache][gl]")
{
    GlContext gl;
    auto options = quiet_options({});
    std::string error;
    // Measure one binary, then allow room for two.
    size_t one = 0;
    {
        TieredProgramCache probe(options);
        probe.context_ready(gl.display->handle(), "");
        REQUIRE(probe.get(colour_program("size"), error));
        one = probe.memory().bytes();
        REQUIRE(one > 0);
    }
    options.memory_budget = one * 2 + one / 2;
    TieredProgramCache cache(options);
    cache.context_ready(gl.display->handle(), "");
    for (int i = 0; i < 5; ++i)
        REQUIRE(cache.get(colour_program("e", i), error));
    CHECK(cache.memory().size() == 2);
    CHECK(cache.memory().bytes() <= options.memory_budget);
    CHECK(cache.memory().evictions() == 3);
    auto again = cache.get(colour_program("e", 0), error);
    REQUIRE(again);
    CHECK(again->origin == renderer::ProgramOrigin::compiled);
}

TEST_CASE("a link or compile failure is reported, remembered, and not retried", "[cache][gl]")
{
    GlContext gl;
    TieredProgramCache cache(quiet_options({}));
    cache.context_ready(gl.display->handle(), "");
    auto broken = colour_program("broken");
    broken.fragment = "#version 100\nvoid main() { gl_FragColor = undefined_thing; }\n";
    std::string error;
    CHECK_FALSE(cache.get(broken, error));
    CHECK_FALSE(error.empty());
    std::string again;
    CHECK_FALSE(cache.get(broken, again));
    CHECK(again == error);
    CHECK(cache.links().failure(program_key(broken).program) != nullptr);
}

TEST_CASE("clear empties memory and status caches; the next lookup compiles", "[cache][gl]")
{
    GlContext gl;
    TieredProgramCache cache(quiet_options({}));
    cache.context_ready(gl.display->handle(), "");
    std::string error;
    REQUIRE(cache.get(colour_program("c"), error));
    cache.clear_memory();
    CHECK(cache.memory().size() == 0);
    CHECK(cache.shaders().size() == 0);
    auto result = cache.get(colour_program("c"), error);
    REQUIRE(result);
    CHECK(result->origin == renderer::ProgramOrigin::compiled);
}

TEST_CASE("a program stored by one cache loads from the user disk tier in the next, and draws right", "[cache][gl]")
{
    GlContext gl;
    TempDir dir;
    std::string error;
    {
        TieredProgramCache cache(quiet_options(dir.path));
        cache.context_ready(gl.display->handle(), "");
        REQUIRE(cache.get(colour_program("disk"), error));
        cache.flush();
    }
    TieredProgramCache cache(quiet_options(dir.path));
    cache.context_ready(gl.display->handle(), "");
    auto result = cache.get(colour_program("disk"), error);
    REQUIRE(result);
    CHECK(result->origin == renderer::ProgramOrigin::disk);
    CHECK(cache.linked_from_source() == 0);
    // The hit's time, and kiln's own part of it (the read before the driver gets the binary), are both measured.
    CHECK(cache.stats().disk_hit_ms.count() == 1);
    CHECK(cache.stats().disk_read_ms.count() == 1);
    CHECK(cache.stats().disk_read_ms.max() <= cache.stats().disk_hit_ms.max());
    CHECK(draw_centre(result->program.id(), 0, 0, 1) == 0x0000ff);
    // And is copied up: the next lookup is a memory hit.
    CHECK(cache.get(colour_program("disk"), error)->origin == renderer::ProgramOrigin::memory);
}

TEST_CASE("the read-only system tier serves a program and the hit is copied up into the user tier", "[cache][gl]")
{
    GlContext gl;
    TempDir system;
    TempDir user;
    std::string error;
    {
        TieredProgramCache baker(quiet_options(system.path));  // "pre-baked" as an image build would
        baker.context_ready(gl.display->handle(), "");
        REQUIRE(baker.get(colour_program("sys"), error));
        baker.flush();
    }
    {
        TieredProgramCache cache(quiet_options(user.path, system.path));
        cache.context_ready(gl.display->handle(), "");
        auto result = cache.get(colour_program("sys"), error);
        REQUIRE(result);
        CHECK(result->origin == renderer::ProgramOrigin::disk);
        CHECK(cache.stats().loaded_from_system == 1);
        CHECK(draw_centre(result->program.id(), 1, 1, 0) == 0xffff00);
        cache.flush();
    }
    TieredProgramCache user_only(quiet_options(user.path));
    user_only.context_ready(gl.display->handle(), "");
    auto result = user_only.get(colour_program("sys"), error);
    REQUIRE(result);
    CHECK(result->origin == renderer::ProgramOrigin::disk);
    CHECK(user_only.stats().loaded_from_system == 0);
}

TEST_CASE("a corrupt, truncated or foreign entry is discarded and the program recompiled", "[cache][gl]")
{
    GlContext gl;
    TempDir dir;
    std::string error;
    const auto [entry, original] = stored_entry(gl, dir, colour_program("bad"));
    const std::vector<std::pair<const char*, std::vector<char>>> damages{
        {"a flipped payload byte", [&] { auto d = original; d[d.size() / 2] ^= 0x40; return d; }()},
        {"truncated", std::vector<char>(original.begin(), original.begin() + static_cast<long>(original.size() / 3))},
        {"empty", {}},
        {"wrong version", [&] { auto d = original; d[8] = 99; return d; }()},
    };
    for (const auto& [what, bytes] : damages) {
        INFO(what);
        {
            std::ofstream out(entry, std::ios::binary | std::ios::trunc);
            out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        }
        TieredProgramCache cache(quiet_options(dir.path));
        cache.context_ready(gl.display->handle(), "");
        auto result = cache.get(colour_program("bad"), error);
        REQUIRE(result);
        CHECK(result->origin == renderer::ProgramOrigin::compiled);
        cache.wait_for_disk_load();  // its check of the entries' headers may be the one that found it torn
        CHECK(cache.disk_discarded() == 1);
        CHECK(draw_centre(result->program.id(), 1, 0, 1) == 0xff00ff);
        cache.flush();  // the recompiled program is stored again, whole
    }
}

TEST_CASE("a binary the driver refuses falls back to compiling", "[cache][gl]")
{
    GlContext gl;
    TieredProgramCache cache(quiet_options({}));
    cache.context_ready(gl.display->handle(), "");
    std::string error;
    auto source = colour_program("refused");
    REQUIRE(cache.get(source, error));
    // Replace the binary in memory with one of an unknown format (intact, but not this driver's).
    auto binary = *cache.memory().peek(program_key(source).program);
    binary.format = 0xdead;
    cache.memory().put(program_key(source).program, binary);
    auto result = cache.get(source, error);
    REQUIRE(result);
    CHECK(result->origin == renderer::ProgramOrigin::compiled);
    CHECK(cache.stats().binary_rejected == 1);
}

TEST_CASE("the precompile list records programs and logs each new one once", "[cache][gl]")
{
    GlContext gl;
    TempDir dir;
    std::vector<std::string> logged;
    std::string error;
    {
        auto options = quiet_options(dir.path);
        options.log = [&](const std::string& m) { logged.push_back(m); };
        TieredProgramCache cache(options);
        cache.context_ready(gl.display->handle(), "");
        CHECK_FALSE(cache.has_precompile_list());
        REQUIRE(cache.get(colour_program("listed"), error));
        REQUIRE(cache.get(colour_program("listed"), error));
        cache.flush();
    }
    CHECK(std::count_if(logged.begin(), logged.end(),
                        [](auto& m) { return m.find("new program encountered: listed") != std::string::npos; }) == 1);
    TieredProgramCache cache(quiet_options(dir.path));
    cache.context_ready(gl.display->handle(), "");
    CHECK(cache.has_precompile_list());
    CHECK(cache.listed(colour_program("listed")));
    CHECK_FALSE(cache.listed(colour_program("listed", 3)));
    CHECK(cache.stats().new_programs == 0);
}

TEST_CASE("a second process with Mesa's own cache disabled is served by kiln's blob cache", "[cache][gl]")
{
    TempDir dir;
    auto run = [&](const char* expect) {
        const pid_t pid = fork();
        if (pid == 0) {
            setenv("MESA_SHADER_CACHE_DISABLE", "true", 1);
            execl(kiln::test::self_path().c_str(), "cache-tests", "--blob-child", dir.path.c_str(), expect,
                  static_cast<char*>(nullptr));
            _exit(127);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    };
    const int first = run("stores");
    if (first == 77)
        SKIP("the EGL display has no EGL_ANDROID_blob_cache");
    CHECK(first == 0);
    CHECK(run("hits") == 0);
}

TEST_CASE("fuzz through the whole lookup: mutated program entries never reach the driver and never crash it",
          "[cache][gl]")
{
    GlContext gl;
    TempDir dir;
    std::string error;
    const auto [entry, original] = stored_entry(gl, dir, colour_program("fuzzed"));
    std::mt19937 rng(7);
    TieredProgramCache cache(quiet_options(dir.path));
    cache.context_ready(gl.display->handle(), "");
    uint64_t from_disk = 0;
    for (int round = 0; round < 400; ++round) {
        auto bytes = original;
        if (round % 2 == 0)
            bytes[rng() % bytes.size()] ^= static_cast<char>(1u << (rng() % 8));
        else
            bytes.resize(rng() % bytes.size());
        {
            std::ofstream out(entry, std::ios::binary | std::ios::trunc);
            out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        }
        cache.clear_memory();
        auto result = cache.get(colour_program("fuzzed"), error);
        REQUIRE(result);
        from_disk += result->origin == renderer::ProgramOrigin::disk;
        if (round % 100 == 0)
            CHECK(draw_centre(result->program.id(), 1, 0, 0) == 0xff0000);
        cache.user_tier()->flush();
    }
    CHECK(from_disk == 0);
    CHECK(cache.disk_discarded() == 400);
}
