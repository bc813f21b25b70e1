// Foreign toplevel handles that follow each xdg toplevel from map to unmap, with its maximized, fullscreen and
// minimized states, which a taskbar may also ask for.
#include "compositor/shell/foreign_toplevels.hpp"

#include "compositor/input/seat.hpp"
#include "compositor/server.hpp"
#include "compositor/shell/view.hpp"

namespace kiln::compositor {

// One xdg toplevel; it has a handle while it is mapped.
class ForeignToplevels::Toplevel {
public:
    Toplevel(ForeignToplevels& owner, wlr_xdg_surface* xdg) : owner_(owner), xdg_(xdg)
    {
        map_.connect(&xdg->events.map, [this](void*) { show(); });
        unmap_.connect(&xdg->events.unmap, [this](void*) { hide(); });
        destroy_.connect(&xdg->events.destroy, [this](void*) {
            hide();
            owner_.toplevels_.remove_if([this](auto& t) { return t.get() == this; });
        });
        title_.connect(&xdg->toplevel->events.set_title, [this](void*) {
            if (handle_ && xdg_->toplevel->title)
                wlr_foreign_toplevel_handle_v1_set_title(handle_, xdg_->toplevel->title);
        });
        app_id_.connect(&xdg->toplevel->events.set_app_id, [this](void*) {
            if (handle_ && xdg_->toplevel->app_id)
                wlr_foreign_toplevel_handle_v1_set_app_id(handle_, xdg_->toplevel->app_id);
        });
        // Maximized and fullscreen change with a configure; minimized takes focus away (see focus_changed).
        configure_.connect(&xdg->events.configure, [this](void*) { report_states(); });
    }
    ~Toplevel() { hide(); }

    void focus_changed(wlr_surface* focused)
    {
        if (handle_)
            wlr_foreign_toplevel_handle_v1_set_activated(handle_, focused == xdg_->surface);
        report_states();
    }

private:
    // The View kiln made for this toplevel.
    View* view() const { return View::from(xdg_); }

    void show()
    {
        if (handle_)
            return;
        Server& server = owner_.server_;
        handle_ = wlr_foreign_toplevel_handle_v1_create(owner_.manager_);
        if (!handle_)
            return;
        if (xdg_->toplevel->title)
            wlr_foreign_toplevel_handle_v1_set_title(handle_, xdg_->toplevel->title);
        if (xdg_->toplevel->app_id)
            wlr_foreign_toplevel_handle_v1_set_app_id(handle_, xdg_->toplevel->app_id);
        // Taskbars list the windows on their own output: the one under the window's top-left corner.
        if (View* v = view())
            if (wlr_output* output = wlr_output_layout_output_at(server.layout(), v->x(), v->y()))
                wlr_foreign_toplevel_handle_v1_output_enter(handle_, output);
        // The view was focused as it mapped, before this handle existed.
        focus_changed(server.seat().wlr()->keyboard_state.focused_surface);
        request_activate_.connect(&handle_->events.request_activate, [this](void*) {
            View* v = view();
            if (v && v->mapped())
                owner_.server_.focus(v);
        });
        request_close_.connect(&handle_->events.request_close,
                               [this](void*) { wlr_xdg_toplevel_send_close(xdg_); });
        request_maximize_.connect(&handle_->events.request_maximize, [this](void* data) {
            if (View* v = view(); v && v->mapped())
                v->set_maximized(static_cast<wlr_foreign_toplevel_handle_v1_maximized_event*>(data)->maximized);
        });
        request_fullscreen_.connect(&handle_->events.request_fullscreen, [this](void* data) {
            auto* event = static_cast<wlr_foreign_toplevel_handle_v1_fullscreen_event*>(data);
            if (View* v = view(); v && v->mapped())
                v->set_fullscreen(event->fullscreen, event->output);
        });
        request_minimize_.connect(&handle_->events.request_minimize, [this](void* data) {
            if (View* v = view(); v && v->mapped())
                v->set_minimized(static_cast<wlr_foreign_toplevel_handle_v1_minimized_event*>(data)->minimized);
            report_states();
        });
        report_states();
    }

    void report_states()
    {
        View* v = view();
        if (!handle_ || !v)
            return;
        wlr_foreign_toplevel_handle_v1_set_maximized(handle_, v->maximized());
        wlr_foreign_toplevel_handle_v1_set_fullscreen(handle_, v->fullscreen());
        wlr_foreign_toplevel_handle_v1_set_minimized(handle_, v->minimized());
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
    wlr_xdg_surface* xdg_;
    wlr_foreign_toplevel_handle_v1* handle_ = nullptr;
    wl::Listener map_;
    wl::Listener unmap_;
    wl::Listener destroy_;
    wl::Listener title_;
    wl::Listener app_id_;
    wl::Listener configure_;
    wl::Listener request_activate_;
    wl::Listener request_close_;
    wl::Listener request_maximize_;
    wl::Listener request_fullscreen_;
    wl::Listener request_minimize_;
};

ForeignToplevels::ForeignToplevels(wl_display* display, wlr_xdg_shell* shell, Server& server)
    : server_(server), manager_(wlr_foreign_toplevel_manager_v1_create(display))  // freed with the display
{
    new_surface_.connect(&shell->events.new_surface, [this](void* data) {
        auto* xdg = static_cast<wlr_xdg_surface*>(data);
        if (xdg->role == WLR_XDG_SURFACE_ROLE_TOPLEVEL)
            toplevels_.push_back(std::make_unique<Toplevel>(*this, xdg));
    });
    focus_change_.connect(&server.seat().wlr()->keyboard_state.events.focus_change, [this](void* data) {
        auto* event = static_cast<wlr_seat_keyboard_focus_change_event*>(data);
        for (auto& toplevel : toplevels_)
            toplevel->focus_changed(event->new_surface);
    });
}

ForeignToplevels::~ForeignToplevels() = default;

}  // namespace kiln::compositor
