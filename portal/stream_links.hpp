// StreamLinks: the PipeWire links from one stream's node, watched so that a consumer joining a running stream is seen.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <spa/utils/hook.h>

struct pw_core;
struct pw_registry;
struct pw_proxy;
struct pw_link_info;
struct spa_dict;

namespace portal {

// A second consumer linked to a node that streams already changes nothing the stream itself sees (the port is
// configured, the link takes its buffers): only the registry tells. `joined` runs when such a link becomes active.
class StreamLinks {
public:
    StreamLinks(pw_core* core, uint32_t node_id, std::function<void()> joined);
    ~StreamLinks();
    StreamLinks(const StreamLinks&) = delete;
    StreamLinks& operator=(const StreamLinks&) = delete;

private:
    struct Link {
        StreamLinks* owner = nullptr;
        uint32_t id = 0;
        pw_proxy* proxy = nullptr;
        spa_hook listener{};
        bool active = false;
    };

    static void on_global(void* data, uint32_t id, uint32_t permissions, const char* type, uint32_t version,
                          const spa_dict* props) noexcept;
    static void on_global_remove(void* data, uint32_t id) noexcept;
    static void on_link_info(void* data, const pw_link_info* info) noexcept;

    uint32_t node_id_;
    std::function<void()> joined_;
    pw_registry* registry_ = nullptr;
    spa_hook registry_listener_{};
    std::vector<std::unique_ptr<Link>> links_;
};

}  // namespace portal
