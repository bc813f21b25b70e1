// wl::Listener: a wl_listener that calls a std::function and disconnects itself when it dies.
//
// libwayland keeps the listener's address in the signal's list, so it is neither copyable nor movable. Declare
// listeners last in a class so they are destroyed first, before the state their callbacks touch.
#pragma once

#include <wayland-server-core.h>

#include <functional>
#include <utility>

namespace kiln::wl {

class Listener {
public:
    using Callback = std::function<void(void* data)>;

    Listener()
    {
        node_.owner = this;
        node_.notify = &Listener::dispatch;
        wl_list_init(&node_.link);
    }
    Listener(wl_signal* signal, Callback callback) : Listener() { connect(signal, std::move(callback)); }
    Listener(const Listener&) = delete;
    Listener& operator=(const Listener&) = delete;
    Listener(Listener&&) = delete;
    Listener& operator=(Listener&&) = delete;
    ~Listener() { disconnect(); }

    void connect(wl_signal* signal, Callback callback)
    {
        disconnect();
        callback_ = std::move(callback);
        wl_signal_add(signal, &node_);
    }

    // A client's destroy signal has no getter; libwayland adds the listener itself.
    void connect_client_destroy(wl_client* client, Callback callback)
    {
        disconnect();
        callback_ = std::move(callback);
        wl_client_add_destroy_listener(client, &node_);
    }

    // The display's client-created signal likewise: data is each new wl_client.
    void connect_client_created(wl_display* display, Callback callback)
    {
        disconnect();
        callback_ = std::move(callback);
        wl_display_add_client_created_listener(display, &node_);
    }

    // A client's resource-created signal likewise (libwayland 1.15+): data is each new wl_resource.
    void connect_resource_created(wl_client* client, Callback callback)
    {
        disconnect();
        callback_ = std::move(callback);
        wl_client_add_resource_created_listener(client, &node_);
    }

    void disconnect()
    {
        wl_list_remove(&node_.link);
        wl_list_init(&node_.link);
    }

    bool connected() const { return !wl_list_empty(&node_.link); }

private:
    // The wl_listener libwayland links, with a way back to its owner.
    struct Node : wl_listener {
        Listener* owner = nullptr;
    };

    static void dispatch(wl_listener* listener, void* data) noexcept
    {
        // noexcept: a throw must not unwind through libwayland's C frames; it ends the process instead.
        static_cast<Node*>(listener)->owner->callback_(data);
    }

    Callback callback_;
    Node node_{};
};

}  // namespace kiln::wl
