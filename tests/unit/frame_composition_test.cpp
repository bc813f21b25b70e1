// The frame pipeline on the recording fake, no EGL: a real wlr_scene (rectangles and buffer nodes with fake
// textures) culled by VisibleSet, damage aged by OutputRing, composed by compose_frame; the calls are checked.
#include "compositor/output/frame_composer.hpp"
#include "compositor/output/output_ring.hpp"
#include "compositor/output/visible_set.hpp"
#include "tests/unit/recording_frame.hpp"

#include <catch2/catch_test_macros.hpp>

#include <drm_fourcc.h>

#include <vector>

using namespace kiln;
using namespace kiln::compositor;
using kiln::test::region_of;
using kiln::test::same;
using kiln::test::RecordedCall;
using kiln::test::RecordingFrame;

namespace {

// A texture that only knows its size and whether its format is opaque.
struct FakeTexture {
    wlr_texture base;
    bool opaque;
};

const wlr_texture_impl fake_texture_impl = {
    .is_opaque = [](wlr_texture* t) noexcept { return reinterpret_cast<FakeTexture*>(t)->opaque; },
    .write_pixels = nullptr,
    .destroy = [](wlr_texture* t) noexcept { delete reinterpret_cast<FakeTexture*>(t); },
};

// A buffer with no storage: the scene and the ring only lock, unlock and measure it.
const wlr_buffer_impl fake_buffer_impl = {
    .destroy = [](wlr_buffer* b) noexcept { delete b; },
    .get_dmabuf = nullptr,
    .get_shm = nullptr,
    .begin_data_ptr_access = nullptr,
    .end_data_ptr_access = nullptr,
};

wlr_buffer* fake_buffer(int width, int height)
{
    auto* buffer = new wlr_buffer{};
    wlr_buffer_init(buffer, &fake_buffer_impl, width, height);
    return buffer;
}

struct FakeAllocator {
    wlr_allocator base;
    int created = 0;
};

const wlr_allocator_interface fake_allocator_impl = {
    .create_buffer = [](wlr_allocator* a, int width, int height, const wlr_drm_format*) noexcept {
        ++reinterpret_cast<FakeAllocator*>(a)->created;
        return fake_buffer(width, height);
    },
    .destroy = [](wlr_allocator*) noexcept {},
};

// A headless output (no display socket, no renderer: the backend is never started) over a wlr_scene.
struct Scene {
    static constexpr int width = 200;
    static constexpr int height = 200;

    Scene()
    {
        wlr_log_init(WLR_ERROR, nullptr);
        display = wl_display_create();
        backend = wlr_headless_backend_create(display);
        output = wlr_headless_add_output(backend, width, height);
        scene = wlr_scene_create();
    }
    ~Scene()
    {
        wlr_scene_node_destroy(&scene->node);
        wlr_backend_destroy(backend);
        wl_display_destroy(display);
    }
    Scene(const Scene&) = delete;
    Scene& operator=(const Scene&) = delete;

    // A buffer node whose texture is `opaque` or not; the texture is the node's, like kiln's own.
    wlr_texture* add_texture(int x, int y, int w, int h, bool opaque)
    {
        wlr_buffer* buffer = fake_buffer(w, h);
        wlr_scene_buffer* node = wlr_scene_buffer_create(&scene->node, buffer);
        wlr_buffer_drop(buffer);  // the node holds it
        auto* texture = new FakeTexture{{}, opaque};
        wlr_texture_init(&texture->base, &fake_texture_impl, static_cast<uint32_t>(w), static_cast<uint32_t>(h));
        node->texture = &texture->base;
        wlr_scene_node_set_position(&node->node, x, y);
        return &texture->base;
    }
    void add_rect(int x, int y, int w, int h, const float color[4])
    {
        wlr_scene_rect* rect = wlr_scene_rect_create(&scene->node, w, h, color);
        wlr_scene_node_set_position(&rect->node, x, y);
    }

    // `reference`: the full-redraw frame (--debug-full-redraw), unculled and all blended.
    RecordingFrame compose(const Region& damage, bool reference = false)
    {
        visible.build(scene, output, nullptr, 0, 0, damage, !reference);
        RecordingFrame frame;
        compose_frame(visible, {output->transform_matrix, background, reference}, frame);
        frame.finish();
        return frame;
    }

