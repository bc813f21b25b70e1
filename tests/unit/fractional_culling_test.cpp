// Culling and placement at fractional output scales on the recording fake: real wl_surfaces (an in-process client
// over a socket pair, wlroots' pixman renderer for their textures) with opaque regions, culled by VisibleSet.
#include "compositor/output/frame_composer.hpp"
#include "compositor/output/opaque_pixels.hpp"
#include "compositor/output/visible_set.hpp"
#include "tests/unit/recording_frame.hpp"

#include <catch2/catch_test_macros.hpp>

#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <wayland-client.h>

extern "C" {
#include <wlr/render/pixman.h>  // the test's own renderer for client textures; kiln itself never uses it
}
#include "viewporter-protocol.h"  // wp_viewporter_interface (the marshalling tables both sides share)

#include <cmath>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

using namespace kiln;
using namespace kiln::compositor;
using kiln::test::region_of;
using kiln::test::same;
using kiln::test::RecordedCall;
using kiln::test::RecordingFrame;

namespace {

struct Rect {
    int x, y, width, height;
};

// A headless output at `scale` over a wlr_scene, with a compositor and wl_shm for one in-process client.
class FractionalScene {
public:
    static constexpr int width = 640;
    static constexpr int height = 300;

    explicit FractionalScene(float scale)
    {
        wlr_log_init(WLR_ERROR, nullptr);
        display_ = wl_display_create();
        backend_ = wlr_headless_backend_create(display_);
        output = wlr_headless_add_output(backend_, width, height);
        output->scale = scale;  // the backend is never started: no commit, the scale VisibleSet reads is set here
        scene = wlr_scene_create();
        renderer_ = wlr_pixman_renderer_create();
        wlr_renderer_init_wl_display(renderer_, display_);
        compositor_ = wlr_compositor_create(display_, renderer_);
        wlr_viewporter_create(display_);
        new_surface_.notify = [](wl_listener* listener, void* data) noexcept {
            FractionalScene* self = wl_container_of(listener, self, new_surface_);
            self->server_surfaces_.push_back(static_cast<wlr_surface*>(data));
        };
        wl_signal_add(&compositor_->events.new_surface, &new_surface_);

        int fds[2];
        REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
        REQUIRE(wl_client_create(display_, fds[0]));
        client_ = wl_display_connect_to_fd(fds[1]);
        REQUIRE(client_);
        wl_registry* registry = wl_display_get_registry(client_);
        static const wl_registry_listener listener = {
            .global = [](void* data, wl_registry* registry, uint32_t name, const char* interface,
                         uint32_t) noexcept {
                auto* self = static_cast<FractionalScene*>(data);
                if (std::strcmp(interface, wl_compositor_interface.name) == 0)
                    self->wl_compositor_ = static_cast<::wl_compositor*>(
                        wl_registry_bind(registry, name, &wl_compositor_interface, 4));
                else if (std::strcmp(interface, wl_shm_interface.name) == 0)
                    self->shm_ = static_cast<wl_shm*>(wl_registry_bind(registry, name, &wl_shm_interface, 1));
                else if (std::strcmp(interface, wp_viewporter_interface.name) == 0)
                    self->viewporter_ = static_cast<wl_proxy*>(
                        wl_registry_bind(registry, name, &wp_viewporter_interface, 1));
            },
            .global_remove = [](void*, wl_registry*, uint32_t) noexcept {},
        };
        wl_registry_add_listener(registry, &listener, this);
        pump();
        wl_registry_destroy(registry);
        REQUIRE(wl_compositor_);
        REQUIRE(shm_);
        REQUIRE(viewporter_);
    }
    ~FractionalScene()
    {
        wlr_scene_node_destroy(&scene->node);
        for (wl_proxy* proxy : client_objects_)
            wl_proxy_destroy(proxy);
        wl_proxy_destroy(reinterpret_cast<wl_proxy*>(shm_));
        wl_proxy_destroy(reinterpret_cast<wl_proxy*>(wl_compositor_));
        wl_proxy_destroy(viewporter_);
        wl_display_disconnect(client_);
        wl_list_remove(&new_surface_.link);
        wl_display_destroy_clients(display_);
        wlr_backend_destroy(backend_);
        wl_display_destroy(display_);
        wlr_renderer_destroy(renderer_);
    }
    FractionalScene(const FractionalScene&) = delete;
    FractionalScene& operator=(const FractionalScene&) = delete;

