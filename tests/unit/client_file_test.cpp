// copy_client_file and sealed_memfd: a client's file copied with pread under a cap (short files, files shrunk while
// read, pipes and oversized ones refused, the client's offset untouched) and the sealed memfd kiln hands on.
#include "compositor/protocol_kit/client_file.hpp"

#include <catch2/catch_test_macros.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>

using namespace kiln::compositor;

namespace {

int memfd_with(const std::string& text)
{
    const int fd = memfd_create("client-file-test", MFD_CLOEXEC);
    REQUIRE(fd >= 0);
    REQUIRE(write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
    return fd;
}

}  // namespace

TEST_CASE("a client's file is copied whole, from its start, its offset left where the client put it")
{
    const int fd = memfd_with(std::string("keymap text\0tail", 16));
    REQUIRE(lseek(fd, 3, SEEK_SET) == 3);
    std::string why;
    const auto bytes = copy_client_file(fd, 12, 64, why);
    REQUIRE(bytes);
    CHECK(std::string(bytes->data(), bytes->size()) == std::string("keymap text\0", 12));
    CHECK(lseek(fd, 0, SEEK_CUR) == 3);
    close(fd);
}

TEST_CASE("what cannot be copied is refused with the reason")
{
    std::string why;
    const int fd = memfd_with(std::string(100, 'a'));
    CHECK_FALSE(copy_client_file(fd, 0, 64, why));
    CHECK(why == "an empty file");
    CHECK_FALSE(copy_client_file(fd, 101, 1000, why));
    CHECK(why == "101 bytes asked of a file that holds 100 bytes");
    CHECK_FALSE(copy_client_file(fd, 100, 99, why));
    CHECK(why == "a file of 100 bytes, more than kiln takes (99 bytes)");
    close(fd);
    int pipe_fds[2];
    REQUIRE(pipe2(pipe_fds, O_CLOEXEC) == 0);
    CHECK_FALSE(copy_client_file(pipe_fds[0], 10, 64, why));
    CHECK(why == "an fd that is not a file");
    close(pipe_fds[0]);
    close(pipe_fds[1]);
}

TEST_CASE("a file the client shrinks while it is copied gives a short copy's refusal, never a fault")
{
    constexpr size_t size = size_t{4} << 20;
    int refused = 0;
    int copied = 0;
    for (int round = 0; round < 20; ++round) {
        const int fd = memfd_with(std::string(size, 'a'));
        std::atomic<bool> go{false};
        std::atomic<int> truncated{-1};
        std::thread shrinker([&] {
            while (!go.load()) {
            }
            for (int i = 0; i < round * 50; ++i)
                std::atomic_signal_fence(std::memory_order_seq_cst);  // a delay that grows with the round
            truncated = ftruncate(fd, 0);
        });
        std::string why;
        go = true;
        const auto bytes = copy_client_file(fd, size, size, why);
        shrinker.join();
        REQUIRE(truncated == 0);
        if (bytes) {
            ++copied;
            CHECK(bytes->size() == size);
        } else {
            ++refused;
            CHECK(why.find("asked of a file that holds") != std::string::npos);
        }
        close(fd);
    }
    // Which of the two each round gives depends on the scheduler (on an idle machine most are refused).
    CHECK(refused + copied == 20);
}

TEST_CASE("the sealed memfd holds the bytes and can be neither changed nor resized")
{
    std::string why;
    const std::string text("xkb_keymap {}\0", 14);
    const int fd = sealed_memfd("client-file-test-sealed", text, why);
    REQUIRE(fd >= 0);
    CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
    CHECK(lseek(fd, 0, SEEK_END) == static_cast<off_t>(text.size()));
    char back[14] = {};
    CHECK(pread(fd, back, sizeof back, 0) == 14);
    CHECK(std::string(back, 14) == text);
    CHECK(ftruncate(fd, 0) != 0);
    CHECK(ftruncate(fd, 4096) != 0);
    CHECK(pwrite(fd, "y", 1, 0) != 1);
    CHECK(fcntl(fd, F_ADD_SEALS, 0) != 0);  // F_SEAL_SEAL: no seal comes off, none is added
    void* map = mmap(nullptr, text.size(), PROT_READ, MAP_PRIVATE, fd, 0);  // as wlroots maps a keymap
    REQUIRE(map != MAP_FAILED);
    CHECK(std::string(static_cast<const char*>(map), 13) == "xkb_keymap {}");
    munmap(map, text.size());
    close(fd);
}