    wl_display* display = nullptr;
    wlr_backend* backend = nullptr;
    wlr_output* output = nullptr;
    wlr_scene* scene = nullptr;
    VisibleSet visible;
    renderer::Color background{0.1f, 0.2f, 0.3f, 1.0f};
};

bool overlaps(const Region& a, const Region& b)
{
    Region both = a;
    both.intersect(b);
    return !both.empty();
}

// Every call drawing `texture`.
std::vector<const RecordedCall*> draws_of(const RecordingFrame& frame, wlr_texture* texture)
{
    std::vector<const RecordedCall*> out;
    for (const auto& call : frame.calls)
        if (call.kind == RecordedCall::Kind::texture && call.texture == texture_handle(texture))
            out.push_back(&call);
    return out;
}

// Everything the frame touched: cleared, drawn opaque or blended.
Region touched(const RecordingFrame& frame)
{
    Region all;
    for (const auto& call : frame.calls) {
        all.add(region_of(call.opaque));
        all.add(region_of(call.blended));
    }
    return all;
}

const Region whole(0, 0, Scene::width, Scene::height);

}  // namespace

TEST_CASE("a surface wholly under an opaque one is never drawn")
{
    Scene s;
    wlr_texture* hidden = s.add_texture(20, 20, 50, 50, true);
    const float grey[4] = {0.25f, 0.25f, 0.25f, 0.5f};
    s.add_rect(60, 60, 30, 30, grey);  // a translucent title bar, also wholly covered
    wlr_texture* top = s.add_texture(0, 0, 120, 120, true);
    wlr_texture* beside = s.add_texture(130, 0, 50, 50, false);

    RecordingFrame frame = s.compose(whole);
    CHECK(draws_of(frame, hidden).empty());
    for (const auto& call : frame.calls)
        CHECK(call.kind != RecordedCall::Kind::solid);
    CHECK(s.visible.culled() == 2);
    REQUIRE(draws_of(frame, top).size() == 1);
    CHECK(same(region_of(draws_of(frame, top)[0]->opaque), Region(0, 0, 120, 120)));
    REQUIRE(draws_of(frame, beside).size() == 1);
    // The background is cleared only where no opaque surface lies: not under `top`.
    for (const auto& call : frame.calls)
        if (call.kind == RecordedCall::Kind::clear)
            CHECK(!overlaps(region_of(call.opaque), Region(0, 0, 120, 120)));
    CHECK(frame.finished == 1);
}

TEST_CASE("opaque parts are drawn unblended, translucent parts and what shows through blended")
{
    Scene s;
    wlr_texture* translucent = s.add_texture(0, 0, 100, 100, false);
    wlr_texture* opaque = s.add_texture(50, 0, 100, 100, true);
    const float solid[4] = {0.5f, 0.0f, 0.0f, 1.0f};
    const float glass[4] = {0.0f, 0.0f, 0.25f, 0.5f};
    s.add_rect(0, 150, 40, 20, solid);
    s.add_rect(100, 150, 40, 20, glass);

    RecordingFrame frame = s.compose(whole);
    auto under = draws_of(frame, translucent);
    REQUIRE(under.size() == 1);
    // Only the part the opaque window does not cover, and all of it blended.
    CHECK(under[0]->opaque.empty());
    CHECK(same(region_of(under[0]->blended), Region(0, 0, 50, 100)));
    auto over = draws_of(frame, opaque);
    REQUIRE(over.size() == 1);
    CHECK(same(region_of(over[0]->opaque), Region(50, 0, 100, 100)));
    CHECK(over[0]->blended.empty());
    // Exact texel mapping samples NEAREST; the texture's own alpha is untouched.
    CHECK(over[0]->filter == renderer::Filter::nearest);
    CHECK(over[0]->alpha == 1.0f);
    // The background first, then bottom to top.
    CHECK(frame.calls.front().kind == RecordedCall::Kind::clear);
    CHECK(under[0] < over[0]);

    int solids = 0;
    for (const auto& call : frame.calls) {
        if (call.kind != RecordedCall::Kind::solid)
            continue;
        ++solids;
        if (call.color.a >= 1.0f) {
            CHECK(same(region_of(call.opaque), Region(0, 150, 40, 20)));
            CHECK(call.blended.empty());
        } else {
            CHECK(call.opaque.empty());
            CHECK(same(region_of(call.blended), Region(100, 150, 40, 20)));
        }
    }
    CHECK(solids == 2);
    // The background shows (and is cleared) wherever nothing opaque covers: under the translucent window too.
    Region cleared;
    for (const auto& call : frame.calls)
        if (call.kind == RecordedCall::Kind::clear)
            cleared.add(region_of(call.opaque));
    Region expected = whole;
    expected.subtract(Region(50, 0, 100, 100));
    expected.subtract(Region(0, 150, 40, 20));
    CHECK(same(cleared, expected));
}