    // A translucent-format (ARGB8888) surface of w x h at layout (x, y), opaque where `opaque` says; its texture.
    // With `logical`, its w x h buffer is shown at that size through wp_viewporter, as a fractional-scale client's.
    wlr_texture* add_surface(int x, int y, int w, int h, const std::vector<Rect>& opaque,
                             std::optional<std::pair<int, int>> logical = std::nullopt)
    {
        wl_surface* surface = wl_compositor_create_surface(wl_compositor_);
        client_objects_.push_back(reinterpret_cast<wl_proxy*>(surface));
        if (logical) {
            // wp_viewporter.get_viewport (1), wp_viewport.set_destination (2), by hand: the test has the
            // protocol's interface tables but no client header.
            wl_proxy* viewport = wl_proxy_marshal_constructor(viewporter_, 1, &wp_viewport_interface, nullptr,
                                                              surface);
            wl_proxy_marshal(viewport, 2, logical->first, logical->second);
            client_objects_.push_back(viewport);
        }
        const int stride = w * 4;
        const int size = stride * h;
        const int fd = memfd_create("kiln-fractional-culling", MFD_CLOEXEC);
        REQUIRE(fd >= 0);
        REQUIRE(ftruncate(fd, size) == 0);
        wl_shm_pool* pool = wl_shm_create_pool(shm_, fd, size);
        wl_buffer* buffer = wl_shm_pool_create_buffer(pool, 0, w, h, stride, WL_SHM_FORMAT_ARGB8888);
        client_objects_.push_back(reinterpret_cast<wl_proxy*>(buffer));
        wl_shm_pool_destroy(pool);
        close(fd);
        if (!opaque.empty()) {
            wl_region* region = wl_compositor_create_region(wl_compositor_);
            for (const Rect& r : opaque)
                wl_region_add(region, r.x, r.y, r.width, r.height);
            wl_surface_set_opaque_region(surface, region);
            wl_region_destroy(region);
        }
        wl_surface_attach(surface, buffer, 0, 0);
        wl_surface_commit(surface);
        pump();
        REQUIRE(!server_surfaces_.empty());
        wlr_surface* server = server_surfaces_.back();
        REQUIRE(wlr_surface_has_buffer(server));
        wlr_scene_surface* node = wlr_scene_surface_create(&scene->node, server);
        wlr_scene_node_set_position(&node->node, x, y);
        wlr_texture* texture = wlr_surface_get_texture(server);
        REQUIRE(texture);
        REQUIRE(!wlr_texture_is_opaque(texture));  // only the opaque region can make it cover anything
        return texture;
    }

    RecordingFrame compose()
    {
        visible.build(scene, output, nullptr, 0, 0, Region(0, 0, width, height), true);
        RecordingFrame frame;
        compose_frame(visible, {output->transform_matrix, {0.1f, 0.2f, 0.3f, 1.0f}, false}, frame);
        frame.finish();
        return frame;
    }

    wlr_output* output = nullptr;
    wlr_scene* scene = nullptr;
    VisibleSet visible;

private:
    // Client requests reach the server, its answers the client: one in-process roundtrip's worth, a few times over.
    void pump()
    {
        for (int i = 0; i < 4; ++i) {
            wl_display_flush(client_);
            wl_event_loop_dispatch(wl_display_get_event_loop(display_), 0);
            wl_display_flush_clients(display_);
            while (wl_display_prepare_read(client_) != 0)
                wl_display_dispatch_pending(client_);
            pollfd pfd{wl_display_get_fd(client_), POLLIN, 0};
            if (poll(&pfd, 1, 0) > 0)
                wl_display_read_events(client_);
            else
                wl_display_cancel_read(client_);
            wl_display_dispatch_pending(client_);
        }
    }

    wl_display* display_ = nullptr;
    wlr_backend* backend_ = nullptr;
    wlr_renderer* renderer_ = nullptr;
    wlr_compositor* compositor_ = nullptr;
    wl_listener new_surface_{};
    std::vector<wlr_surface*> server_surfaces_;
    ::wl_display* client_ = nullptr;
    ::wl_compositor* wl_compositor_ = nullptr;
    wl_shm* shm_ = nullptr;
    wl_proxy* viewporter_ = nullptr;
    std::vector<wl_proxy*> client_objects_;  // the client's surfaces, buffers and viewports, freed with it
};

// What the frame drew of `texture`, opaque and blended.
Region drawn(const RecordingFrame& frame, wlr_texture* texture)
{
    Region all;
    for (const auto& call : frame.calls)
        if (call.kind == RecordedCall::Kind::texture && call.texture == texture_handle(texture)) {
            all.add(region_of(call.opaque));
            all.add(region_of(call.blended));
        }
    return all;
}

}  // namespace

TEST_CASE("at scales 1.25, 1.5 and 1.75 a surface under another's opaque region is never drawn")
{
    for (float scale : {1.25f, 1.5f, 1.75f}) {
        CAPTURE(scale);
        FractionalScene s(scale);
        wlr_texture* hidden = s.add_surface(5, 5, 100, 100, {});
        // Two bands of the top surface's opaque region meet at y = 61, which falls inside an output pixel at each
        // of these scales: mapped band by band, a row of pixels between them would not count as covered.
        wlr_texture* top = s.add_surface(0, 0, 120, 120, {{0, 0, 120, 61}, {0, 61, 110, 59}});
        RecordingFrame frame = s.compose();
        CHECK(drawn(frame, hidden).empty());
        CHECK(s.visible.culled() == 1);
        CHECK(!drawn(frame, top).empty());
    }
}

