// Entry point of the cache suite. Besides Catch2's tests it has child modes that the tests run as separate
// processes: a blob-cache client, concurrent writers, and a writer meeting planted temporary names.
#include "renderer/cache/disk_tier.hpp"
#include "tests/cache/cache_fixture.hpp"

#include <catch2/catch_session.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

namespace kiln::test {
int disk_writer_child(int argc, char** argv);   // disk_tier_test.cpp
int planted_temp_child(int argc, char** argv);  // private_files_test.cpp
}

namespace {

// Compiles, links and draws a few programs through a TieredProgramCache on `dir`, with MESA_SHADER_CACHE_DISABLE
// set by the parent. "stores": the driver must have stored blobs; "hits": it must have been served from them.
int blob_child(const char* dir, const std::string& expect)
{
    using namespace kiln;
    std::string error;
    auto display = renderer::EglDisplay::open({}, error);
    if (!display)
        return 77;
    cache::TieredProgramCache cache(test::quiet_options(dir));
    cache.context_ready(display->handle(), "");
    if (!cache.blob_cache_installed())
        return 77;
    for (int i = 0; i < 3; ++i) {
        auto result = cache.get(test::colour_program("blob", i), error);
        if (!result || test::draw_centre(result->program.id(), 0, 1, 1) != 0x00ffff) {
            std::fprintf(stderr, "blob child: program %d failed: %s\n", i, error.c_str());
            return 1;
        }
    }
    cache.flush();
    const auto& s = cache.stats();
    std::printf("blob child (%s): stores %llu hits %llu misses %llu\n", expect.c_str(),
                static_cast<unsigned long long>(s.blob_stores), static_cast<unsigned long long>(s.blob_hits),
                static_cast<unsigned long long>(s.blob_misses));
    if (expect == "stores")
        return s.blob_stores > 0 ? 0 : 1;
    return s.blob_hits > 0 && s.loaded_from_disk == 3 ? 0 : 1;
}

// Mesa's own shader cache, which every GL context here would otherwise write under $HOME: a directory of this run,
// removed when the run ends, so tests leave nothing behind and no run sees another's driver cache.
class DriverCacheDir {
public:
    DriverCacheDir()
    {
        std::string pattern = (std::filesystem::temp_directory_path() / "kiln-cache-tests-mesa-XXXXXX").string();
        if (mkdtemp(pattern.data())) {
            path_ = pattern;
            setenv("MESA_SHADER_CACHE_DIR", pattern.c_str(), 1);  // child modes inherit it
        }
    }
    ~DriverCacheDir()
    {
        std::error_code ec;
        if (!path_.empty())
            std::filesystem::remove_all(path_, ec);
    }
    DriverCacheDir(const DriverCacheDir&) = delete;
    DriverCacheDir& operator=(const DriverCacheDir&) = delete;

private:
    std::filesystem::path path_;
};

}  // namespace

int main(int argc, char* argv[])
{
    if (argc >= 4 && std::strcmp(argv[1], "--blob-child") == 0)
        return blob_child(argv[2], argv[3]);
    if (argc >= 2 && std::strcmp(argv[1], "--disk-writer") == 0)
        return kiln::test::disk_writer_child(argc, argv);
    if (argc >= 2 && std::strcmp(argv[1], "--planted-temp-child") == 0)
        return kiln::test::planted_temp_child(argc, argv);
    const DriverCacheDir driver_cache;
    std::string why;
    if (!kiln::renderer::EglDisplay::open({}, why)) {
        std::printf("SKIP: no EGL display (%s)\n", why.c_str());
        return 77;
    }
    return Catch::Session().run(argc, argv);
}
