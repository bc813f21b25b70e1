// The commit gate, fifo barriers and commit targets on fake surfaces, no EGL: a model of wlroots 0.15's cached
// surface state (held commits cached in order, applied when their last lock goes) shows which commits are applied,
// and when.
#include "compositor/output/sync/commit_feedback.hpp"
#include "compositor/output/sync/commit_gate.hpp"
#include "compositor/output/sync/commit_targets.hpp"
#include "compositor/output/sync/fd_watch.hpp"
#include "compositor/output/sync/fifo_barriers.hpp"

#include <catch2/catch_test_macros.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <deque>
#include <map>
#include <string>
#include <vector>

using namespace kiln::compositor;
using Condition = CommitGate::Condition;

namespace {

// A wlr_surface with only what the gate and the barriers touch: its seqs, signals and outputs.
struct FakeSurface {
    FakeSurface(bool on_output = true)
    {
        wl_signal_init(&surface.events.commit);
        wl_signal_init(&surface.events.destroy);
        wl_list_init(&surface.current_outputs);
        if (on_output) {
            entered.surface = &surface;
            entered.output = &output;
            wl_list_insert(&surface.current_outputs, &entered.link);
        }
        surface.pending.seq = 1;
    }
    ~FakeSurface() { destroy(); }
    FakeSurface(const FakeSurface&) = delete;
    FakeSurface& operator=(const FakeSurface&) = delete;
    void destroy()
    {
        if (destroyed)
            return;
        destroyed = true;
        wl_signal_emit(&surface.events.destroy, &surface);
    }

    wlr_surface surface{};
    wlr_output output{};  // the one output it is on (when on one)
    wlr_surface_output entered{};
    bool destroyed = false;
};

// wlroots 0.15's cached state: a commit made while its pending state is locked, or while states are cached before
// it, is cached; a cached state is applied once its locks are gone and every state before it was applied.
class FakeStates final : public SurfaceStates {
public:
    uint32_t hold_pending(wlr_surface* surface) override
    {
        ++locks_[surface][surface->pending.seq];
        ++holds_taken;
        return surface->pending.seq;
    }
    void let_go(wlr_surface* surface, uint32_t seq) override
    {
        REQUIRE(locks_[surface][seq] > 0);
        --locks_[surface][seq];
        apply_ready(surface);
    }

    // wl_surface.commit: the gate's sources first (as kiln's protocol logger runs them), then wlroots.
    uint32_t commit(CommitGate& gate, wlr_surface* surface)
    {
        gate.before_commit(surface);
        const uint32_t seq = surface->pending.seq++;
        cached_[surface].push_back(seq);
        apply_ready(surface);
        return seq;
    }

    std::vector<uint32_t> applied;  // in the order applied

    int holds_taken = 0;

private:
    void apply_ready(wlr_surface* surface)
    {
        auto& cached = cached_[surface];
        while (!cached.empty() && locks_[surface][cached.front()] == 0) {
            const uint32_t seq = cached.front();
            cached.pop_front();
            surface->current.seq = seq;
            applied.push_back(seq);
            wl_signal_emit(&surface->events.commit, surface);
        }
    }

    std::map<wlr_surface*, std::map<uint32_t, int>> locks_;
    std::map<wlr_surface*, std::deque<uint32_t>> cached_;
};

// A watch that counts its own end.
struct CountedWatch final : CommitGate::Watch {
    explicit CountedWatch(int& ended) : ended_(ended) {}
    ~CountedWatch() override { ++ended_; }
    int& ended_;
};

bool applied(const FakeStates& states, uint32_t seq)
{
    return std::find(states.applied.begin(), states.applied.end(), seq) != states.applied.end();
}

// Runs the event loop until `done` or a generous deadline (a loaded machine may be slow; nothing here is timed).
template <typename Done>
bool dispatch_until(wl_event_loop* loop, Done done)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done() && std::chrono::steady_clock::now() < deadline)
        wl_event_loop_dispatch(loop, 20);
    return done();
}

}  // namespace

