// ChooserCommand: one run of the user's source chooser (--chooser): `/bin/sh -c CMD` with the choices on its stdin,
// its stdout read on the event loop, its end seen through a pidfd, so that kiln-portal keeps serving meanwhile.
#pragma once

#include <functional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace portal {

class EventLoop;

class ChooserCommand {
public:
    // exit_status: the command's exit status, or -1 where it could not run or was killed by a signal; lines: what
    // it wrote to stdout, line by line.
    using Done = std::function<void(int exit_status, const std::vector<std::string>& lines)>;

    // Starts `command` with `input` on stdin; `done` runs once, from the loop, after it exits (or at once, from
    // inside this constructor, where it cannot start).
    ChooserCommand(EventLoop& loop, const std::string& command, const std::string& input, Done done);
    // Kills a command still running (its request is gone) and reaps it.
    ~ChooserCommand();
    ChooserCommand(const ChooserCommand&) = delete;
    ChooserCommand& operator=(const ChooserCommand&) = delete;

    bool finished() const { return finished_; }

private:
    void read_output();
    void exited();
    void finish(int exit_status);

    EventLoop& loop_;
    Done done_;
    pid_t pid_ = -1;
    int pidfd_ = -1;
    int stdout_ = -1;
    std::string output_;
    bool finished_ = false;
};

}  // namespace portal
