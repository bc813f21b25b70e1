// Outputs: kiln's list of outputs: each new wlr_output set up from kiln.ini (mode, scale, transform, position, on or
// off), put in the layout and given kiln's frame pipeline; kiln.ini's output settings taken again on reload.
#pragma once

#include "compositor/core.hpp"
#include "compositor/output/output_hooks.hpp"
#include "compositor/region.hpp"
#include "compositor/wlr.hpp"

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <optional>

namespace kiln::compositor {

class BufferReleases;
class CommitFeedback;
class FenceEvents;
class Output;
class RenderBridge;

class Outputs {
public:
    // What every output's frame pipeline is made with. `hooks` are each Output's, but `destroyed`, which is this list's.
    struct Pipeline {
        RenderBridge& bridge;
        FenceEvents& fences;
        BufferReleases& releases;
        wlr_allocator* allocator;
        wlr_renderer* renderer;
        CommitFeedback* presentation;
        OutputHooks hooks;
        // Offers an output for lease (a headset, or lease=true in kiln.ini); true when it is offered, never drawn.
        std::function<bool(wlr_output*)> offer_lease;
        // Called first for each new output, before its frame pipeline: the first of kiln's listeners to its destroy.
        std::function<void(wlr_output*)> before_setup;
    };

    Outputs(const Core& core, Pipeline pipeline);
    ~Outputs();
    Outputs(const Outputs&) = delete;
    Outputs& operator=(const Outputs&) = delete;

    // A new output from the backend: offered for lease if it is a headset or kiln.ini keeps it for lease; otherwise
    // kiln.ini's settings applied, then shown unless it says enabled=false.
    void add(wlr_output* output);
    // Puts an enabled output in the layout at `position` (unset: right of the others), and gives it kiln's frame
    // pipeline if it has none yet (an output kiln.ini left off, turned on by output management).
    void show(wlr_output* output, std::optional<OutputPosition> position);
    // Takes kiln.ini's output settings again (mode, scale, transform, position); clients stay connected.
    void reload();
    // The first output's primary formats for dma-bufs (linux-dmabuf's default feedback), or nullptr without outputs.
    const wlr_drm_format_set* primary_formats() const;
    // The most slots any output's frame ring holds.
    uint64_t ring_slots() const;
    // Adds to `out` what `output`'s committed frames do not show of the scene yet (Output::add_unshown_damage).
    void add_unshown_damage(const wlr_output* output, Region& out) const;
    // Vblank ticks the outputs' virtual vblank skipped, all outputs together.
    uint64_t ticks_skipped() const;
    // Drops every Output (after the backend went, which destroyed their wlr_outputs).
    void clear();

private:
    void remove(Output* output);

    const Core& core_;
    Pipeline pipeline_;
    std::list<std::unique_ptr<Output>> outputs_;
};

}  // namespace kiln::compositor
