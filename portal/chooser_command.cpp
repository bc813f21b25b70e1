// ChooserCommand: posix_spawn of /bin/sh -c with a memfd of choices as stdin and a pipe as stdout; a pidfd says
// when it exits. posix_spawn, not fork: kiln-portal runs PipeWire's threads.
#include "chooser_command.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "event_loop.hpp"

extern char** environ;

namespace portal {

namespace {

constexpr size_t max_output = 1 << 16;  // a chooser names one line: more is a runaway command

// A file holding `input`, read from its start: a memfd, so that writing it never waits for the command.
int input_file(const std::string& input) {
    int fd = memfd_create("kiln-portal-choices", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t written = 0;
    while (written < input.size()) {
        ssize_t n = write(fd, input.data() + written, input.size() - written);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            close(fd);
            return -1;
        }
        written += static_cast<size_t>(n);
    }
    lseek(fd, 0, SEEK_SET);
    return fd;
}

}  // namespace

ChooserCommand::ChooserCommand(EventLoop& loop, const std::string& command, const std::string& input, Done done)
    : loop_(loop), done_(std::move(done)) {
    int in = input_file(input);
    int pipe_fds[2] = {-1, -1};
    if (in < 0 || pipe2(pipe_fds, O_CLOEXEC) < 0) {
        std::fprintf(stderr, "kiln-portal: cannot run the chooser: %s\n", std::strerror(errno));
        if (in >= 0)
            close(in);
        finish(-1);
        return;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in, STDIN_FILENO);  // dup2 clears close-on-exec on the copy
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
    const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
    int r = posix_spawn(&pid_, "/bin/sh", &actions, nullptr, const_cast<char**>(argv), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(in);
    close(pipe_fds[1]);
    if (r != 0) {
        std::fprintf(stderr, "kiln-portal: cannot run the chooser: %s\n", std::strerror(r));
        close(pipe_fds[0]);
        pid_ = -1;
        finish(-1);
        return;
    }
    // Only our end is non-blocking: the command's stdout stays as programs expect it.
    stdout_ = pipe_fds[0];
    fcntl(stdout_, F_SETFL, fcntl(stdout_, F_GETFL) | O_NONBLOCK);
    loop_.add(stdout_, [this](short) { read_output(); });
    pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid_, 0));
    if (pidfd_ >= 0)
        loop_.add(pidfd_, [this](short) { exited(); });
    // Without pidfds (Linux before 5.3) the end of its stdout stands for its exit.
}

ChooserCommand::~ChooserCommand() {
    if (stdout_ >= 0) {
        loop_.remove(stdout_);
        close(stdout_);
    }
    if (pidfd_ >= 0) {
        loop_.remove(pidfd_);
        close(pidfd_);
    }
    if (pid_ > 0) {
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
    }
}

void ChooserCommand::read_output() {
    char chunk[4096];
    for (;;) {
        ssize_t n = read(stdout_, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n > 0 && output_.size() < max_output) {
            output_.append(chunk, static_cast<size_t>(std::min(static_cast<size_t>(n), max_output - output_.size())));
            continue;
        }
        if (n > 0)
            continue;  // past the limit: drained, not kept
        // The end of its stdout (or an error): read no more.
        loop_.remove(stdout_);
        close(stdout_);
        stdout_ = -1;
        if (pid_ > 0 && pidfd_ < 0)
            exited();
        return;
    }
}

void ChooserCommand::exited() {
    int status = 0;
    pid_t reaped = waitpid(pid_, &status, pidfd_ >= 0 ? WNOHANG : 0);
    if (reaped == 0)
        return;  // not yet (a spurious wake-up)
    pid_ = -1;
    if (pidfd_ >= 0) {
        loop_.remove(pidfd_);
        close(pidfd_);
        pidfd_ = -1;
    }
    // What it wrote before it exited; a child of it that holds the pipe open is not waited for.
    if (stdout_ >= 0) {
        read_output();
        if (stdout_ >= 0) {
            loop_.remove(stdout_);
            close(stdout_);
            stdout_ = -1;
        }
    }
    finish(reaped > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

void ChooserCommand::finish(int exit_status) {
    if (finished_)
        return;
    finished_ = true;
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < output_.size()) {
        size_t end = output_.find('\n', start);
        if (end == std::string::npos)
            end = output_.size();
        lines.push_back(output_.substr(start, end - start));
        start = end + 1;
    }
    done_(exit_status, lines);
}

}  // namespace portal