TEST_CASE("a commit is held until every condition is ready, in any order")
{
    const std::vector<Condition> all{Condition::implicit_fence, Condition::syncobj_acquire, Condition::fifo_barrier,
                                     Condition::commit_timing};
    std::vector<int> order{0, 1, 2, 3};
    int permutations = 0;
    do {
        FakeStates states;
        CommitGate gate(states);
        FakeSurface s;
        CommitGate::Source source(gate, [&](wlr_surface* surface) {
            for (Condition c : all)
                gate.hold(surface, c);
        });
        const uint32_t seq = states.commit(gate, &s.surface);
        REQUIRE(states.holds_taken == 1);  // one lock for the four conditions
        for (size_t i = 0; i < order.size(); ++i) {
            REQUIRE_FALSE(applied(states, seq));
            REQUIRE(gate.holds(&s.surface, seq, all[static_cast<size_t>(order[i])]));
            gate.ready(&s.surface, seq, all[static_cast<size_t>(order[i])]);
        }
        REQUIRE(states.applied == std::vector<uint32_t>{seq});
        REQUIRE(gate.held_commits() == 0);
        gate.ready(&s.surface, seq, Condition::implicit_fence);  // late news of an applied commit changes nothing
        REQUIRE(states.applied.size() == 1);
        ++permutations;
    } while (std::next_permutation(order.begin(), order.end()));
    REQUIRE(permutations == 24);
}

TEST_CASE("commits behind a held one wait for it and are applied in order with it")
{
    FakeStates states;
    CommitGate gate(states);
    FakeSurface s;
    bool hold_next = true;
    CommitGate::Source source(gate, [&](wlr_surface* surface) {
        if (std::exchange(hold_next, false))
            gate.hold(surface, Condition::implicit_fence);
    });
    const uint32_t held = states.commit(gate, &s.surface);
    const uint32_t behind = states.commit(gate, &s.surface);
    REQUIRE(states.applied.empty());
    gate.ready(&s.surface, held, Condition::implicit_fence);
    REQUIRE(states.applied == std::vector<uint32_t>{held, behind});
}

TEST_CASE("a surface destroyed while held leaks nothing")
{
    FakeStates states;
    CommitGate gate(states);
    wl_event_loop* loop = wl_event_loop_create();
    int fds[2];
    REQUIRE(pipe2(fds, O_CLOEXEC) == 0);
    int ended = 0;
    uint32_t seq = 0;
    {
        FakeSurface s;
        CommitGate::Source source(gate, [&](wlr_surface* surface) {
            gate.hold(surface, Condition::implicit_fence,
                      std::make_unique<FdWatch>(loop, std::vector<int>{fds[0]}, [] { FAIL("never readable"); }));
            gate.hold(surface, Condition::commit_timing, std::make_unique<CountedWatch>(ended));
        });
        seq = states.commit(gate, &s.surface);
        REQUIRE(gate.held_commits() == 1);
        REQUIRE(fcntl(fds[0], F_GETFD) != -1);
        s.destroy();
        // The hold, its watches and their fds went with the surface; nothing was applied.
        REQUIRE(gate.held_commits() == 0);
        REQUIRE(ended == 1);
        REQUIRE(fcntl(fds[0], F_GETFD) == -1);  // the kernel says the watched fd is closed
        REQUIRE(states.applied.empty());
        gate.ready(&s.surface, seq, Condition::commit_timing);  // a stray timer after the surface went: nothing
        REQUIRE(states.applied.empty());
    }
    close(fds[1]);
    wl_event_loop_destroy(loop);
}

TEST_CASE("an fd watch says ready once every fd is readable, and closes them")
{
    FakeStates states;
    CommitGate gate(states);
    wl_event_loop* loop = wl_event_loop_create();
    int a[2], b[2];
    REQUIRE(pipe2(a, O_CLOEXEC) == 0);
    REQUIRE(pipe2(b, O_CLOEXEC) == 0);
    FakeSurface s;
    CommitGate::Source source(gate, [&](wlr_surface* surface) {
        const uint32_t seq = surface->pending.seq;
        gate.hold(surface, Condition::implicit_fence,
                  std::make_unique<FdWatch>(loop, std::vector<int>{a[0], b[0]}, [&gate, surface, seq] {
                      gate.ready(surface, seq, Condition::implicit_fence);
                  }));
    });
    const uint32_t seq = states.commit(gate, &s.surface);
    REQUIRE(write(a[1], "x", 1) == 1);
    wl_event_loop_dispatch(loop, 100);
    REQUIRE_FALSE(applied(states, seq));
    REQUIRE(write(b[1], "x", 1) == 1);
    REQUIRE(dispatch_until(loop, [&] { return applied(states, seq); }));
    REQUIRE(fcntl(a[0], F_GETFD) == -1);
    REQUIRE(fcntl(b[0], F_GETFD) == -1);
    REQUIRE(gate.waits(Condition::implicit_fence) == 1);
    REQUIRE(gate.waiting(Condition::implicit_fence) == 0);
    close(a[1]);
    close(b[1]);
    wl_event_loop_destroy(loop);
}

