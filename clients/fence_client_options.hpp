// FenceClientOptions: what kiln-fence-client is asked to do (mode, colours, when fences signal), parsed from argv.
#pragma once

#include "clients/client_window.hpp"
#include "clients/dmabuf_allocator.hpp"

#include <cstdint>

namespace kiln::clients {

enum class FenceMode {
    two_buffers,  // A in one buffer; then B written into a second one, committed with a pending fence
    same_buffer,  // A; then the same buffer re-committed with a pending fence; B is written when it signals
    cycle,        // per-frame colours in buffers reused only once released, optionally each frame fenced
};

struct FenceClientOptions {
    WindowOptions window;
    FenceMode mode = FenceMode::two_buffers;
    DmabufSource source = DmabufSource::udmabuf;
    uint32_t color_b = 0xc02020;
    int signal_after_ms = -1;  // two/same: after the fenced commit; cycle: each frame's fence after its commit
    bool never_signal = false;
    bool commit_on_stdin = false;  // two/same: the fenced commit waits for a "commit" line
    int commit_after_ms = 0;       // two/same: otherwise this long after A's frame callback
    int interval_ms = 0;           // cycle: at least this long between commits
    bool keep_colours = false;     // cycle: a buffer keeps its first colour, never refilled on release
    bool unthrottled = false;      // cycle: commit every interval_ms without waiting for frame callbacks (a video)
    int buffers = 3;               // cycle
    int timeline_fd = -1;          // an inherited sw_sync timeline (the test keeps fences alive past this process)
};

// Parses argv; prints usage and returns false on a bad flag.
bool parse_fence_client_options(int argc, char** argv, FenceClientOptions& options);

}  // namespace kiln::clients