TEST_CASE("the full-redraw reference draws everything whole, blended and linearly sampled")
{
    Scene s;
    wlr_texture* hidden = s.add_texture(20, 20, 50, 50, true);
    wlr_texture* top = s.add_texture(0, 0, 120, 120, true);

    RecordingFrame frame = s.compose(whole, true);
    for (wlr_texture* texture : {hidden, top}) {
        auto calls = draws_of(frame, texture);
        REQUIRE(calls.size() == 1);
        CHECK(calls[0]->opaque.empty());
        CHECK(calls[0]->filter == renderer::Filter::linear);
    }
    CHECK(same(region_of(draws_of(frame, hidden)[0]->blended), Region(20, 20, 50, 50)));
    CHECK(same(region_of(draws_of(frame, top)[0]->blended), Region(0, 0, 120, 120)));
    REQUIRE(frame.calls.front().kind == RecordedCall::Kind::clear);
    CHECK(same(region_of(frame.calls.front().opaque), whole));
    CHECK(s.visible.culled() == 0);
}

TEST_CASE("a surface's alpha factor reaches its texture draws")
{
    Scene s;
    wlr_texture* faded = s.add_texture(0, 0, 100, 100, false);
    s.visible.build(s.scene, s.output, nullptr, 0, 0, whole);
    // alpha-modifier sets it on surfaces (VisibleSet::set_surface_alpha); here on the built node directly.
    REQUIRE(s.visible.draws().size() == 1);
    s.visible.draws()[0].alpha = 0.5f;
    RecordingFrame frame;
    compose_frame(s.visible, {s.output->transform_matrix, s.background, false}, frame);
    auto calls = draws_of(frame, faded);
    REQUIRE(calls.size() == 1);
    CHECK(calls[0]->alpha == 0.5f);
}

TEST_CASE("a surface's colour description reaches its texture draws; others draw with none")
{
    Scene s;
    wlr_texture* wide = s.add_texture(0, 0, 100, 100, true);
    wlr_texture* plain = s.add_texture(100, 0, 100, 100, true);
    s.visible.build(s.scene, s.output, nullptr, 0, 0, whole);
    // color-management sets it on surfaces (VisibleSet::set_surface_colour); here on the built node directly.
    REQUIRE(s.visible.draws().size() == 2);
    auto p3 = std::make_shared<renderer::ImageDescription>();
    p3->primaries = renderer::named_primaries(renderer::NamedPrimaries::display_p3);
    for (auto& v : s.visible.draws())
        if (v.texture == wide)
            v.colour = {p3, renderer::RenderIntent::relative};
    RecordingFrame frame;
    compose_frame(s.visible, {s.output->transform_matrix, s.background, false}, frame);
    auto converted = draws_of(frame, wide);
    REQUIRE(converted.size() == 1);
    CHECK(converted[0]->colour.description == p3);
    CHECK(converted[0]->colour.intent == renderer::RenderIntent::relative);
    auto as_is = draws_of(frame, plain);
    REQUIRE(as_is.size() == 1);
    CHECK(as_is[0]->colour.description == nullptr);
}

