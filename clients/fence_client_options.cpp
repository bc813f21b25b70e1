// kiln-fence-client's command line.
#include "clients/fence_client_options.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

namespace kiln::clients {
namespace {

constexpr const char* usage = R"(Usage: kiln-fence-client [--mode two-buffers|same-buffer|cycle] [--source udmabuf|heap]
                         [--size WxH] [--color RRGGBB] [--color-b RRGGBB]
                         [--signal-after-ms N | --never-signal] [--commit-on-stdin] [--commit-after-ms N]
                         [--interval-ms N [--unthrottled]] [--buffers N] [--keep-colours] [--timeline-fd FD]
A dma-buf window whose content waits on test-controlled sw_sync fences (needs sw_sync.ko and debugfs).
  two-buffers  colour A, then colour B in a second buffer committed with a pending fence
  same-buffer  colour A, then the same buffer re-committed with a pending fence; B is written as it signals
  cycle        a new colour per frame in buffers reused only once released (fenced with --signal-after-ms)
The fence signals after --signal-after-ms, on a "signal" line on stdin, or on SIGUSR1; never with --never-signal.
--unthrottled (cycle): commit every --interval-ms on the client's own clock, not waiting for frame callbacks (as a
video player does), whenever a buffer is free. --keep-colours (cycle): each buffer keeps its first colour, so
whatever reads a buffer late (after its release) still finds the colour it was committed with.
Logs "<CLOCK_MONOTONIC ms> <event> key=value..." for each commit, write, release, frame, presentation (with the
output's refresh count, msc) and signal.
Exits 77 when the buffer source or sw_sync is missing.
)";

bool parse_int(const char* value, int low, int high, int& out)
{
    char* end = nullptr;
    const long v = std::strtol(value, &end, 10);
    if (*end || v < low || v > high)
        return false;
    out = static_cast<int>(v);
    return true;
}

}  // namespace

bool parse_fence_client_options(int argc, char** argv, FenceClientOptions& options)
{
    options.window.title = "kiln-fence-client";
    options.window.color = 0x2040c0;
    options.window.width = 160;
    options.window.height = 120;
    return parse_window_options(argc, argv, options.window, usage,
                                [&](const std::string& flag, const char* value, bool& used) {
                                    used = false;
                                    if (flag == "--never-signal")
                                        return options.never_signal = true;
                                    if (flag == "--commit-on-stdin")
                                        return options.commit_on_stdin = true;
                                    if (flag == "--unthrottled")
                                        return options.unthrottled = true;
                                    if (flag == "--keep-colours")
                                        return options.keep_colours = true;
                                    used = true;
                                    if (!value)
                                        return false;
                                    const std::string v = value;
                                    if (flag == "--mode") {
                                        if (v == "two-buffers")
                                            options.mode = FenceMode::two_buffers;
                                        else if (v == "same-buffer")
                                            options.mode = FenceMode::same_buffer;
                                        else if (v == "cycle")
                                            options.mode = FenceMode::cycle;
                                        else
                                            return false;
                                        return true;
                                    }
                                    if (flag == "--source") {
                                        if (v != "udmabuf" && v != "heap")
                                            return false;
                                        options.source = v == "heap" ? DmabufSource::heap : DmabufSource::udmabuf;
                                        return true;
                                    }
                                    if (flag == "--color-b") {
                                        char* end = nullptr;
                                        options.color_b = static_cast<uint32_t>(std::strtoul(value, &end, 16));
                                        return v.size() == 6 && !*end;
                                    }
                                    if (flag == "--signal-after-ms")
                                        return parse_int(value, 0, 600000, options.signal_after_ms);
                                    if (flag == "--commit-after-ms")
                                        return parse_int(value, 0, 600000, options.commit_after_ms);
                                    if (flag == "--interval-ms")
                                        return parse_int(value, 0, 600000, options.interval_ms);
                                    if (flag == "--buffers")
                                        return parse_int(value, 1, 8, options.buffers);
                                    if (flag == "--timeline-fd")
                                        return parse_int(value, 0, 1 << 20, options.timeline_fd);
                                    return false;
                                });
}

}  // namespace kiln::clients
