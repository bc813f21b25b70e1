// BufferRelease, ReleaseBatch and their owner BufferReleases on fake buffers, no EGL and no bridge: the client's
// buffer (its release event is what sends wl_buffer.release) and the commit's buffer (a wlr_client_buffer stand-in
// whose end, like the texture's, calls release()); and a frame on the recording fake finding what it sampled.
#include "compositor/output/frame_composer.hpp"
#include "compositor/output/sync/buffer_release.hpp"
#include "compositor/output/sync/buffer_releases.hpp"
#include "compositor/output/visible_set.hpp"
#include "tests/unit/recording_frame.hpp"

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

using namespace kiln::compositor;

namespace {

const wlr_buffer_impl plain_impl = {
    .destroy = [](wlr_buffer* b) noexcept { delete b; },
    .get_dmabuf = nullptr,
    .get_shm = nullptr,
    .begin_data_ptr_access = nullptr,
    .end_data_ptr_access = nullptr,
};

// The client's wl_buffer: counts wlroots' release events (DmabufBuffer sends wl_buffer.release on each).
struct ClientBuffer {
    ClientBuffer()
    {
        buffer = new wlr_buffer{};
        wlr_buffer_init(buffer, &plain_impl, 4, 4);
        on_release.notify = [](wl_listener* l, void*) noexcept {
            auto* self = reinterpret_cast<ClientBuffer*>(reinterpret_cast<char*>(l) - offsetof(ClientBuffer,
                                                                                             on_release));
            ++self->released;
        };
        wl_signal_add(&buffer->events.release, &on_release);
    }
    ~ClientBuffer()
    {
        wl_list_remove(&on_release.link);
        wlr_buffer_drop(buffer);  // the client destroys its wl_buffer
    }
    wlr_buffer* buffer;
    wl_listener on_release{};
    int released = 0;
};

// The commit's wlr_client_buffer with its texture: the texture owns the BufferRelease and releases when it ends.
struct Committed {
    wlr_buffer base;
    std::unique_ptr<BufferRelease> release;
};

const wlr_buffer_impl committed_impl = {
    .destroy =
        [](wlr_buffer* b) noexcept {
            auto* committed = reinterpret_cast<Committed*>(b);
            committed->release->release();
            delete committed;
        },
    .get_dmabuf = nullptr,
    .get_shm = nullptr,
    .begin_data_ptr_access = nullptr,
    .end_data_ptr_access = nullptr,
};

// A commit of `client`: the surface holds the wlr_client_buffer until replace().
struct Commit {
    Commit(ClientBuffer& client, BufferRelease::Counters& counters)
    {
        committed = new Committed{};
        wlr_buffer_init(&committed->base, &committed_impl, 4, 4);
        committed->release = std::make_unique<BufferRelease>(client.buffer, counters);
        wlr_buffer_lock(&committed->base);  // the surface's
        wlr_buffer_drop(&committed->base);
        release = committed->release.get();
    }
    void replace() { wlr_buffer_unlock(&committed->base); }
    Committed* committed;
    BufferRelease* release;
};

const int output_a = 0;
const int output_b = 0;

// A texture that only has a size (the bridge's BridgeTexture in kiln).
const wlr_texture_impl fake_texture_impl = {
    .is_opaque = [](wlr_texture*) noexcept { return true; },
    .write_pixels = nullptr,
    .destroy = [](wlr_texture* t) noexcept { delete t; },
};

wlr_texture* fake_texture()
{
    auto* texture = new wlr_texture{};
    wlr_texture_init(texture, &fake_texture_impl, 4, 4);
    return texture;
}

// A commit whose texture reads `client` in place, as the bridge makes one (client_textures.cpp): the texture keeps
// the client's buffer while it reads it and tells `releases` at its start and its end, which is the wlr_client_buffer's.
struct InPlaceCommit {
    struct Committed {
        wlr_buffer base;
        InPlaceCommit* commit;
    };
    // The wlr_client_buffer's end: its texture ends with it.
    static void end(wlr_buffer* b) noexcept;

    InPlaceCommit(ClientBuffer& client, BufferReleases& releases, wlr_texture* texture = fake_texture())
        : releases(releases), texture(texture), source(wlr_buffer_lock(client.buffer))
    {
        releases.began(texture, client.buffer, false);
        committed = new Committed{{}, this};
        static const wlr_buffer_impl impl = {
            .destroy = end,
            .get_dmabuf = nullptr,
            .get_shm = nullptr,
            .begin_data_ptr_access = nullptr,
            .end_data_ptr_access = nullptr,
        };
        wlr_buffer_init(&committed->base, &impl, 4, 4);
        wlr_buffer_lock(&committed->base);  // the surface's
        wlr_buffer_drop(&committed->base);
    }
    void replace() { wlr_buffer_unlock(&committed->base); }

