// WaylandOutputs: the portal's connection to kiln, the globals it captures with and the outputs and windows it can
// share.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "wayland_windows.hpp"

struct wl_display;
struct wl_registry;
struct wl_output;
struct wl_shm;
struct wl_seat;
struct wl_pointer;
struct zxdg_output_manager_v1;
struct zxdg_output_v1;
struct ext_output_image_capture_source_manager_v1;
struct ext_foreign_toplevel_image_capture_source_manager_v1;
struct ext_image_copy_capture_manager_v1;
struct zwp_linux_dmabuf_v1;

namespace portal {

struct Output {
    uint32_t global_name = 0;
    wl_output* output = nullptr;
    zxdg_output_v1* xdg_output = nullptr;
    std::string name;  // e.g. HEADLESS-1, from xdg-output (or wl_output v4)
    int32_t x = 0, y = 0, width = 0, height = 0;  // logical position and size
    ~Output();
};

class WaylandOutputs {
public:
    // Connects to $WAYLAND_DISPLAY and waits for the globals and the outputs' names; connected() says if it worked.
    WaylandOutputs();
    ~WaylandOutputs();
    WaylandOutputs(const WaylandOutputs&) = delete;
    WaylandOutputs& operator=(const WaylandOutputs&) = delete;

    bool connected() const { return display_ != nullptr; }
    // Empty when capture can go ahead; else what is missing (kiln did not offer it to this client).
    std::string missing() const;
    wl_display* display() const { return display_; }
    int fd() const;
    // Reads and dispatches what kiln sent; false when the connection is gone.
    bool dispatch();
    void flush();

    // The output called `name`, or the first output where name is empty or unknown; nullptr where there is none.
    const Output* choose(const std::string& name) const;
    const Output* find(const wl_output* output) const;
    // Every output kiln announces, in the order it announced them.
    std::vector<const Output*> all() const;
    // The output called `name`, or nullptr.
    const Output* named(const std::string& name) const;

    wl_shm* shm() const { return shm_; }
    ext_output_image_capture_source_manager_v1* output_sources() const { return output_sources_; }
    ext_image_copy_capture_manager_v1* copy_capture() const { return copy_capture_; }
    // linux-dmabuf, for the wl_buffers of dma-buf frames; nullptr where kiln offers none.
    zwp_linux_dmabuf_v1* linux_dmabuf() const { return linux_dmabuf_; }
    ext_foreign_toplevel_image_capture_source_manager_v1* toplevel_sources() const { return toplevel_sources_; }
    // The windows kiln lists; window sources work where windows().bound() and toplevel_sources().
    const WaylandWindows& windows() const { return windows_; }
    // The first seat's pointer, made on first use (cursor sessions name it); nullptr where kiln has no seat.
    wl_pointer* pointer();

private:
    static void on_global(void* data, wl_registry* registry, uint32_t name, const char* interface,
                          uint32_t version) noexcept;
    static void on_global_remove(void* data, wl_registry* registry, uint32_t name) noexcept;
    void watch_output(Output& output);

    wl_display* display_ = nullptr;
    wl_registry* registry_ = nullptr;
    wl_shm* shm_ = nullptr;
    zxdg_output_manager_v1* xdg_outputs_ = nullptr;
    ext_output_image_capture_source_manager_v1* output_sources_ = nullptr;
    ext_image_copy_capture_manager_v1* copy_capture_ = nullptr;
    zwp_linux_dmabuf_v1* linux_dmabuf_ = nullptr;
    ext_foreign_toplevel_image_capture_source_manager_v1* toplevel_sources_ = nullptr;
    WaylandWindows windows_;
    wl_seat* seat_ = nullptr;
    wl_pointer* pointer_ = nullptr;
    std::vector<std::unique_ptr<Output>> outputs_;
};

}  // namespace portal
