// Cases that go after kiln's resources: a client leaving with many surfaces, too many objects, shm pools or
// security contexts, and regions kiln must give back once their client goes.
#include "tests/hostile/limit_cases.hpp"

#include "security-context-v1-client-protocol.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <memory>
#include <poll.h>
#include <string>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace kiln::hostile {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// A round trip that gives up after `timeout_ms` (a compositor out of fds never answers a new client).
bool roundtrip_within(wl_display* display, int timeout_ms)
{
    bool done = false;
    static const wl_callback_listener listener = {
        [](void* data, wl_callback* callback, uint32_t) {
            *static_cast<bool*>(data) = true;
            wl_callback_destroy(callback);
        }};
    wl_callback_add_listener(wl_display_sync(display), &listener, &done);
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    while (!done) {
        if (!flush_all(display))
            return false;
        while (wl_display_prepare_read(display) != 0)
            if (wl_display_dispatch_pending(display) < 0)
                return false;
        if (done) {
            wl_display_cancel_read(display);
            break;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        pollfd fd{wl_display_get_fd(display), POLLIN, 0};
        if (left <= 0 || poll(&fd, 1, static_cast<int>(left)) <= 0) {
            wl_display_cancel_read(display);
            return false;
        }
        if (wl_display_read_events(display) < 0 || wl_display_dispatch_pending(display) < 0)
            return false;
    }
    return true;
}

// Whether a client connecting now is answered: the registry's round trip within five seconds.
bool new_client_served()
{
    wl_display* display = wl_display_connect(nullptr);
    if (!display)
        return false;
    wl_display_get_registry(display);
    const bool answered = roundtrip_within(display, 5000);
    wl_display_disconnect(display);
    return answered;
}

// Maps a toplevel with a fresh shm buffer on a connection of its own and waits for the frame that shows it.
std::string second_client_draws()
{
    Connection other;
    if (!other.ok())
        return "cannot connect";
    Toplevel t = other.make_toplevel(false);
    bool drawn = false;
    static const wl_callback_listener done = {
        [](void* data, wl_callback*, uint32_t) { *static_cast<bool*>(data) = true; }};
    wl_callback_add_listener(wl_surface_frame(t.surface), &done, &drawn);
    wl_surface_attach(t.surface, other.make_buffer(32, 32), 0, 0);
    wl_surface_damage(t.surface, 0, 0, 32, 32);
    wl_surface_commit(t.surface);
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    while (!drawn && Clock::now() < deadline && roundtrip_within(other.display, 1000)) {
    }
    return drawn ? "drawn" : other.outcome(1);
}

// kiln's resident memory in KiB, through the peer of the Wayland socket.
long compositor_rss_kib(wl_display* display)
{
    ucred peer{};
    socklen_t size = sizeof(peer);
    if (getsockopt(wl_display_get_fd(display), SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0)
        return -1;
    std::ifstream status("/proc/" + std::to_string(peer.pid) + "/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmRSS:", 0) == 0)
            return std::stol(line.substr(6));
    return -1;
}

const xdg_surface_listener ack = {
    [](void*, xdg_surface* surface, uint32_t serial) { xdg_surface_ack_configure(surface, serial); }};

// A listening unix socket with an abstract name the kernel picks: enough for a security context.
int listening_socket()
{
    const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(sa_family_t)) != 0 || listen(fd, 4) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

const std::map<std::string, Case> cases = {
    {"teardown-many-surfaces", [](Connection& bystander) {
         // A second connection makes 30,000 surfaces and 4,000 toplevels (configured, never mapped), then goes;
         // this one's round trip right after must not wait for a long teardown.
         Connection abuser;
         if (!abuser.ok())
             return std::string("setup-failed second connection");
         for (int i = 0; i < 30000; ++i) {
             wl_compositor_create_surface(abuser.compositor);
             if (i % 1000 == 0 && !flush_all(abuser.display))
                 break;
         }
         for (int i = 0; i < 4000; ++i) {
             wl_surface* surface = wl_compositor_create_surface(abuser.compositor);
             xdg_surface* xdg = xdg_wm_base_get_xdg_surface(abuser.wm_base, surface);
             xdg_surface_add_listener(xdg, &ack, nullptr);
             xdg_surface_get_toplevel(xdg);
             wl_surface_commit(surface);
             if (i % 200 == 0 && !flush_all(abuser.display))
                 break;
         }
         if (!abuser.roundtrip() || !abuser.roundtrip())
             return "abuser " + abuser.outcome(0);
         std::printf("made 34000 surfaces\n");
         auto start = Clock::now();
         bystander.roundtrip();
         std::printf("round trip before the disconnect: %.0f ms\n", ms_since(start));
         start = Clock::now();
         wl_display_disconnect(abuser.display);
         abuser.display = nullptr;
         // kiln sees the hangup first, then this round trip's request.
         std::this_thread::sleep_for(std::chrono::milliseconds(50));
         bystander.roundtrip();
         std::printf("round trip after the disconnect: %.0f ms\n", ms_since(start));
         return bystander.outcome();
     }},
    {"objects-limit", [](Connection& c) {
         // Cheap objects (empty regions) until kiln says no: 100,000, past kiln's limit of 50,000 per client.
         int made = 0;
         for (; made < 100000; ++made) {
             wl_compositor_create_region(c.compositor);
             if (made % 5000 == 0 && (!flush_all(c.display) || !c.roundtrip()))
                 break;
         }
         std::printf("regions asked for: %d\n", made);
         return c.outcome();
     }},
    {"regions-memory", [](Connection& c) {
         // A second connection holds 20,000 regions of 100 rectangles each, then goes while this one (connected
         // after them, its objects above theirs in kiln's heap) stays: freed memory under live allocations is not
         // returned by free() alone.
         auto abuser = std::make_unique<Connection>();
         if (!abuser->ok())
             return std::string("setup-failed second connection");
         for (int i = 0; i < 20000; ++i) {
             wl_region* region = wl_compositor_create_region(abuser->compositor);
             for (int j = 0; j < 100; ++j)
                 wl_region_add(region, j * 4, (j % 7) * 3, 2, 2);
             if (i % 200 == 0 && !flush_all(abuser->display))
                 break;
         }
         if (!abuser->roundtrip())
             return "abuser " + abuser->outcome(0);
         Connection pin;
         if (!pin.ok())
             return std::string("setup-failed third connection");
         for (int i = 0; i < 50; ++i)
             wl_compositor_create_surface(pin.compositor);
         pin.roundtrip();
         std::printf("kiln RSS while held: %ld KiB\n", compositor_rss_kib(c.display));
         abuser.reset();
         std::this_thread::sleep_for(std::chrono::seconds(2));
         c.roundtrip();
         std::printf("kiln RSS after: %ld KiB\n", compositor_rss_kib(c.display));
         return c.outcome();
     }},
    {"shm-pools", [](Connection& c) {
         // 65,000 pools of one page each from one memfd: each is a mapping in kiln, whose table holds ~65,530.
         const int fd = memfd_create("kiln-hostile-pools", MFD_CLOEXEC);
         if (fd < 0 || ftruncate(fd, 4096) != 0)
             return std::string("setup-failed memfd");
         int made = 0;
         for (; made < 65000; ++made) {
             wl_shm_create_pool(c.shm, fd, 4096);
             if (made % 1000 == 0 && (!flush_all(c.display) || !c.roundtrip()))
                 break;
         }
         std::printf("pools asked for: %d\n", made);
         const std::string outcome = c.outcome();
         // Another client, while this one holds its pools (or after it was cut off), maps a window.
         std::printf("second client: %s\n", second_client_draws().c_str());
         close(fd);
         return outcome;
     }},
    {"security-contexts", [](Connection& c) {
         // 300 committed security contexts, each a listening socket and a close fd kiln keeps until hangup.
         uint32_t name = 0;
         for (const auto& [global, interface] : c.globals)
             if (interface == wp_security_context_manager_v1_interface.name)
                 name = global;
         if (!name)
             return std::string("setup-failed no wp_security_context_manager_v1");
         auto* manager = static_cast<wp_security_context_manager_v1*>(
             wl_registry_bind(c.registry, name, &wp_security_context_manager_v1_interface, 1));
         std::vector<int> keep;  // the write ends of the close fds: the contexts live while these are open
         int made = 0;
         for (; made < 300; ++made) {
             const int listen_fd = listening_socket();
             int close_pipe[2];
             if (listen_fd < 0 || pipe2(close_pipe, O_CLOEXEC) != 0)
                 return std::string("setup-failed socket");
             wp_security_context_v1* context =
                 wp_security_context_manager_v1_create_listener(manager, listen_fd, close_pipe[0]);
             wp_security_context_v1_set_app_id(context, "kiln.hostile");
             wp_security_context_v1_commit(context);
             wp_security_context_v1_destroy(context);
             if (!flush_all(c.display))
                 break;
             close(listen_fd);  // kiln has its own copies
             close(close_pipe[0]);
             keep.push_back(close_pipe[1]);
             if (made % 10 == 0 && !c.roundtrip())
                 break;
         }
         std::printf("contexts asked for: %d\n", made);
         const std::string outcome = c.outcome();
         std::printf("new client: %s\n", new_client_served() ? "served" : "not served");
         for (int fd : keep)
             close(fd);
         return outcome;
     }},
    {"well-behaved", [](Connection& c) {
         // Only maps a window (on a second connection): how a new client fares after the others.
         std::printf("second client: %s\n", second_client_draws().c_str());
         return c.outcome();
     }},
};

}  // namespace

const std::map<std::string, Case>& limit_cases()
{
    return cases;
}

}  // namespace kiln::hostile
