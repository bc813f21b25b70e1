// ExtSessionLockV1: kiln's own ext-session-lock-v1 (wlroots 0.15 has none): a locker hides every other surface on
// every output and takes all input until it unlocks; a locker that dies leaves the session locked.
//
// While locked, every scene tree but the lock's is disabled, so outputs show the lock surfaces over kiln's opaque
// background colour and nothing else, and the pointer finds no other surface. A new locker may take over a session
// whose locker died (swaylock restarted); while a live locker holds the lock, another one gets `finished`.
#pragma once

#include "compositor/indexed_list.hpp"
#include "compositor/listener.hpp"
#include "compositor/scene_layers.hpp"
#include "compositor/wlr.hpp"

#include <list>
#include <memory>

namespace kiln::compositor {

struct Core;
class Desktop;
class SeatFocus;

class ExtSessionLockV1 {
public:
    // When the lock ends, `desktop` gives the keyboard back to the panel or window that should have it.
    ExtSessionLockV1(const Core& core, Desktop& desktop, SeatFocus& seat, const SceneLayers& layers);
    ~ExtSessionLockV1();
    ExtSessionLockV1(const ExtSessionLockV1&) = delete;
    ExtSessionLockV1& operator=(const ExtSessionLockV1&) = delete;

    // From the accepted lock request until unlock_and_destroy: nothing but lock surfaces is shown or gets input.
    bool locked() const { return locked_; }
    const wl_global* global() const { return global_; }

private:
    struct Lock;
    struct LockSurface;
    struct Pending;
    friend struct SessionLockRequests;  // the protocol's request handlers (the .cpp)

    void lock(Lock& lock);
    void unlock();
    void remove_lock(Lock* lock);
    void remove_surface(LockSurface* surface);
    void surface_committed(LockSurface& surface);
    // Places and sizes every lock surface on its output (outputs came, went, moved or changed size).
    void arrange();
    // Gives the keyboard to the owner's first lock surface with a buffer.
    void focus_lock_surface();
    // Starts waiting for every output to commit frames drawn after the lock hid everything.
    void send_locked_when_shown();
    // Sends `locked` to the owner once no output has frames from before the lock on their way any more.
    void send_locked_once_shown();

    const Core& core_;
    Desktop& desktop_;
    SeatFocus& seat_;
    SceneLayers layers_;
    wl_global* global_;
    bool locked_ = false;
    Lock* owner_ = nullptr;  // the lock in charge; null while locked means its client died: locked for good
    IndexedList<std::unique_ptr<Lock>> locks_;
    IndexedList<std::unique_ptr<LockSurface>> surfaces_;
    // Outputs that must still commit frames drawn after the lock hid everything before `locked` is sent.
    IndexedList<std::unique_ptr<Pending>> pending_;

    wl::Listener layout_change_;
};

}  // namespace kiln::compositor
