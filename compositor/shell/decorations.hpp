// Decorations: who draws window borders, answered through xdg-decoration and KDE server-decoration. kiln draws none
// yet, so it answers client-side to every toplevel, whatever the client asks for.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"

#include <list>
#include <memory>

namespace kiln::compositor {

class Decorations {
public:
    explicit Decorations(wl_display* display);
    ~Decorations();
    Decorations(const Decorations&) = delete;
    Decorations& operator=(const Decorations&) = delete;

private:
    class Toplevel;

    std::list<std::unique_ptr<Toplevel>> toplevels_;
    wl::Listener new_toplevel_decoration_;
};

}  // namespace kiln::compositor
