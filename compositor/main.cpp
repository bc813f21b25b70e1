// kiln's entry point (and `kiln msg`'s): read kiln.ini and the command line, run the server (reading kiln.ini again on
// SIGHUP), write the stats; when kiln cannot start, the last log lines go to $XDG_STATE_HOME/kiln/.
#include "compositor/input/keymap.hpp"
#include "compositor/ipc/msg_client.hpp"
#include "compositor/log.hpp"
#include "compositor/session/config.hpp"
#include "compositor/session/failure_log.hpp"
#include "compositor/session/fd_limit.hpp"
#include "compositor/session/options.hpp"
#include "compositor/server.hpp"
#include "compositor/stats.hpp"
#include "compositor/wlr.hpp"
#include "renderer/cache/driver_shader_cache.hpp"
#include "renderer/cache/tiered_program_cache.hpp"

#include <cstdarg>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <pthread.h>
#include <string_view>
#include <unistd.h>

namespace {

using kiln::compositor::FailureLog;

// wlroots' log callback has no user data: the start-up's FailureLog and the level the user asked for live here,
// set once in main before the first log line.
FailureLog* failure_log = nullptr;
wlr_log_importance printed_level = WLR_ERROR;

void log_line(wlr_log_importance importance, const char* format, va_list args)
{
    char line[1024];
    std::vsnprintf(line, sizeof(line), format, args);
    if (importance <= printed_level)
        std::fprintf(stderr, "%s\n", line);
    if (failure_log)
        failure_log->add(line);
}

// kiln's own message: on stderr, and kept for the failure log.
void report(const std::string& message)
{
    kiln::compositor::log::error("%s", message.c_str());
    if (failure_log)
        failure_log->add("kiln: " + message);
}

const char* getenv_lookup(const char* name) { return std::getenv(name); }

// kiln.ini again (the same file, or the XDG lookup again) with the flags on top; nullopt keeps the running
// settings: the file cannot be read, or the flags no longer parse.
std::optional<kiln::compositor::Options> reread_config(int argc, const char* const* argv)
{
    using namespace kiln::compositor;
    ParseResult flags = parse_flags(argc, argv);
    if (!flags.options)
        return std::nullopt;
    std::optional<std::filesystem::path> file;
    if (!flags.options->config_file.empty())
        file = flags.options->config_file;
    else
        file = find_config(getenv_lookup);
    Options from_file;
    std::vector<ConfigProblem> problems;
    if (file)
        apply_config_file(*file, from_file, problems);
    bool unreadable = false;
    for (const auto& problem : problems) {
        log::error("%s", describe(problem).c_str());
        unreadable |= problem.line == 0;
    }
    if (unreadable) {
        log::error("kiln.ini not reloaded; the running settings stay");
        return std::nullopt;
    }
    ParseResult parsed = parse_options(argc, argv, std::move(from_file));
    if (!parsed.options)
        return std::nullopt;
    return parsed.options;
}

int run_kiln(int argc, char* argv[])
{
    using namespace kiln::compositor;
    FailureLog start_log;
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
        for (const auto& problem : problems) {
            log::error("%s", describe(problem).c_str());
            start_log.add("kiln: " + describe(problem));
        }
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

    // Every wlroots line of the start-up is kept (debug ones too) for the failure log; stderr gets what was asked.
    printed_level = options.debug ? WLR_DEBUG : WLR_ERROR;
    failure_log = &start_log;
    wlr_log_init(WLR_DEBUG, log_line);

    // Before EGL exists and before any thread: Mesa and NVIDIA read their cache locations from the environment.
    const std::filesystem::path cache_dir = options.cache_dir.empty() ? kiln::cache::default_user_cache_dir()
                                                                      : std::filesystem::path(options.cache_dir);
    const std::string driver_cache = kiln::cache::keep_driver_cache_in(cache_dir);
    if (options.debug)
        log::notice("%s", driver_cache.c_str());

    // Before any thread: each client is an open file in kiln, and 1024 would cap a session at ~500 clients
    // (children get 1024 back).
    raise_fd_limit();

    Stats stats(process_start);
    stats.set("driver_caches.placement", driver_cache);
    int status = 0;
    {
        Server server(options, stats);
        server.on_reload([argc, argv]() { return reread_config(argc, argv); });
        std::string error;
        if (!server.start(error)) {
            report(error);
            std::string write_error;
            if (auto file = start_log.write(getenv_lookup, write_error))
                log::error("the start-up's last log lines are in %s", file->c_str());
            else
                log::error("cannot keep the start-up log: %s", write_error.c_str());
            status = 1;
        } else {
            // Started: from here wlroots logs only at the level asked for, and nothing more is kept.
            failure_log = nullptr;
            wlr_log_init(printed_level, log_line);
            status = server.run();
        }
        if (!options.stats_file.empty()) {
            std::string write_error;
            if (!stats.write(options.stats_file, write_error))
                log::error("%s", write_error.c_str());
        }
    }
    return status;
}

// Before any thread exists and before the socket opens: every thread inherits the mask, and a SIGTERM, SIGINT or
// SIGHUP that comes during start-up waits for the event loop's signalfd (SignalHandlers) instead of killing kiln
// half-started (TERM, HUP) or being lost (INT). Children get an empty mask (spawn.cpp).
void block_handled_signals(int, char**, char**)
{
    sigset_t handled;
    sigemptyset(&handled);
    sigaddset(&handled, SIGTERM);
    sigaddset(&handled, SIGINT);
    sigaddset(&handled, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &handled, nullptr);
    // A shell starts a background job with SIGINT ignored, and an ignored signal is dropped even while blocked: kiln
    // ends on SIGINT however it was started. (SIGHUP ignored, as nohup leaves it, stays ignored: no reloads then.)
    std::signal(SIGINT, SIG_DFL);
}

// glibc runs the executable's preinit_array right after the dynamic loader has mapped and relocated the libraries,
// before any library's constructor (GLib's, Pango's, ... which take tens of milliseconds on a loaded machine): what
// is left unguarded is the loader's own work.
[[gnu::section(".preinit_array"), gnu::used]] void (*const block_signals_first)(int, char**, char**) =
    block_handled_signals;

}  // namespace

int main(int argc, char* argv[])
{
    block_handled_signals(argc, argv, environ);  // again, where no preinit_array ran it

    // `kiln msg ...`: a client of a running kiln, not a compositor (compositor/ipc/msg_client.hpp).
    if (argc > 1 && std::string_view(argv[1]) == "msg")
        return kiln::compositor::ipc::run_msg(argc - 1, argv + 1);

    // An exception that reaches here (memory, a filesystem call that throws) is one line and exit 1, not an abort.
    try {
        return run_kiln(argc, argv);
    } catch (const std::exception& error) {
        kiln::compositor::log::error("cannot go on: %s", error.what());
    } catch (...) {
        kiln::compositor::log::error("cannot go on: an unknown exception");
    }
    return 1;
}
