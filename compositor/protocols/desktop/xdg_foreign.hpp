// XdgForeign: xdg-foreign v1 and v2 (kiln's own): one client exports a toplevel as a handle, another imports it and
// makes it the parent of its own toplevel (a portal's file dialog above the window that asked for it).
//
// wlroots 0.15's version never frees an imported object's children (types/wlr_xdg_foreign_v*.c, destroy_imported)
// and leaves their listeners on live surfaces. Here every object is owned by its resource: an exported handle dies
// with its resource or its toplevel, an import with its resource or its export, and each takes back the parent
// links it made, so nothing outlives the client that made it.
#pragma once

#include "compositor/wlr.hpp"

#include <map>
#include <string>

namespace kiln::compositor {

class XdgForeign {
public:
    explicit XdgForeign(wl_display* display);
    ~XdgForeign();
    XdgForeign(const XdgForeign&) = delete;
    XdgForeign& operator=(const XdgForeign&) = delete;

    struct Exported;
    Exported* find(const std::string& handle) const;
    void add(Exported* exported);
    void remove(Exported* exported);

private:
    wl_global* exporter_v1_;
    wl_global* importer_v1_;
    wl_global* exporter_v2_;
    wl_global* importer_v2_;
    std::map<std::string, Exported*> exported_;  // by handle; v1 and v2 handles are interchangeable
};

}  // namespace kiln::compositor
