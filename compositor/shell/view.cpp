// View behaviour: the initial configure, placement on map, maximize / fullscreen / minimize, and the size and
// position changes of an interactive resize.
#include "compositor/shell/view.hpp"

#include "compositor/input/seat_focus.hpp"
#include "compositor/core.hpp"
#include "compositor/log.hpp"
#include "compositor/shell/decorations.hpp"
#include "compositor/shell/placement.hpp"
#include "compositor/shell/toplevels.hpp"
#include "compositor/shell/xdg/xdg_scene.hpp"
#include "compositor/shell/xdg_shell.hpp"

#include <algorithm>
#include <cstdio>

namespace kiln::compositor {

namespace {

placement::Box to_box(const wlr_box& box)
{
    return {box.x, box.y, box.width, box.height};
}

}  // namespace

View::View(XdgShell& shell, xdg::Surface* surface)
    : Toplevel(shell.toplevels()),
      shell_(shell),
      xdg_(surface),
      node_(xdg::create_scene_tree(shell.layer(XdgShell::Layer::normal), *surface))
{
    // Popups find their parent's scene node through data, and the node leads back to this window.
    xdg_->data = node_;
    node_->data = static_cast<Toplevel*>(this);
    xdg::Toplevel* toplevel = xdg_->toplevel();

    commit_.connect(&xdg_->surface()->events.commit, [this](void*) { commit(); });
    map_.connect(&xdg_->events.map, [this](void*) { map(); });
    unmap_.connect(&xdg_->events.unmap, [this](void*) {
        mapped_ = false;
        end_resize();
        shell_.toplevels().hidden(*this);
        shell_.visibility_changed();
        wl_signal_emit(&events.unmap, static_cast<Toplevel*>(this));
    });
    destroy_.connect(&xdg_->events.destroy, [this](void*) {
        // The xdg_surface may outlive its toplevel role (and get another): its scene tree goes now.
        xdg_->data = nullptr;
        shell_.remove_view(this);
    });
    ping_timeout_.connect(&xdg_->events.ping_timeout, [this](void*) {
        // Nothing waits on the answer: the client is only marked, so a hung one blocks no one.
        if (!unresponsive_)
            log::notice("window '%s' is not responding",
                        xdg_->toplevel()->title() ? xdg_->toplevel()->title() : "");
        unresponsive_ = true;
    });
    request_move_.connect(&toplevel->events.request_move, [this](void* data) {
        auto* event = static_cast<xdg::SeatRequest*>(data);
        shell_.request_grab(*this, event->seat, event->serial, 0);
    });
    request_resize_.connect(&toplevel->events.request_resize, [this](void* data) {
        auto* event = static_cast<xdg::SeatRequest*>(data);
        if (event->edges != XDG_TOPLEVEL_RESIZE_EDGE_NONE)  // a resize from no edge changes nothing
            shell_.request_grab(*this, event->seat, event->serial, event->edges);
    });
    request_fullscreen_.connect(&toplevel->events.request_fullscreen, [this](void* data) {
        auto* event = static_cast<xdg::FullscreenRequest*>(data);
        // Before the initial commit the request is only recorded; the initial configure carries it.
        if (configured_)
            set_fullscreen(event->fullscreen, event->output);
    });
    request_maximize_.connect(&toplevel->events.request_maximize, [this](void*) {
        if (configured_)
            set_maximized(xdg_->toplevel()->requested().maximized);
    });
    request_minimize_.connect(&toplevel->events.request_minimize, [this](void*) {
        if (mapped_)
            set_minimized(true);
    });
    set_title_.connect(&toplevel->events.set_title, [this](void*) {
        update_decoration();  // the title bar shows it
        wl_signal_emit(&events.title, static_cast<Toplevel*>(this));
    });
    set_app_id_.connect(&toplevel->events.set_app_id,
                        [this](void*) { wl_signal_emit(&events.title, static_cast<Toplevel*>(this)); });
    // wlroots announces a toplevel on its initial commit, whose configure is scheduled but not yet sent.
    if (xdg_->added())
        initial_commit();
}

View::~View() = default;

wlr_box View::geometry() const
{
    const wlr_box box = xdg_->geometry();
    return {x_, y_, box.width, box.height};
}

void View::move_to(int x, int y)
{
    x_ = x;
    y_ = y;
    wlr_scene_node_set_position(node_, x, y);
    shell_.seat().scene_changed();
    shell_.visibility_changed();
}

void View::set_activated(bool activated)
{
    xdg_->toplevel()->set_activated(activated);
    activated_ = activated;
    update_decoration();
    if (activated)
        xdg_->ping();
}

void View::raise()
{
    wlr_scene_node_raise_to_top(node_);
    shell_.visibility_changed();
}

Toplevel* View::parent() const
{
    return xdg_->toplevel()->parent() ? View::from(&xdg_->toplevel()->parent()->base()) : nullptr;
}

wlr_output* View::output() const
{
    if (!mapped_)
        return shell_.output_under_pointer();
    return output_in(shell_.core().layout);
}

void View::update_bounds()
{
    const placement::Box area = this->area(output());
    xdg_->toplevel()->set_bounds(std::max(area.width, 0), std::max(area.height, 0));
}

void View::initial_commit()
{
    configured_ = true;
    update_bounds();
    const xdg::ToplevelRequested& asked = xdg_->toplevel()->requested();
    if (asked.fullscreen)
        set_fullscreen(true, asked.fullscreen_output);
    else if (asked.maximized)
        set_maximized(true);
}

void View::commit()
{
    if (!configured_) {
        if (xdg_->added())
            initial_commit();
        return;
    }
    if (!mapped_)
        return;
    // A window that draws every frame commits its size and opaque region with each frame: which windows are hidden is
    // worked out again only when they change.
    if (cover_changed())
        shell_.visibility_changed();
    unresponsive_ = false;  // it draws: it is alive again
    update_decoration();  // the geometry may have changed
    if (refit_) {
        // Mapped larger than the area, it was asked for a size that fits: once it takes it, it is placed again.
        const placement::Box area = this->area(output());
        const wlr_box box = geometry();
        if (box.width <= area.width && box.height <= area.height) {
            refit_ = false;
            placed_ = false;
        }
    }
    if (!placed_) {
        place();
        return;
    }
    if (resize_edges_) {
        // The edges opposite the dragged ones stay where they were when the resize began.
        const wlr_box box = geometry();
        const wlr_box to = anchored(box.width, box.height);
        move_to(to.x, to.y);
    }
}

void View::map()
{
    mapped_ = true;
    // A KDE server-decoration object may have come before the surface was a toplevel: its answer applies now.
    set_server_decorated(shell_.decorations().server_side(surface()));
    if (!placed_)
        place();
    update_decoration();
    // The dialog of a fullscreen window on its output opens above it, in the fullscreen layer.
    if (Toplevel* owner = parent(); owner && owner->mapped() && owner->fullscreen() && owner->output() == output())
        wlr_scene_node_reparent(node_, shell_.layer(XdgShell::Layer::fullscreen));
    wlr_scene_node_raise_to_top(node_);
    shell_.toplevels().mapped(*this);
    shell_.visibility_changed();
    wl_signal_emit(&events.map, static_cast<Toplevel*>(this));
}

void View::place()
{
    placed_ = true;
    if (fullscreen_ || maximized_) {
        // Its configure went out with the state; only the position is new.
        const wlr_box box = state_box();
        move_to(box.x, box.y);
        return;
    }
    const wlr_box box = geometry();
    // A dialog opens centred on its parent, on its parent's output; other windows on the output under the pointer.
    View* parent = static_cast<View*>(this->parent());
    if (parent && !parent->mapped())
        parent = nullptr;
    wlr_output* output = parent ? parent->output() : shell_.output_under_pointer();
    const placement::Box area = this->area(output);
    if (area.width <= 0 || area.height <= 0) {
        move_to(0, 0);  // no output to be on: it is placed when it commits again
        placed_ = false;
        return;
    }
    if (box.width > area.width || box.height > area.height) {
        // As sway and weston do: ask for a size that fits, and place it again once it has it.
        const xdg::ToplevelLimits& limits = xdg_->toplevel()->limits();
        const placement::Point size = placement::fit(area, box.width, box.height, limits.min_width, limits.min_height);
        request_size(size.x, size.y);
        refit_ = true;
        move_to(area.x, area.y);
        return;
    }
    placement::Point spot;
    if (parent)
        spot = placement::centre_on(to_box(parent->geometry()), area, box.width, box.height);
    else
        spot = placement::place_new(area, box.width, box.height, shell_.taken_spots(this));
    move_to(spot.x, spot.y);
}

void View::set_maximized(bool maximized)
{
    if (maximized == maximized_) {
        xdg_->schedule_configure();  // every request is answered by a configure
        return;
    }
    save_geometry();
    maximized_ = maximized;
    apply_state();
}

void View::set_fullscreen(bool fullscreen, wlr_output* output)
{
    if (fullscreen && !output)
        output = fullscreen_ ? fullscreen_output_ : this->output();
    if (fullscreen == fullscreen_ && (!fullscreen || output == fullscreen_output_)) {
        xdg_->schedule_configure();
        return;
    }
    save_geometry();
    fullscreen_ = fullscreen && output;
    fullscreen_output_ = fullscreen_ ? output : nullptr;
    fullscreen_output_destroy_.disconnect();
    if (fullscreen_output_)
        fullscreen_output_destroy_.connect(&fullscreen_output_->events.destroy, [this](void*) {
            fullscreen_output_ = nullptr;
            set_fullscreen(false, nullptr);
        });
    apply_state();
}

void View::show_minimized(bool minimized)
{
    wlr_scene_node_set_enabled(node_, !minimized);
    shell_.seat().scene_changed();
    shell_.visibility_changed();
}

void View::apply_state()
{
    // Fullscreen windows sit in a layer above all others; the scene then lets an opaque one be scanned out.
    wlr_scene_node_reparent(node_, shell_.layer(fullscreen_ ? XdgShell::Layer::fullscreen : XdgShell::Layer::normal));
    shell_.seat().scene_changed();
    xdg_->toplevel()->set_fullscreen(fullscreen_);
    xdg_->toplevel()->set_maximized(maximized_);
    // A maximized or fullscreen window fills its area: none of its edges can be dragged (version 7).
    constexpr uint32_t all_edges = WLR_EDGE_TOP | WLR_EDGE_BOTTOM | WLR_EDGE_LEFT | WLR_EDGE_RIGHT;
    xdg_->toplevel()->set_constrained(fullscreen_ || maximized_ ? all_edges : 0);
    update_decoration();  // none while fullscreen
    if (fullscreen_ || maximized_) {
        const wlr_box box = state_box();
        xdg_->toplevel()->set_size(box.width, box.height);
        move_to(box.x, box.y);
        wlr_scene_node_raise_to_top(node_);
    } else if (const std::optional<wlr_box> saved = take_saved_geometry()) {
        xdg_->toplevel()->set_size(saved->width, saved->height);
        move_to(saved->x, saved->y);
    } else {
        // It never had a size of its own (maximized or fullscreen from the start): it picks one and is placed.
        xdg_->toplevel()->set_size(0, 0);
        placed_ = false;
    }
    wl_signal_emit(&events.state, static_cast<Toplevel*>(this));
}

wlr_box View::state_box() const
{
    if (fullscreen_) {
        const wlr_box* box = wlr_output_layout_get_box(shell_.core().layout, fullscreen_output_);
        if (box)
            return *box;
    }
    const placement::Box area = this->area(output());
    return {area.x, area.y, area.width, area.height};
}

placement::Box View::area(wlr_output* output) const
{
    placement::Box area = shell_.usable_area(output);
    if (!decoration_ || area.width <= 0 || area.height <= 0)
        return area;
    return ServerDecoration::inside(area);  // the title bar and borders stay inside the usable area too
}

bool View::cover_changed()
{
    const wlr_box geometry = xdg_->geometry();
    const pixman_region32_t* opaque = &surface()->opaque_region;
    const bool same = geometry.x == covered_geometry_.x && geometry.y == covered_geometry_.y &&
                      geometry.width == covered_geometry_.width && geometry.height == covered_geometry_.height &&
                      pixman_region32_equal(opaque, covered_opaque_.get());
    if (same)
        return false;
    covered_geometry_ = geometry;
    pixman_region32_copy(covered_opaque_.get(), opaque);
    return true;
}

void View::update_decoration()
{
    if (!decoration_)
        return;
    const wlr_box box = geometry();
    const char* title = xdg_->toplevel() ? xdg_->toplevel()->title() : nullptr;
    update_decoration_frame(box.width, box.height, title, icon_);
}

void View::set_icon(std::shared_ptr<const TitleIcon> icon)
{
    icon_ = std::move(icon);
    update_decoration();
}

void View::set_server_decorated(bool decorated)
{
    if (decorated == (decoration_ != nullptr))
        return;
    if (decorated)
        decoration_ = std::make_unique<ServerDecoration>(node_, shell_.core().layout);
    else
        decoration_.reset();
    update_decoration();
    shell_.seat().scene_changed();
    // The area a maximized window fills changed. Not while going away: wlroots unmaps a surface before its
    // decoration object goes with it, and a configure scheduled then would outlive the toplevel.
    if (maximized_ && !fullscreen_ && (decorated ? configured_ : mapped_))
        apply_state();
}

void View::begin_resize(uint32_t edges)
{
    anchor_resize(edges);
    // The size it has, so the configure that says "resizing" does not also let it pick one.
    const wlr_box box = geometry();
    request_size(box.width, box.height);
    xdg_->toplevel()->set_resizing(true);
}

void View::end_resize()
{
    if (!resize_edges_)
        return;
    anchor_resize(0);
    xdg_->toplevel()->set_resizing(false);
}

void View::request_size(int width, int height)
{
    const xdg::ToplevelLimits& limits = xdg_->toplevel()->limits();
    xdg_->toplevel()->set_size(within(width, limits.min_width, limits.max_width),
                               within(height, limits.min_height, limits.max_height));
}

View* View::from(xdg::Surface* xdg)
{
    // A toplevel's data is its View's scene node, whose data is the View (a popup's node carries none).
    if (!xdg || xdg->role() != xdg::Role::toplevel || !xdg->data)
        return nullptr;
    auto* toplevel = static_cast<Toplevel*>(static_cast<wlr_scene_node*>(xdg->data)->data);
    return toplevel ? static_cast<View*>(toplevel) : nullptr;
}

void View::close()
{
    xdg_->toplevel()->send_close();
}

}  // namespace kiln::compositor
