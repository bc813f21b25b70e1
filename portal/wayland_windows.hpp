// WaylandWindows: the windows kiln lists in ext-foreign-toplevel-list, which a window source captures.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct wl_registry;
struct ext_foreign_toplevel_list_v1;
struct ext_foreign_toplevel_handle_v1;

namespace portal {

class WaylandWindows;

struct Window {
    WaylandWindows* owner = nullptr;
    ext_foreign_toplevel_handle_v1* handle = nullptr;
    std::string identifier;  // kiln's, unique within its run
    std::string app_id;
    std::string title;
    uint64_t mapped = 0;  // the order kiln announced it in: higher is newer
    bool done = false;    // its first batch of properties arrived
    ~Window();
};

class WaylandWindows {
public:
    WaylandWindows() = default;
    ~WaylandWindows();
    WaylandWindows(const WaylandWindows&) = delete;
    WaylandWindows& operator=(const WaylandWindows&) = delete;

    // Binds kiln's ext_foreign_toplevel_list_v1 global.
    void bind(wl_registry* registry, uint32_t name);
    bool bound() const { return list_ != nullptr; }
    // Destroys the handles and the list: before the connection closes.
    void release();

    // The window whose app_id or title equals `match` (the newest such); with `match` empty, or none matching, the
    // newest window kiln announced. nullptr where kiln lists none.
    const Window* choose(const std::string& match) const;
    // The window with this app_id and title (the newest such), or nullptr.
    const Window* find(const std::string& app_id, const std::string& title) const;
    // The window kiln calls `identifier` (kiln msg's windows show it too), or nullptr.
    const Window* identified(const std::string& identifier) const;
    // Every window whose properties arrived, oldest first.
    std::vector<const Window*> all() const;

private:
    static void on_toplevel(void* data, ext_foreign_toplevel_list_v1*, ext_foreign_toplevel_handle_v1* handle) noexcept;
    static void on_finished(void* data, ext_foreign_toplevel_list_v1*) noexcept;
    void forget(const ext_foreign_toplevel_handle_v1* handle);

    ext_foreign_toplevel_list_v1* list_ = nullptr;
    std::vector<std::unique_ptr<Window>> windows_;
    uint64_t announced_ = 0;

    friend struct WindowEvents;
};

}  // namespace portal