TEST_CASE("damage is drawn rectangle by rectangle and nothing outside it")
{
    Scene s;
    wlr_texture* back = s.add_texture(0, 0, 200, 200, true);
    wlr_texture* window = s.add_texture(40, 40, 100, 100, false);
    Region damage(10, 10, 20, 20);
    damage.add(Region(120, 120, 40, 40));

    RecordingFrame frame = s.compose(damage);
    CHECK(same(touched(frame), damage));
    for (const auto& call : frame.calls) {
        for (const auto& boxes : {call.opaque, call.blended})
            for (const auto& box : boxes) {
                Region outside = region_of({box});
                outside.subtract(damage);
                CHECK(outside.empty());
            }
    }
    auto b = draws_of(frame, back);
    REQUIRE(b.size() == 1);
    CHECK(b[0]->opaque.size() == 2);  // one draw per damage rectangle
    CHECK(same(region_of(b[0]->opaque), damage));
    auto w = draws_of(frame, window);
    REQUIRE(w.size() == 1);
    CHECK(same(region_of(w[0]->blended), Region(120, 120, 20, 20)));

    // No damage: nothing is drawn or cleared at all.
    RecordingFrame idle = s.compose(Region());
    CHECK(idle.calls.empty());
}

TEST_CASE("a ring slot redraws what changed since it was last drawn: two frames old, the last two damages")
{
    Scene s;
    FakeAllocator allocator;
    wlr_allocator_init(&allocator.base, &fake_allocator_impl, 0);  // buffers with no storage to map
    wlr_drm_format_set formats{};
    wlr_drm_format_set_add(&formats, DRM_FORMAT_XRGB8888, DRM_FORMAT_MOD_LINEAR);
    s.add_texture(0, 0, 200, 200, true);
    {
        OutputRing ring(&allocator.base, s.output, &formats);
        // Three frames fill the ring: each new slot is missing everything and draws the whole output.
        std::vector<OutputRing::Slot*> slots;
        for (int i = 0; i < 3; ++i) {
            OutputRing::Slot* slot = ring.acquire();
            REQUIRE(slot);
            CHECK(same(slot->damage, whole));
            CHECK(same(touched(s.compose(slot->damage)), whole));
            slot->damage.clear();
            slots.push_back(slot);
        }
        CHECK(ring.acquire() == nullptr);  // all three held
        CHECK(allocator.created == 3);
        for (auto* slot : slots)
            OutputRing::release(slot->buffer);

        const Region first(10, 10, 30, 30);
        const Region second(100, 50, 20, 60);
        ring.add_damage(first);
        OutputRing::Slot* one = ring.acquire();
        REQUIRE(one);
        CHECK(same(one->damage, first));
        CHECK(same(touched(s.compose(one->damage)), first));
        one->damage.clear();  // drawn; still on screen (held)

        ring.add_damage(second);
        OutputRing::Slot* two = ring.acquire();
        REQUIRE(two);
        REQUIRE(two != one);
        // Last drawn two frames ago: it misses both damages, and only those.
        Region both = first;
        both.add(second);
        CHECK(same(two->damage, both));
        RecordingFrame frame = s.compose(two->damage);
        CHECK(same(touched(frame), both));
        two->damage.clear();
        OutputRing::release(one->buffer);

        const Region third(0, 180, 200, 20);
        ring.add_damage(third);
        // The least to redraw wins: `one` misses second and third; the third slot first, second and third.
        OutputRing::Slot* next = ring.acquire();
        REQUIRE(next == one);
        Region expected = second;
        expected.add(third);
        CHECK(same(next->damage, expected));
        CHECK(same(touched(s.compose(next->damage)), expected));
        OutputRing::release(next->buffer);
        OutputRing::release(two->buffer);
    }
    wlr_drm_format_set_finish(&formats);
    CHECK(allocator.created == 3);
}

TEST_CASE("a Region moves its boxes without copying them and leaves the source empty")
{
    Region many;
    for (int i = 0; i < 8; ++i)
        many.add(Region(i * 20, i * 10, 10, 5).get());  // disjoint: eight boxes, held in pixman's allocation
    REQUIRE(many.rects().size() == 8);
    const pixman_box32_t* boxes = many.rects().data();
    Region moved(std::move(many));
    CHECK(moved.rects().size() == 8);
    CHECK(moved.rects().data() == boxes);  // the same allocation: taken, not copied
    CHECK(many.empty());  // NOLINT(bugprone-use-after-move): a moved-from Region is empty and usable
    many.add(Region(0, 0, 1, 1).get());
    CHECK(many.area() == 1);
    Region assigned;
    assigned = std::move(moved);
    CHECK(assigned.rects().size() == 8);
    CHECK(moved.empty());  // NOLINT(bugprone-use-after-move)
    assigned = std::move(assigned);  // self-move leaves it as it was
    CHECK(assigned.rects().size() == 8);
}