    BufferReleases& releases;
    wlr_texture* texture;
    wlr_buffer* source;
    Committed* committed = nullptr;
};

void InPlaceCommit::end(wlr_buffer* b) noexcept
{
    auto* committed = reinterpret_cast<Committed*>(b);
    InPlaceCommit& c = *committed->commit;
    c.releases.ended(c.texture);
    wlr_buffer_unlock(c.source);
    wlr_texture_destroy(c.texture);
    delete committed;
}

}  // namespace

TEST_CASE("the release waits for the last of several frames that sampled the buffer")
{
    ClientBuffer client;
    BufferRelease::Counters counters;
    Commit commit(client, counters);
    int signalled = 0;
    commit.release->signal_on_release([&] { ++signalled; });
    commit.release->sampled_by({&output_a, 1}, &commit.committed->base);
    commit.release->sampled_by({&output_a, 2}, &commit.committed->base);
    commit.release->sampled_by({&output_b, 1}, &commit.committed->base);
    commit.replace();  // a later commit replaced it on the surface
    commit.release->render_done({&output_a, 2});
    commit.release->render_done({&output_b, 1});
    REQUIRE(client.released == 0);
    REQUIRE(signalled == 0);
    REQUIRE(commit.release->sampling_frames().size() == 1);
    commit.release->render_done({&output_a, 1});  // the last render-done: the buffer goes back
    REQUIRE(client.released == 1);
    REQUIRE(signalled == 1);
    REQUIRE(counters.after_render == 1);
    REQUIRE(counters.unsampled == 0);
}

TEST_CASE("a buffer still on the surface is kept after its frames are done")
{
    ClientBuffer client;
    BufferRelease::Counters counters;
    Commit commit(client, counters);
    commit.release->sampled_by({&output_a, 7}, &commit.committed->base);
    commit.release->render_done({&output_a, 7});
    REQUIRE(client.released == 0);
    commit.replace();
    REQUIRE(client.released == 1);
}

TEST_CASE("the release happens exactly once")
{
    ClientBuffer client;
    BufferRelease::Counters counters;
    int signalled = 0;
    {
        Commit commit(client, counters);
        commit.release->signal_on_release([&] { ++signalled; });
        commit.release->sampled_by({&output_a, 1}, &commit.committed->base);
        commit.release->sampled_by({&output_a, 1}, &commit.committed->base);  // one frame drawing it twice
        commit.release->render_done({&output_a, 1});
        commit.release->render_done({&output_a, 1});  // a stray second render-done
        REQUIRE(client.released == 0);                 // the surface still shows it
        commit.replace();  // its wlr_client_buffer dies: the texture releases (and the release object goes with it)
        REQUIRE(client.released == 1);
    }
    REQUIRE(client.released == 1);
    REQUIRE(signalled == 1);
    REQUIRE(counters.after_render + counters.unsampled == 1);
}

TEST_CASE("a buffer replaced before any frame drew it is released at once, unsampled")
{
    ClientBuffer client;
    BufferRelease::Counters counters;
    Commit commit(client, counters);
    int signalled = 0;
    commit.release->signal_on_release([&] { ++signalled; });
    commit.replace();
    REQUIRE(client.released == 1);
    REQUIRE(signalled == 1);
    REQUIRE(counters.unsampled == 1);
}

TEST_CASE("a release point given after the release is signalled at once")
{
    ClientBuffer client;
    BufferRelease::Counters counters;
    BufferRelease release(client.buffer, counters);
    release.release();
    int signalled = 0;
    release.signal_on_release([&] { ++signalled; });
    REQUIRE(signalled == 1);
    REQUIRE(client.released == 1);
}

