// The limit on open files: kiln raises its own soft limit to the hard one at start (every client is an fd, every
// security context four), and a child it forks gets back the limit kiln started with (select() and old programs
// expect 1024).
#pragma once

#include <sys/resource.h>

namespace kiln::compositor {

// Raises the soft RLIMIT_NOFILE to the hard limit and remembers what it was for children; logs one line when it
// cannot. Called once, by kiln's main, before any thread or fork.
void raise_fd_limit();

// In a child between fork and exec (async-signal-safe): back to the limit kiln started with, if it raised it.
void restore_fd_limit_in_child();

}  // namespace kiln::compositor
