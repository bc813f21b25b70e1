// DragIcons: a pointer drag's icon surface in the scene, at the pointer plus its offset, while the drag runs.
#include "compositor/input/drag_icon.hpp"

#include "compositor/log.hpp"

namespace kiln::compositor {

// One drag's icon: its surface and subsurfaces as a scene tree (which sends wl_surface.enter and gets frame callbacks
// as any surface on an output does), placed at the pointer plus the offset wlroots accumulates from the client's
// wl_surface.attach x, y.
class DragIcons::Icon {
public:
    Icon(DragIcons& owner, wlr_drag_icon* icon)
        : owner_(owner), icon_(icon), node_(wlr_scene_subsurface_tree_create(&owner.tree_->node, icon->surface))
    {
        // The icon goes when its drag ends (wlroots destroys it with the drag) or its surface is destroyed.
        destroy_.connect(&icon->events.destroy, [this](void*) {
            DragIcons& owner = owner_;
            wlr_drag_icon* gone = icon_;  // this lambda goes with this Icon: copied first
            owner.icons_.erase(gone);
        });
        if (!node_) {
            log::error("drag icon: the scene could not take the icon surface (out of memory); no icon for this drag");
            return;
        }
        node_destroy_.connect(&node_->events.destroy, [this](void*) {
            node_destroy_.disconnect();
            node_ = nullptr;
        });
        commit_.connect(&icon->surface->events.commit, [this](void*) {
            look_through();
            follow();
        });
        look_through();
        follow();
    }

    ~Icon()
    {
        if (node_) {
            node_destroy_.disconnect();
            wlr_scene_node_destroy(node_);
        }
    }
    Icon(const Icon&) = delete;
    Icon& operator=(const Icon&) = delete;

    void follow()
    {
        if (!node_)
            return;
        const wlr_cursor* cursor = owner_.cursor_;
        wlr_scene_node_set_position(node_, static_cast<int>(cursor->x) + icon_->surface->sx,
                                    static_cast<int>(cursor->y) + icon_->surface->sy);
    }

private:
    // The icon takes no input: the drop target is the surface under it. wlroots 0.15 leaves the icon's input region
    // as the client set it (later wlroots clears it on each commit), and every hit test in kiln is a
    // wlr_scene_node_at on the whole scene, so the regions are cleared here after each commit of the icon (its
    // subsurfaces' too, which take their regions on the icon's commit when synchronized). 0.15's hit test reads
    // current.input; input_region (its clipped copy) goes too.
    void look_through()
    {
        wlr_surface_for_each_surface(
            icon_->surface,
            [](wlr_surface* surface, int, int, void*) noexcept {
                pixman_region32_clear(&surface->current.input);
                pixman_region32_clear(&surface->input_region);
            },
            nullptr);
    }

    DragIcons& owner_;
    wlr_drag_icon* icon_;
    wlr_scene_node* node_;

    wl::Listener destroy_;
    wl::Listener node_destroy_;
    wl::Listener commit_;
};

DragIcons::DragIcons(wlr_seat* seat, wlr_cursor* cursor, wlr_scene_tree* tree) : cursor_(cursor), tree_(tree)
{
    start_drag_.connect(&seat->events.start_drag, [this](void* data) { drag_started(static_cast<wlr_drag*>(data)); });
}

DragIcons::~DragIcons() = default;

void DragIcons::pointer_moved()
{
    for (auto& [icon, shown] : icons_)
        shown->follow();
}

void DragIcons::drag_started(wlr_drag* drag)
{
    // Only a pointer drag has a place for its icon (kiln starts no other kind: touch and keyboard drags are refused).
    wlr_drag_icon* icon = drag->icon;
    if (!icon || drag->grab_type != WLR_DRAG_GRAB_KEYBOARD_POINTER || icons_.contains(icon))
        return;
    icons_.emplace(icon, std::make_unique<Icon>(*this, icon));
}

}  // namespace kiln::compositor
