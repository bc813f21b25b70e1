// SessionActivity: counts and logs the session going away and coming back, and brings the input devices back.
#include "compositor/session/session_activity.hpp"

#include "compositor/log.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::compositor {

SessionActivity::SessionActivity(wl_display* display, wlr_backend* backend, wlr_session* session)
    : display_(display), backend_(backend), session_(session)
{
    // Connected after the DRM and libinput backends' own listeners, so this hears of the change once they acted.
    active_.connect(&session_->events.active, [this](void*) {
        if (!session_->active) {
            ++deactivations_;
            log::notice("session paused (switched to another VT): no DRM master, no input devices");
            return;
        }
        ++activations_;
        log::notice("session active again: DRM master and input devices are back");
        // After the signal, not inside it: the libinput backend is replaced, and it listens to this signal.
        if (!reopen_ && backend_ && wlr_backend_is_multi(backend_))
            reopen_ = wl_event_loop_add_idle(
                wl_display_get_event_loop(display_),
                [](void* data) noexcept {
                    auto* self = static_cast<SessionActivity*>(data);
                    self->reopen_ = nullptr;
                    self->reopen_input();
                },
                this);
    });
    destroy_.connect(&session_->events.destroy, [this](void*) {
        // The backends (and then the event loop) go: nothing is left to reopen.
        if (reopen_)
            wl_event_source_remove(reopen_);
        reopen_ = nullptr;
        active_.disconnect();
        destroy_.disconnect();
        session_ = nullptr;
    });
}

SessionActivity::~SessionActivity()
{
    if (reopen_)
        wl_event_source_remove(reopen_);
}

namespace {

// WLR_LIBINPUT_NO_DEVICES set to `value` (nullptr: unset) for the scope, as it was afterwards. Left alone where it
// already is so (the usual case: unset): other threads may read the environment.
class ScopedNoDevices {
public:
    explicit ScopedNoDevices(const char* value)
    {
        const char* was = std::getenv(name);
        if ((was == nullptr) == (value == nullptr) && (!was || std::string_view(was) == value))
            return;
        changed_ = true;
        had_ = was != nullptr;
        if (had_)
            was_ = was;
        if (value)
            setenv(name, value, 1);
        else
            unsetenv(name);
    }
    ~ScopedNoDevices()
    {
        if (!changed_)
            return;
        if (had_)
            setenv(name, was_.c_str(), 1);
        else
            unsetenv(name);
    }
    ScopedNoDevices(const ScopedNoDevices&) = delete;
    ScopedNoDevices& operator=(const ScopedNoDevices&) = delete;

private:
    static constexpr const char* name = "WLR_LIBINPUT_NO_DEVICES";
    bool changed_ = false;
    bool had_ = false;
    std::string was_;
};

// A new libinput backend in `multi`, started; null when it cannot start (no device, with `allow_empty` false).
wlr_backend* start_libinput(wl_display* display, wlr_backend* multi, wlr_session* session, bool allow_empty)
{
    wlr_backend* fresh = wlr_libinput_backend_create(display, session);
    if (!fresh)
        return nullptr;
    if (!wlr_multi_backend_add(multi, fresh)) {
        wlr_backend_destroy(fresh);
        return nullptr;
    }
    ScopedNoDevices no_devices(allow_empty ? "1" : nullptr);
    if (!wlr_backend_start(fresh)) {
        wlr_backend_destroy(fresh);  // the multi backend drops it
        return nullptr;
    }
    return fresh;
}

}  // namespace

// wlroots 0.15's libinput backend resumes libinput on the session's return, which opens the devices again and
// queues their DEVICE_ADDED events, but it reads libinput's queue only when libinput's fd turns readable: the
// devices stayed unknown to kiln (no keyboard or pointer on the seat, no cursor) until the first key press or
// motion, itself lost to clients. A libinput backend started afresh reads its devices at once, but only when it
// must find some (WLR_LIBINPUT_NO_DEVICES unset); where none is left (all unplugged while away) an empty one
// starts, and hot-plug brings devices to it. The old backend, whose devices kiln never saw, goes.
void SessionActivity::reopen_input()
{
    if (!session_ || !session_->active)
        return;
    std::vector<wlr_backend*> stale;
    wlr_multi_for_each_backend(
        backend_,
        [](wlr_backend* backend, void* data) noexcept {
            if (wlr_backend_is_libinput(backend))
                static_cast<std::vector<wlr_backend*>*>(data)->push_back(backend);
        },
        &stale);
    for (wlr_backend* old : stale) {
        wlr_backend_destroy(old);  // the multi backend drops it
        if (!start_libinput(display_, backend_, session_, false)) {
            // wlroots has just said why (no devices, most likely).
            if (!start_libinput(display_, backend_, session_, true)) {
                log::error("cannot open the input devices again after the VT switch");
                continue;
            }
            log::error("no input device after the VT switch; new ones are taken when plugged in");
        }
        ++input_reopens_;
    }
}

void SessionActivity::report(Stats& stats, uint64_t frames_while_inactive) const
{
    stats.set("session.deactivations", deactivations());
    stats.set("session.activations", activations());
    stats.set("session.frames_while_inactive", frames_while_inactive);
    stats.set("session.input_reopens", input_reopens());
}

}  // namespace kiln::compositor
