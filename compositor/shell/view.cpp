// View behaviour: placement on map, focus on map, interactive move, fullscreen (which lets the scene scan out).
#include "compositor/shell/view.hpp"

#include "compositor/input/seat.hpp"
#include "compositor/server.hpp"

namespace kiln::compositor {

View::View(Server& server, wlr_xdg_surface* surface)
    : server_(server), xdg_(surface), node_(wlr_scene_xdg_surface_create(&server.scene()->node, surface))
{
    // Popups find their parent's scene node through data.
    xdg_->data = node_;
    node_->data = this;

    map_.connect(&xdg_->events.map, [this](void*) { map(); });
    unmap_.connect(&xdg_->events.unmap, [this](void*) {
        mapped_ = false;
        server_.seat().view_unmapped(this);
    });
    destroy_.connect(&xdg_->events.destroy, [this](void*) {
        // The xdg_surface may outlive its toplevel role (and get another): its scene tree goes now.
        xdg_->data = nullptr;
        server_.remove_view(this);
    });
    request_move_.connect(&xdg_->toplevel->events.request_move, [this](void*) {
        if (mapped_)
            server_.seat().begin_move(this);
    });
    request_fullscreen_.connect(&xdg_->toplevel->events.request_fullscreen, [this](void* data) {
        auto* event = static_cast<wlr_xdg_toplevel_set_fullscreen_event*>(data);
        set_fullscreen(event->fullscreen);
    });
    // kiln has no maximize; xdg-shell still requires a configure in reply.
    request_maximize_.connect(&xdg_->toplevel->events.request_maximize,
                              [this](void*) { wlr_xdg_surface_schedule_configure(xdg_); });
}

void View::map()
{
    mapped_ = true;
    if (xdg_->toplevel->requested.fullscreen) {
        // Asked for before the first commit: the window goes where its output is, not where new windows cascade.
        placed_ = true;
        set_fullscreen(true);
    } else if (!placed_) {
        // Cascade new windows so several stay visible.
        placed_ = true;
        const wlr_box* layout_box = wlr_output_layout_get_box(server_.layout(), nullptr);
        const int origin_x = layout_box ? layout_box->x : 0;
        const int origin_y = layout_box ? layout_box->y : 0;
        const int step = 32 + static_cast<int>(server_.mapped_view_count() % 8) * 48;
        move_to(origin_x + step, origin_y + step);
    }
    wlr_scene_node_raise_to_top(node_);
    server_.focus(this);
}

void View::move_to(int x, int y)
{
    x_ = x;
    y_ = y;
    wlr_scene_node_set_position(node_, x, y);
    server_.seat().scene_changed();
}

void View::set_activated(bool activated)
{
    wlr_xdg_toplevel_set_activated(xdg_, activated);
}

void View::set_fullscreen(bool fullscreen)
{
    wlr_output* output = wlr_output_layout_output_at(server_.layout(), x_ + 1, y_ + 1);
    if (!output)
        output = wlr_output_layout_get_center_output(server_.layout());
    if (fullscreen && output) {
        const wlr_box* box = wlr_output_layout_get_box(server_.layout(), output);
        move_to(box->x, box->y);
        wlr_xdg_toplevel_set_size(xdg_, static_cast<uint32_t>(box->width), static_cast<uint32_t>(box->height));
        wlr_scene_node_raise_to_top(node_);
    }
    fullscreen_ = fullscreen && output;
    wlr_xdg_toplevel_set_fullscreen(xdg_, fullscreen_);
}

void View::close()
{
    wlr_xdg_toplevel_send_close(xdg_);
}

void View::toggle_fullscreen()
{
    set_fullscreen(!fullscreen_);
}

void View::toggle_maximized()
{
    wlr_output* output = wlr_output_layout_output_at(server_.layout(), x_ + 1, y_ + 1);
    if (!output)
        output = wlr_output_layout_get_center_output(server_.layout());
    if (!maximized_ && output) {
        restore_x_ = x_;
        restore_y_ = y_;
        const wlr_box* box = wlr_output_layout_get_box(server_.layout(), output);
        move_to(box->x, box->y);
        wlr_xdg_toplevel_set_size(xdg_, static_cast<uint32_t>(box->width), static_cast<uint32_t>(box->height));
        maximized_ = true;
    } else if (maximized_) {
        move_to(restore_x_, restore_y_);
        wlr_xdg_toplevel_set_size(xdg_, 0, 0);  // the client's own size again
        maximized_ = false;
    }
    wlr_xdg_toplevel_set_maximized(xdg_, maximized_);
}

}  // namespace kiln::compositor