namespace {

// A surface with fifo: each commit says set_barrier / wait_barrier, and may also wait for an acquire fence.
struct EventLoop {
    EventLoop() : loop(wl_event_loop_create()) {}
    ~EventLoop() { wl_event_loop_destroy(loop); }
    wl_event_loop* loop;
};

struct FifoRig {
    FifoRig() : loop(event_loop.loop), gate(states), barriers(gate, loop) {}
    ~FifoRig() { s.destroy(); }

    uint32_t commit(bool set, bool wait, bool fenced = false)
    {
        next = {set, wait, fenced};
        return states.commit(gate, &s.surface);
    }
    void latch(uint32_t seq)
    {
        const LatchedSurface shown{&s.surface, seq};
        barriers.latched(&s.output, std::span(&shown, 1));
        wl_event_loop_dispatch_idle(loop);  // barriers clear on the next idle turn
    }
    // A frame of the surface's output that did not draw it (it was composed before the update, or culled).
    void frame_without_it()
    {
        barriers.latched(&s.output, {});
        wl_event_loop_dispatch_idle(loop);
    }

    struct Next {
        bool set = false, wait = false, fenced = false;
    } next;
    EventLoop event_loop;  // first: it outlives everything that has sources on it
    wl_event_loop* loop;
    FakeStates states;
    CommitGate gate;
    FifoBarriers barriers;
    FakeSurface s;
    CommitGate::Source source{gate, [this](wlr_surface* surface) {
                                  if (next.fenced)
                                      gate.hold(surface, Condition::implicit_fence);
                                  barriers.commit(surface, next.set, next.wait);
                              }};
};

}  // namespace

TEST_CASE("fifo: each update with a barrier waits for the previous one to be latched")
{
    FifoRig rig;
    const uint32_t first = rig.commit(true, true);
    const uint32_t second = rig.commit(true, true);
    const uint32_t third = rig.commit(true, true);
    REQUIRE(rig.states.applied == std::vector<uint32_t>{first});  // no barrier before it
    rig.latch(first - 1);  // a frame drawn before the first update was applied: its barrier stays
    REQUIRE(rig.states.applied == std::vector<uint32_t>{first});
    rig.latch(first);
    REQUIRE(rig.states.applied == std::vector<uint32_t>{first, second});
    rig.latch(second);
    REQUIRE(rig.states.applied == std::vector<uint32_t>{first, second, third});
}

TEST_CASE("fifo: a barrier-setting update held by a fence still holds the update after it")
{
    // Before the gate, clearing a barrier let go of every held fifo update in a row while the barrier was down; one
    // still held by its acquire fence set no barrier yet, so the next was let go too and applied right behind it
    // when the fence signalled: two FIFO updates in one frame.
    FifoRig rig;
    const uint32_t first = rig.commit(true, false);
    const uint32_t fenced = rig.commit(true, true, true);
    const uint32_t after = rig.commit(false, true);
    REQUIRE(rig.states.applied == std::vector<uint32_t>{first});
    rig.latch(first);
    REQUIRE(rig.states.applied == std::vector<uint32_t>{first});  // the fence still holds it
    rig.gate.ready(&rig.s.surface, fenced, Condition::implicit_fence);
    REQUIRE(rig.states.applied == std::vector<uint32_t>{first, fenced});  // `after` waits for its barrier
    REQUIRE(rig.gate.holds(&rig.s.surface, after, Condition::fifo_barrier));
    rig.latch(fenced);
    REQUIRE(rig.states.applied == std::vector<uint32_t>{first, fenced, after});
}

TEST_CASE("fifo: a barrier no frame latches clears for forward progress")
{
    FifoRig rig;
    const uint32_t first = rig.commit(true, false);
    const uint32_t waiting = rig.commit(false, true);
    REQUIRE_FALSE(applied(rig.states, waiting));
    REQUIRE(dispatch_until(rig.loop, [&] { return applied(rig.states, waiting); }));
    REQUIRE(rig.states.applied == std::vector<uint32_t>{first, waiting});
}

TEST_CASE("fifo: while its output composes frames, however slowly, the clock does not clear a barrier")
{
    // On a busy host a 60 Hz output composed every half second; the quarter-second timer let the next FIFO update
    // into the frame still to come (tests/protocol/fifo_commit_timing.py beside two builds: 26633496 twice).
    FifoRig rig;
    const uint32_t first = rig.commit(true, false);
    const uint32_t waiting = rig.commit(false, true);
    rig.frame_without_it();  // the output is composing: its frames, not the clock, decide
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(600);
    while (std::chrono::steady_clock::now() < until)
        wl_event_loop_dispatch(rig.loop, 50);
    REQUIRE_FALSE(applied(rig.states, waiting));
    rig.latch(first);
    REQUIRE(rig.states.applied == std::vector<uint32_t>{first, waiting});
}

