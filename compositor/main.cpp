// kiln's entry point: parse the command line, run the server, write the stats.
#include "compositor/session/options.hpp"
#include "compositor/server.hpp"
#include "compositor/stats.hpp"
#include "compositor/wlr.hpp"
#include "renderer/cache/driver_shader_cache.hpp"
#include "renderer/cache/tiered_program_cache.hpp"

#include <csignal>
#include <cstdio>
#include <pthread.h>

int main(int argc, char* argv[])
{
    using namespace kiln::compositor;
    const auto process_start = Stats::Clock::now();

    ParseResult parsed = parse_options(argc, argv);
    if (!parsed.options) {
        std::fprintf(stderr, "kiln: %s\n\n%s", parsed.error.c_str(), usage(argv[0]).c_str());
        return 2;
    }
    const Options& options = *parsed.options;
    if (options.help) {
        std::fputs(usage(argv[0]).c_str(), stdout);
        return 0;
    }
    if (options.version) {
        std::printf("kiln %s (wlroots %s)\n", KILN_VERSION, WLR_VERSION_STR);
        return 0;
    }

    wlr_log_init(options.debug ? WLR_DEBUG : WLR_ERROR, nullptr);

    // Before EGL exists and before any thread: Mesa reads its cache location once, from the environment.
    const std::filesystem::path cache_dir = options.cache_dir.empty() ? kiln::cache::default_user_cache_dir()
                                                                      : std::filesystem::path(options.cache_dir);
    const std::string driver_cache = kiln::cache::keep_driver_cache_in(cache_dir);
    if (options.debug)
        std::fprintf(stderr, "kiln: %s\n", driver_cache.c_str());

    // Blocked before any thread exists and before the socket opens: every thread inherits the mask, and a SIGTERM
    // that arrives during start-up waits for the event loop's signalfd instead of killing kiln half-started.
    sigset_t handled;
    sigemptyset(&handled);
    sigaddset(&handled, SIGTERM);
    sigaddset(&handled, SIGINT);
    pthread_sigmask(SIG_BLOCK, &handled, nullptr);

    Stats stats(process_start);
    int status = 0;
    {
        Server server(options, stats);
        std::string error;
        if (!server.start(error)) {
            std::fprintf(stderr, "kiln: %s\n", error.c_str());
            status = 1;
        } else {
            status = server.run();
        }
        if (!options.stats_file.empty()) {
            std::string write_error;
            if (!stats.write(options.stats_file, write_error))
                std::fprintf(stderr, "kiln: %s\n", write_error.c_str());
        }
    }
    return status;
}