TEST_CASE("a release with frame callbacks waits for the next flush, then goes with it")
{
    wl_event_loop* loop = wl_event_loop_create();
    {
        ReleaseBatch batch(loop, std::chrono::milliseconds(10'000));
        ClientBuffer first;
        ClientBuffer second;
        BufferRelease::Counters counters;
        Commit a(first, counters);
        Commit b(second, counters);
        a.release->release_with_frame(&batch);
        b.release->release_with_frame(&batch);
        a.release->sampled_by({&output_a, 1}, &a.committed->base);
        a.release->render_done({&output_a, 1});
        a.replace();  // a later commit replaced it: released, but the wl_buffer.release waits for the frame
        b.replace();
        REQUIRE(first.released == 0);
        REQUIRE(second.released == 0);
        REQUIRE(counters.after_render == 1);
        REQUIRE(counters.unsampled == 1);
        batch.flush();  // the frame callbacks went out: both buffers go back with them
        REQUIRE(first.released == 1);
        REQUIRE(second.released == 1);
        REQUIRE(batch.counters().with_frame == 2);
        batch.flush();
        REQUIRE(first.released == 1);
    }
    wl_event_loop_destroy(loop);
}

TEST_CASE("a held release goes when the bound passes without frame callbacks")
{
    wl_event_loop* loop = wl_event_loop_create();
    {
        ReleaseBatch batch(loop, std::chrono::milliseconds(20));
        ClientBuffer client;
        BufferRelease::Counters counters;
        Commit commit(client, counters);
        commit.release->release_with_frame(&batch);
        commit.replace();
        REQUIRE(client.released == 0);
        for (int i = 0; i < 50 && client.released == 0; ++i)
            wl_event_loop_dispatch(loop, 100);
        REQUIRE(client.released == 1);
        REQUIRE(batch.counters().by_bound == 1);
        REQUIRE(batch.counters().with_frame == 0);
    }
    wl_event_loop_destroy(loop);
}

TEST_CASE("a release with a release point to signal is not held")
{
    wl_event_loop* loop = wl_event_loop_create();
    {
        ReleaseBatch batch(loop, std::chrono::milliseconds(10'000));
        ClientBuffer client;
        BufferRelease::Counters counters;
        Commit commit(client, counters);
        commit.release->release_with_frame(&batch);
        int signalled = 0;
        commit.release->signal_on_release([&] { ++signalled; });
        commit.replace();
        REQUIRE(signalled == 1);
        REQUIRE(client.released == 1);
    }
    wl_event_loop_destroy(loop);
}

TEST_CASE("buffers still held when the batch ends are released then")
{
    wl_event_loop* loop = wl_event_loop_create();
    ClientBuffer client;
    {
        ReleaseBatch batch(loop, std::chrono::milliseconds(10'000));
        BufferRelease::Counters counters;
        Commit commit(client, counters);
        commit.release->release_with_frame(&batch);
        commit.replace();
        REQUIRE(client.released == 0);
    }
    REQUIRE(client.released == 1);
    wl_event_loop_destroy(loop);
}

TEST_CASE("a buffer two outputs sampled is released once, after both render-done")
{
    ClientBuffer client;
    BufferReleases releases;
    InPlaceCommit commit(client, releases);
    BufferRelease* release = releases.of(commit.texture);
    REQUIRE(release != nullptr);
    int signalled = 0;
    release->signal_on_release([&] { ++signalled; });
    // Each output's frame, as Output::render marks it, then the surface moves on to a later commit.
    release->sampled_by({&output_a, 1}, &commit.committed->base);
    release->sampled_by({&output_b, 1}, &commit.committed->base);
    commit.replace();
    release->render_done({&output_a, 1});
    REQUIRE(client.released == 0);  // output B's frame still reads it
    REQUIRE(signalled == 0);
    release->render_done({&output_b, 1});
    REQUIRE(client.released == 1);
    REQUIRE(signalled == 1);
    REQUIRE(releases.counters().after_render == 1);
    REQUIRE(releases.counters().unsampled == 0);
    REQUIRE(releases.held() == 0);
}

TEST_CASE("a frame on the recording fake finds the release of the buffer it sampled, with no bridge")
{
    wlr_log_init(WLR_ERROR, nullptr);
    wl_display* display = wl_display_create();
    wlr_backend* backend = wlr_headless_backend_create(display);
    wlr_output* output = wlr_headless_add_output(backend, 100, 100);
    wlr_scene* scene = wlr_scene_create();
    ClientBuffer client;
    {
        BufferReleases releases;
        // The scene shows the commit's texture (a buffer node, as a surface's is).
        wlr_buffer* shown = new wlr_buffer{};
        wlr_buffer_init(shown, &plain_impl, 50, 50);
        wlr_scene_buffer* node = wlr_scene_buffer_create(&scene->node, shown);
        wlr_buffer_drop(shown);
        auto* texture = new wlr_texture{};
        wlr_texture_init(texture, &fake_texture_impl, 50, 50);
        node->texture = texture;
        InPlaceCommit commit(client, releases, texture);

        VisibleSet visible;
        visible.build(scene, output, nullptr, 0, 0, Region(0, 0, 100, 100), true);
        kiln::test::RecordingFrame frame;
        compose_frame(visible, {output->transform_matrix, {0, 0, 0, 1}, false}, frame);
        frame.finish();
        node->texture = nullptr;  // the commit's: it ends with the wlr_client_buffer, not with the node

        // What Output::render does after composing: the frame holds the release of each buffer it read in place.
        std::vector<BufferRelease*> sampled;
        for (const auto& call : frame.calls)
            if (call.kind == kiln::test::RecordedCall::Kind::texture)
                if (BufferRelease* release = releases.of(from_handle(call.texture));
                    release && std::find(sampled.begin(), sampled.end(), release) == sampled.end()) {
                    release->sampled_by({&output_a, 1}, &commit.committed->base);
                    sampled.push_back(release);
                }
        REQUIRE(sampled.size() == 1);
        REQUIRE(sampled.front() == releases.of(texture));
        commit.replace();
        REQUIRE(client.released == 0);  // the frame's render-done has not come
        sampled.front()->render_done({&output_a, 1});
        REQUIRE(client.released == 1);
        REQUIRE(releases.counters().after_render == 1);
    }
    wlr_scene_node_destroy(&scene->node);
    wlr_backend_destroy(backend);
    wl_display_destroy(display);
}
