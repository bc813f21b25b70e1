// `kiln msg`: the command-line client of kiln's control socket: builds one request from its arguments, prints the
// JSON reply (or, subscribed, each event line), and exits non-zero with a message when kiln says no.
#pragma once

namespace kiln::compositor::ipc {

// argv[0] is "msg". Exit status: 0 done, 1 refused or no kiln to talk to, 2 bad arguments.
int run_msg(int argc, char* argv[]);

}  // namespace kiln::compositor::ipc