TEST_CASE("fifo: four frames of its output that do not latch a barrier clear it")
{
    FifoRig rig;
    const uint32_t first = rig.commit(true, false);
    const uint32_t waiting = rig.commit(false, true);
    for (int i = 0; i < 3; ++i)
        rig.frame_without_it();
    REQUIRE_FALSE(applied(rig.states, waiting));
    rig.frame_without_it();
    REQUIRE(rig.states.applied == std::vector<uint32_t>{first, waiting});
}

TEST_CASE("fifo: a surface on no output is latched by any output's frame")
{
    FakeStates states;
    wl_event_loop* loop = wl_event_loop_create();
    {
        CommitGate gate(states);
        FifoBarriers barriers(gate, loop);
        FakeSurface s(false);
        bool set = true;
        CommitGate::Source source(gate, [&](wlr_surface* surface) { barriers.commit(surface, set, true); });
        const uint32_t first = states.commit(gate, &s.surface);
        set = false;
        const uint32_t second = states.commit(gate, &s.surface);
        REQUIRE(states.applied == std::vector<uint32_t>{first});
        barriers.latched(nullptr, {});
        wl_event_loop_dispatch_idle(loop);
        REQUIRE(states.applied == std::vector<uint32_t>{first, second});
    }
    wl_event_loop_destroy(loop);
}

TEST_CASE("fifo: a surface destroyed with updates held leaves nothing behind")
{
    FifoRig rig;
    rig.commit(true, true);
    rig.commit(true, true);
    REQUIRE(rig.gate.held_commits() == 1);
    rig.s.destroy();
    REQUIRE(rig.gate.held_commits() == 0);
    REQUIRE(rig.barriers.barriers(&rig.s.surface) == 0);
    rig.latch(100);  // a frame that still names the surface: nothing to clear, nothing applied
    REQUIRE(rig.states.applied.size() == 1);
}

namespace {

int64_t now_ns()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

TEST_CASE("commit timing: an update is applied for the first frame presented at or after its target")
{
    EventLoop event_loop;
    FakeStates states;
    CommitGate gate(states);
    CommitTargets targets(gate, event_loop.loop);
    int here_tag = 0, there_tag = 0;
    auto* here = reinterpret_cast<wlr_output*>(&here_tag);  // only compared, never touched
    auto* there = reinterpret_cast<wlr_output*>(&there_tag);
    FakeSurface s;
    s.entered.output = here;
    const int64_t target = now_ns() + 60'000'000'000;  // far enough that no timer fires during the test
    CommitGate::Source source(gate, [&](wlr_surface* surface) { targets.commit(surface, target); });
    const uint32_t seq = states.commit(gate, &s.surface);
    REQUIRE(states.applied.empty());
    targets.composing(here, target - 1);  // a frame presented just before the target: not yet
    REQUIRE(states.applied.empty());
    targets.composing(there, target + 1'000'000);  // another output's frame: the surface is not on it
    REQUIRE(states.applied.empty());
    targets.composing(here, target);  // the first frame presented at the target
    REQUIRE(states.applied == std::vector<uint32_t>{seq});
    REQUIRE(targets.held() == 0);
}

TEST_CASE("commit timing: a target already past holds nothing, a surface gone drops its hold")
{
    EventLoop event_loop;
    FakeStates states;
    CommitGate gate(states);
    CommitTargets targets(gate, event_loop.loop);
    FakeSurface s;
    int64_t target = now_ns() - 1'000'000;
    CommitGate::Source source(gate, [&](wlr_surface* surface) { targets.commit(surface, target); });
    const uint32_t past = states.commit(gate, &s.surface);
    REQUIRE(states.applied == std::vector<uint32_t>{past});
    target = now_ns() + 60'000'000'000;
    states.commit(gate, &s.surface);
    REQUIRE(targets.held() == 1);
    s.destroy();
    REQUIRE(targets.held() == 0);
    REQUIRE(gate.held_commits() == 0);
    REQUIRE(states.applied.size() == 1);
}

TEST_CASE("commit timing: where no output draws the target's frame, the update goes just after its target")
{
    wlr_log_init(WLR_ERROR, nullptr);
    wl_display* display = wl_display_create();
    wlr_backend* backend = wlr_headless_backend_create(display);
    wlr_output* output = wlr_headless_add_output(backend, 64, 64);  // never started: it draws no frame
    {
        FakeStates states;
        CommitGate gate(states);
        CommitTargets targets(gate, wl_display_get_event_loop(display));
        FakeSurface s;
        s.entered.output = output;
        const int64_t target = now_ns() + 30'000'000;
        CommitGate::Source source(gate, [&](wlr_surface* surface) { targets.commit(surface, target); });
        const uint32_t seq = states.commit(gate, &s.surface);
        int64_t applied_at = 0;
        kiln::wl::Listener applied_listener(&s.surface.events.commit, [&](void*) { applied_at = now_ns(); });
        REQUIRE(dispatch_until(wl_display_get_event_loop(display), [&] { return applied(states, seq); }));
        REQUIRE(applied_at >= target);  // never before its target, even without a frame
        REQUIRE(targets.held() == 0);
    }
    wlr_backend_destroy(backend);
    wl_display_destroy(display);
}

namespace {

// A wp_presentation_feedback that writes what became of it: "A presented" or "A discarded".
struct LoggedFeedback final : PresentationFeedback {
    LoggedFeedback(std::string name, std::vector<std::string>& log) : name(std::move(name)), log(log) {}
    ~LoggedFeedback() override
    {
        if (!done)
            log.push_back(name + " discarded");
    }
    void presented(const wlr_presentation_event&) override
    {
        done = true;
        log.push_back(name + " presented");
    }
    std::string name;
    std::vector<std::string>& log;
    bool done = false;
};

// A fifo surface with presentation feedback, and an output that draws it: each frame takes the applied state's
// feedback, is presented, and latches that state (clearing its barrier).
struct FeedbackRig : FifoRig {
    // wl_surface.commit with the requests Mesa's Vulkan WSI sends before it: feedback (named, or none), barriers.
    uint32_t commit_with(const char* feedback_name, bool set, bool wait)
    {
        if (feedback_name)
            feedback.requested(&s.surface, std::make_unique<LoggedFeedback>(feedback_name, log));
        return commit(set, wait);
    }
    void frame()
    {
        for (auto& f : feedback.sampled(&s.surface))
            f->presented(wlr_presentation_event{});
        latch(s.surface.current.seq);
    }