TEST_CASE("at scale 1.5 a surface whose pixel is only partly covered is drawn there, and only where it shows")
{
    FractionalScene s(1.5f);
    // Pixels 90 to 134 across; the opaque region above ends at 61 x 1.5 = 91.5, halfway through pixel 91.
    wlr_texture* under = s.add_surface(60, 10, 30, 30, {});
    s.add_surface(0, 0, 150, 150, {{0, 0, 61, 150}});
    RecordingFrame frame = s.compose();
    CHECK(s.visible.culled() == 0);
    CHECK(same(drawn(frame, under), Region(91, 15, 135 - 91, 45)));
}

TEST_CASE("opaque_pixels keeps exactly the pixels wholly inside the region")
{
    Region opaque;
    pixman_region32_union_rect(opaque.get(), opaque.get(), 0, 0, 10, 5);
    pixman_region32_union_rect(opaque.get(), opaque.get(), 0, 5, 7, 5);
    // A 10x10 surface on 15x15 pixels at (100, 200): the see-through corner x >= 7, y >= 5 starts at 10.5 and 7.5,
    // so rows 0-6 are opaque whole and rows 7-14 up to column 9; row 7, split between the two bands, is kept.
    const Region pixels = opaque_pixels(opaque.get(), 10, 10, wlr_box{100, 200, 15, 15});
    Region want(100, 200, 15, 7);
    pixman_region32_union_rect(want.get(), want.get(), 100, 207, 10, 8);
    CHECK(same(pixels, want));
    // Nothing opaque: nothing covered; an opaque region larger than the surface covers only the box.
    CHECK(opaque_pixels(Region().get(), 10, 10, wlr_box{0, 0, 15, 15}).empty());
    CHECK(same(opaque_pixels(Region(-5, -5, 40, 40).get(), 10, 10, wlr_box{3, 4, 15, 15}), Region(3, 4, 15, 15)));
}

TEST_CASE("a node beside its parent's edge meets it in pixels at every scale, and keeps round(size x scale)")
{
    for (float scale : {1.25f, 1.5f, 1.75f, 2.0f}) {
        CAPTURE(scale);
        FractionalScene s(scale);
        // A window at x = 169 (211.25 pixels at 1.25): its 101-wide content and a 40-wide neighbour at x = 101 in
        // it, as a subsurface or a decoration is placed.
        wlr_scene_tree* window = wlr_scene_tree_create(&s.scene->node);
        wlr_scene_node_set_position(&window->node, 169, 3);
        const float red[4] = {1, 0, 0, 1};
        const float blue[4] = {0, 0, 1, 1};
        wlr_scene_rect_create(&window->node, 101, 21, red);  // the content
        wlr_scene_rect* beside = wlr_scene_rect_create(&window->node, 40, 21, blue);
        wlr_scene_node_set_position(&beside->node, 101, 0);
        wlr_scene_rect* below = wlr_scene_rect_create(&window->node, 101, 5, blue);
        wlr_scene_node_set_position(&below->node, 0, 21);
        s.compose();
        const auto& draws = s.visible.draws();
        REQUIRE(draws.size() == 3);
        const wlr_box a = draws[0].box, b = draws[1].box, c = draws[2].box;
        CHECK(a.width == std::lround(101 * scale));
        CHECK(a.x + a.width == b.x);   // no seam, no overlap across
        CHECK(a.y + a.height == c.y);  // nor down
        CHECK(a.y == b.y);
    }
}

TEST_CASE("at scale 1.5 a buffer of round(size x 1.5) shown through a viewport maps 1:1 and samples NEAREST")
{
    FractionalScene s(1.5f);
    wlr_texture* exact = s.add_surface(101, 0, 152, 122, {}, std::pair{101, 81});  // x at 151.5: rounded once
    wlr_texture* scaled = s.add_surface(0, 120, 100, 60, {});                     // a 1x buffer, drawn 150x90
    RecordingFrame frame = s.compose();
    const RecordedCall* one = nullptr;
    const RecordedCall* other = nullptr;
    for (const auto& call : frame.calls) {
        if (call.kind == RecordedCall::Kind::texture && call.texture == texture_handle(exact))
            one = &call;
        if (call.kind == RecordedCall::Kind::texture && call.texture == texture_handle(scaled))
            other = &call;
    }
    REQUIRE(one);
    CHECK(one->box.x == 152);
    CHECK(one->box.width == 152);
    CHECK(one->box.height == 122);
    CHECK(one->source.width == 152);
    CHECK(one->filter == renderer::Filter::nearest);
    REQUIRE(other);
    CHECK(other->box.width == 150);
    CHECK(other->filter == renderer::Filter::linear);
}
