// CommitGate: holds a surface's content update until every condition registered for it is ready: an implicit
// dma-buf fence, a syncobj acquire point, a fifo barrier, a commit-timing target. All four hold through this one
// gate; each source only says what a commit waits for and when that is ready.
//
// Holding is wlroots 0.15's cached surface state: a lock taken on the pending state before wl_surface.commit runs
// (wlr_surface_lock_pending) makes wlroots cache the commit instead of applying it, and the commit (with its frame
// callbacks and presentation feedback) is applied when the lock goes (wlr_surface_unlock_cached), in commit order
// with the surface's other cached states. The gate takes one lock per held commit, whatever waits on it.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/output/sync/surface_commit_hook.hpp"
#include "compositor/wlr.hpp"

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <vector>

namespace kiln::compositor {

// How the gate holds and applies a surface's committed state: wlroots' cached state in kiln, a model of it in tests.
class SurfaceStates {
public:
    virtual ~SurfaceStates() = default;
    // Holds the pending state (the commit about to run); returns its seq.
    virtual uint32_t hold_pending(wlr_surface* surface) = 0;
    // Lets go of the held state `seq`: it is applied once nothing else holds it or a state before it.
    virtual void let_go(wlr_surface* surface, uint32_t seq) = 0;
};

// wlroots' cached surface state.
class WlrSurfaceStates final : public SurfaceStates {
public:
    uint32_t hold_pending(wlr_surface* surface) override { return wlr_surface_lock_pending(surface); }
    void let_go(wlr_surface* surface, uint32_t seq) override { wlr_surface_unlock_cached(surface, seq); }
};

class CommitGate {
public:
    enum class Condition : uint8_t { implicit_fence, syncobj_acquire, fifo_barrier, commit_timing };
    static constexpr size_t condition_kinds = 4;

    // What waits for a condition (polled fds, a timer): kept with the held commit, dropped when the condition is
    // ready or the surface goes.
    class Watch {
    public:
        virtual ~Watch() = default;
    };

    // Holds through wlroots' cached state.
    CommitGate() : states_(wlr_states_) {}
    explicit CommitGate(SurfaceStates& states) : states_(states) {}
    ~CommitGate();
    CommitGate(const CommitGate&) = delete;
    CommitGate& operator=(const CommitGate&) = delete;

    // A source of conditions: asked, in the order sources were made, about each wl_surface.commit before it runs
    // (the moment a commit can still be held); it calls hold() for what the commit must wait for. Registered for
    // its own life.
    class Source {
    public:
        Source(CommitGate& gate, std::function<void(wlr_surface*)> before_commit);
        ~Source();
        Source(const Source&) = delete;
        Source& operator=(const Source&) = delete;

    private:
        CommitGate& gate_;
        uint64_t id_;
    };
    void before_commit(wlr_surface* surface);
    // Sees every wl_surface.commit through `hooks` before it runs, and asks the sources (before_commit).
    void watch_commits(RequestHooks& hooks)
    {
        hook_ = std::make_unique<SurfaceCommitHook>(hooks, HookOrder::commit_gate,
                                                    [this](wlr_surface* surface) { before_commit(surface); });
    }

    // The surface's pending commit (the one about to run) also waits for `condition`; `watch` (may be null) is what
    // waits for it. Returns the commit's seq, which names it to ready(). Holding one condition twice is one hold.
    uint32_t hold(wlr_surface* surface, Condition condition, std::unique_ptr<Watch> watch = nullptr);
    // `condition` of commit `seq` is ready. Once all of its conditions are, the commit is let go (applied, in order).
    // Nothing happens for a commit no longer held (applied, or its surface gone).
    void ready(wlr_surface* surface, uint32_t seq, Condition condition);
    bool holds(wlr_surface* surface, uint32_t seq, Condition condition) const;

    // Counters for --stats: commits held for each condition, how many still wait for it, ms each finished wait took.
    uint64_t waits(Condition condition) const { return waits_[index(condition)]; }
    size_t waiting(Condition condition) const;
    const std::vector<double>& wait_ms(Condition condition) const { return wait_ms_[index(condition)]; }
    size_t held_commits() const;

private:
    static size_t index(Condition condition) { return static_cast<size_t>(condition); }

    struct Held {
        uint32_t seq = 0;
        std::array<bool, condition_kinds> waiting{};
        std::array<std::unique_ptr<Watch>, condition_kinds> watches;
        std::chrono::steady_clock::time_point since;
        bool any_waiting() const;
    };
    // The commits held on one surface, oldest first; dropped with the surface (its cached states go with it).
    struct Surface {
        std::list<Held> held;
        wl::Listener destroy;
    };

    WlrSurfaceStates wlr_states_;
    SurfaceStates& states_;
    std::map<uint64_t, std::function<void(wlr_surface*)>> sources_;  // by id: in the order made
    uint64_t next_source_ = 1;
    std::map<wlr_surface*, std::unique_ptr<Surface>> surfaces_;
    std::array<uint64_t, condition_kinds> waits_{};
    std::array<std::vector<double>, condition_kinds> wait_ms_;
    std::unique_ptr<SurfaceCommitHook> hook_;
};

}  // namespace kiln::compositor