    std::vector<std::string> log;
    CommitFeedback feedback{gate};
};

}  // namespace

TEST_CASE("presentation feedback stays with its held commit: one frame each, none discarded (Mesa's FIFO)")
{
    // wlroots 0.15 kept one pending feedback per surface: B's and C's feedback, asked while B was held, joined into
    // one reported on B's frame; and an empty wait_barrier commit applied just before the next frame's took that
    // frame's feedback with it and discarded it unshown.
    FeedbackRig rig;
    rig.commit_with("A", true, true);
    rig.commit_with("B", true, true);  // held: A's barrier is up
    rig.commit_with("C", true, true);
    rig.frame();
    REQUIRE(rig.log == std::vector<std::string>{"A presented"});
    rig.frame();
    REQUIRE(rig.log == std::vector<std::string>{"A presented", "B presented"});
    // Mesa with commit timing: each frame's commit is followed by an empty one that waits for its barrier.
    rig.commit_with("D", true, true);
    rig.commit_with(nullptr, false, true);
    rig.commit_with("E", true, true);
    rig.commit_with(nullptr, false, true);
    for (int i = 0; i < 3; ++i)
        rig.frame();
    REQUIRE(rig.log == std::vector<std::string>{"A presented", "B presented", "C presented", "D presented",
                                                "E presented"});
    REQUIRE(rig.feedback.held(&rig.s.surface) == 0);
}

TEST_CASE("presentation feedback of an update replaced before any frame took it is discarded")
{
    FakeStates states;
    CommitGate gate(states);
    FakeSurface s;
    std::vector<std::string> log;
    CommitFeedback feedback(gate);
    feedback.requested(&s.surface, std::make_unique<LoggedFeedback>("A", log));
    states.commit(gate, &s.surface);
    feedback.requested(&s.surface, std::make_unique<LoggedFeedback>("B", log));
    states.commit(gate, &s.surface);
    REQUIRE(log == std::vector<std::string>{"A discarded"});
    auto taken = feedback.sampled(&s.surface);
    REQUIRE(taken.size() == 1);
    taken.front()->presented(wlr_presentation_event{});
    REQUIRE(feedback.sampled(&s.surface).empty());  // taken once
    feedback.requested(&s.surface, std::make_unique<LoggedFeedback>("C", log));
    s.destroy();  // a surface gone takes the feedback asked for it along, unshown
    REQUIRE(log == std::vector<std::string>{"A discarded", "B presented", "C discarded"});
}
