// kiln's entry point: read kiln.ini and the command line, run the server, write the stats.
#include "compositor/input/keymap.hpp"
#include "compositor/session/config.hpp"
#include "compositor/session/options.hpp"
#include "compositor/server.hpp"
#include "compositor/stats.hpp"
#include "compositor/wlr.hpp"
#include "renderer/cache/driver_shader_cache.hpp"
#include "renderer/cache/tiered_program_cache.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <pthread.h>

int main(int argc, char* argv[])
{
    using namespace kiln::compositor;
    const auto process_start = Stats::Clock::now();

    // The flags alone first: they name the file (--config) and may be wrong (exit 2 before reading anything).
    ParseResult flags = parse_flags(argc, argv);
    if (!flags.options) {
        std::fprintf(stderr, "kiln: %s\n\n%s", flags.error.c_str(), usage(argv[0]).c_str());
        return 2;
    }
    Options from_file;
    std::vector<ConfigProblem> problems;
    if (!flags.options->help && !flags.options->version) {
        std::optional<std::filesystem::path> file;
        if (!flags.options->config_file.empty())
            file = flags.options->config_file;
        else
            file = find_config([](const char* name) { return std::getenv(name); });
        if (file)
            apply_config_file(*file, from_file, problems);
        // A running kiln says so when a keyboard appears; --check-config says so now.
        const KeyboardSettings& keyboard = from_file.keyboard;
        const bool names_keymap = !keyboard.rules.empty() || !keyboard.model.empty() || !keyboard.layout.empty() ||
                                  !keyboard.variant.empty() || !keyboard.options.empty();
        if (file && flags.options->check_config && names_keymap)
            if (std::string reason = keymap_problem(keyboard); !reason.empty())
                problems.push_back({file->string(), 0, reason});
        for (const auto& problem : problems)
            std::fprintf(stderr, "kiln: %s\n", describe(problem).c_str());
        if (flags.options->check_config) {
            if (!file)
                std::printf("kiln: no kiln.ini found; kiln runs with its defaults\n");
            else if (problems.empty())
                std::printf("kiln: %s is fine\n", file->c_str());
            return problems.empty() ? 0 : 1;
        }
    }
    // Then the flags again on top of the file's settings: flags win.
    ParseResult parsed = parse_options(argc, argv, std::move(from_file));
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
