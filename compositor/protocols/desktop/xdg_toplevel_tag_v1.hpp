// XdgToplevelTagV1: xdg_toplevel_tag_manager_v1, the untranslated tag and the translated description a client gives
// each of its toplevels, kept for as long as the xdg_toplevel lives; kiln.ini's [rule] sections match the tag.
#pragma once

#include "compositor/wlr.hpp"

#include <memory>
#include <string>
#include <unordered_map>

namespace kiln::compositor {

class XdgToplevelTagV1 {
public:
    explicit XdgToplevelTagV1(wl_display* display);
    ~XdgToplevelTagV1();
    XdgToplevelTagV1(const XdgToplevelTagV1&) = delete;
    XdgToplevelTagV1& operator=(const XdgToplevelTagV1&) = delete;

    const wl_global* global() const { return global_; }
    // The tag / description of the xdg toplevel whose surface is `surface`; empty when none was set.
    std::string tag_of(wlr_surface* surface) const;
    std::string description_of(wlr_surface* surface) const;

    struct Labels;

private:
    static void bind(wl_client* client, void* data, uint32_t version, uint32_t id) noexcept;
    // The labels of the xdg_toplevel `toplevel`, made on first use.
    Labels* labels(wl_resource* toplevel);
    const Labels* find(wlr_surface* surface) const;

    wl_global* global_;
    // Per xdg_toplevel resource; an entry goes with its resource.
    std::unordered_map<wl_resource*, std::unique_ptr<Labels>> labels_;
};

}  // namespace kiln::compositor
