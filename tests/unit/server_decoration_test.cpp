// kiln's decoration outliving its scene tree (the window's tree takes the decoration's with it when the client's
// surface goes, before the View and its ServerDecoration go): nothing it does afterwards touches the freed tree.
#include "compositor/shell/server_decoration.hpp"

#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <memory>

namespace {

// The freed decoration tree's bytes, once it is gone, and how many list removals would have written into them.
uintptr_t freed_begin = 0;
uintptr_t freed_end = 0;
int writes_into_freed = 0;

bool freed(const void* address)
{
    const auto a = reinterpret_cast<uintptr_t>(address);
    return a >= freed_begin && a < freed_end;
}

}  // namespace

// This executable's wl_list_remove stands in for libwayland's (the code under test and wlroots call this one): it
// counts a removal whose neighbour lies in the freed tree, and leaves that memory alone.
extern "C" void wl_list_remove(wl_list* elm)
{
    if (freed(elm->prev) || freed(elm->next)) {
        ++writes_into_freed;
        elm->prev = elm->next = nullptr;
        return;
    }
    elm->prev->next = elm->next;
    elm->next->prev = elm->prev;
    elm->next = nullptr;
    elm->prev = nullptr;
}

TEST_CASE("a decoration whose tree went with the window's does not touch the freed tree as it goes")
{
    wlr_scene* scene = wlr_scene_create();
    wlr_output_layout* layout = wlr_output_layout_create();
    wlr_scene_tree* window = wlr_scene_tree_create(&scene->node);
    auto decoration = std::make_unique<kiln::compositor::ServerDecoration>(&window->node, layout);

    // The decoration's tree is the window tree's one child.
    REQUIRE(!wl_list_empty(&window->node.state.children));
    wlr_scene_node* tree = wl_container_of(window->node.state.children.next, tree, state.link);
    wlr_scene_node_destroy(&window->node);  // the client's surface went: its tree, the decoration's within it
    freed_begin = reinterpret_cast<uintptr_t>(tree);
    freed_end = freed_begin + sizeof(wlr_scene_tree);

    decoration.reset();  // then the View, and its decoration
    freed_begin = freed_end = 0;
    CHECK(writes_into_freed == 0);

    wlr_scene_node_destroy(&scene->node);
    wlr_output_layout_destroy(layout);
}
