// Foreign toplevel handles that follow each window kiln manages from map to unmap, with its maximized, fullscreen
// and minimized states, which a taskbar may also ask for.
#include "compositor/shell/foreign_toplevels.hpp"

#include "compositor/input/seat_focus.hpp"
#include "compositor/core.hpp"
#include "compositor/shell/desktop.hpp"
#include "compositor/shell/toplevel.hpp"
#include "compositor/shell/toplevels.hpp"

namespace kiln::compositor {

// One window; it has a wlroots handle while it is mapped.
class ForeignToplevels::Handle {
public:
    Handle(ForeignToplevels& owner, Toplevel& toplevel) : owner_(owner), toplevel_(toplevel)
    {
        map_.connect(&toplevel.events.map, [this](void*) { show(); });
        unmap_.connect(&toplevel.events.unmap, [this](void*) { hide(); });
        title_.connect(&toplevel.events.title, [this](void*) { report_title(); });
        state_.connect(&toplevel.events.state, [this](void*) { report_states(); });
        if (toplevel.mapped())
            show();
    }
    ~Handle() { hide(); }

    Toplevel& toplevel() const { return toplevel_; }

    void focus_changed(wlr_surface* focused)
    {
        if (handle_)
            wlr_foreign_toplevel_handle_v1_set_activated(handle_, focused && focused == toplevel_.surface());
        report_states();
    }

private:
    void show()
    {
        if (handle_)
            return;
        handle_ = wlr_foreign_toplevel_handle_v1_create(owner_.manager_);
        if (!handle_)
            return;
        report_title();
        // Taskbars list the windows on their own output: the one under the window's top-left corner.
        const wlr_box box = toplevel_.geometry();
        if (wlr_output* output = wlr_output_layout_output_at(owner_.core_.layout, box.x, box.y))
            wlr_foreign_toplevel_handle_v1_output_enter(handle_, output);
        // The window was focused as it mapped, before this handle existed.
        focus_changed(owner_.seat_.wlr()->keyboard_state.focused_surface);
        request_activate_.connect(&handle_->events.request_activate, [this](void*) {
            if (toplevel_.mapped())
                owner_.desktop_.focus(&toplevel_);
        });
        request_close_.connect(&handle_->events.request_close, [this](void*) { toplevel_.close(); });
        request_maximize_.connect(&handle_->events.request_maximize, [this](void* data) {
            if (toplevel_.mapped())
                toplevel_.set_maximized(static_cast<wlr_foreign_toplevel_handle_v1_maximized_event*>(data)->maximized);
        });
        request_fullscreen_.connect(&handle_->events.request_fullscreen, [this](void* data) {
            auto* event = static_cast<wlr_foreign_toplevel_handle_v1_fullscreen_event*>(data);
            if (toplevel_.mapped())
                toplevel_.set_fullscreen(event->fullscreen, event->output);
        });
        request_minimize_.connect(&handle_->events.request_minimize, [this](void* data) {
            if (toplevel_.mapped())
                toplevel_.set_minimized(static_cast<wlr_foreign_toplevel_handle_v1_minimized_event*>(data)->minimized);
            report_states();
        });
        report_states();
    }

    void report_title()
    {
        if (!handle_)
            return;
        if (const char* title = toplevel_.title())
            wlr_foreign_toplevel_handle_v1_set_title(handle_, title);
        if (const char* app_id = toplevel_.app_id())
            wlr_foreign_toplevel_handle_v1_set_app_id(handle_, app_id);
    }

    void report_states()
    {
        if (!handle_)
            return;
        wlr_foreign_toplevel_handle_v1_set_maximized(handle_, toplevel_.maximized());
        wlr_foreign_toplevel_handle_v1_set_fullscreen(handle_, toplevel_.fullscreen());
        wlr_foreign_toplevel_handle_v1_set_minimized(handle_, toplevel_.minimized());
    }

    void hide()
    {
        request_activate_.disconnect();
        request_close_.disconnect();
        request_maximize_.disconnect();
        request_fullscreen_.disconnect();
        request_minimize_.disconnect();
        if (handle_)
            wlr_foreign_toplevel_handle_v1_destroy(handle_);  // taskbars hear "closed"
        handle_ = nullptr;
    }

    ForeignToplevels& owner_;
    Toplevel& toplevel_;
    wlr_foreign_toplevel_handle_v1* handle_ = nullptr;
    wl::Listener map_;
    wl::Listener unmap_;
    wl::Listener title_;
    wl::Listener state_;
    wl::Listener request_activate_;
    wl::Listener request_close_;
    wl::Listener request_maximize_;
    wl::Listener request_fullscreen_;
    wl::Listener request_minimize_;
};

const void* ForeignToplevels::HandleKey::operator()(const std::unique_ptr<Handle>& handle) const
{
    return &handle->toplevel();
}

ForeignToplevels::ForeignToplevels(const Core& core, Toplevels& toplevels, Desktop& desktop, SeatFocus& seat)
    : core_(core), desktop_(desktop), seat_(seat),
      manager_(wlr_foreign_toplevel_manager_v1_create(core.display))  // freed with the display
{
    add_.connect(&toplevels.events.add, [this](void* data) {
        handles_.push_back(std::make_unique<Handle>(*this, *static_cast<Toplevel*>(data)));
    });
    remove_.connect(&toplevels.events.remove, [this](void* data) {
        auto* toplevel = static_cast<Toplevel*>(data);
        handles_.erase(toplevel);
    });
    focus_change_.connect(&seat.wlr()->keyboard_state.events.focus_change, [this](void* data) {
        auto* event = static_cast<wlr_seat_keyboard_focus_change_event*>(data);
        for (auto& handle : handles_)
            handle->focus_changed(event->new_surface);
    });
}

ForeignToplevels::~ForeignToplevels() = default;

}  // namespace kiln::compositor
