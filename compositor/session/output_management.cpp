// OutputManagement: the outputs' state as wlr-output-management heads, and configurations checked, tested and
// committed together, put back as they were when any output refuses.
#include "compositor/session/output_management.hpp"

#include "compositor/log.hpp"

#include <cstdio>
#include <string>
#include <vector>

namespace kiln::compositor {

struct OutputManagement::Tracked {
    wlr_output* output = nullptr;
    wl::Listener commit;
    wl::Listener destroy;
};

namespace {

// What an output is now, to put it back when a configuration fails half-way.
struct Saved {
    wlr_output* output;
    bool enabled;
    wlr_output_mode* mode;
    int32_t width;
    int32_t height;
    int32_t refresh;
    float scale;
    wl_output_transform transform;
};

Saved save(wlr_output* output)
{
    return {output,        output->enabled, output->current_mode, output->width,
            output->height, output->refresh, output->scale,        output->transform};
}

void stage(wlr_output* output, const wlr_output_head_v1_state& state)
{
    wlr_output_enable(output, state.enabled);
    if (!state.enabled)
        return;
    if (state.mode)
        wlr_output_set_mode(output, state.mode);
    else
        wlr_output_set_custom_mode(output, state.custom_mode.width, state.custom_mode.height,
                                   state.custom_mode.refresh);
    wlr_output_set_scale(output, state.scale);
    wlr_output_set_transform(output, state.transform);
}

void restore(const Saved& saved)
{
    wlr_output_enable(saved.output, saved.enabled);
    if (saved.enabled) {
        if (saved.mode)
            wlr_output_set_mode(saved.output, saved.mode);
        else
            wlr_output_set_custom_mode(saved.output, saved.width, saved.height, saved.refresh);
        wlr_output_set_scale(saved.output, saved.scale);
        wlr_output_set_transform(saved.output, saved.transform);
    }
    if (!wlr_output_commit(saved.output))
        log::error("cannot put output %s back as it was", saved.output->name);
}

// kiln's own limits, before any backend is asked: a size it can render and a scale that leaves pixels to show.
bool acceptable(const wlr_output_head_v1_state& state, std::string& why)
{
    if (!state.enabled)
        return true;
    const int32_t width = state.mode ? state.mode->width : state.custom_mode.width;
    const int32_t height = state.mode ? state.mode->height : state.custom_mode.height;
    if (width <= 0 || height <= 0 || width > max_output_side || height > max_output_side) {
        why = "mode " + std::to_string(width) + "x" + std::to_string(height) + " is outside 1.." +
              std::to_string(max_output_side);
        return false;
    }
    if (!(state.scale >= 0.1f && state.scale <= 10.0f)) {
        why = "scale " + std::to_string(state.scale) + " is outside 0.1..10";
        return false;
    }
    return true;
}

}  // namespace

OutputManagement::OutputManagement(wl_display* display, wlr_output_layout* layout, ShowOutput show_output,
                                   wlr_backend* backend)
    : layout_(layout), show_output_(std::move(show_output)), manager_(wlr_output_manager_v1_create(display))
{
    // Server's own new_output listener came first: the output is set up (or left off) before it is tracked here.
    new_output_.connect(&backend->events.new_output, [this](void* data) {
        auto* output = static_cast<wlr_output*>(data);
        if (output->non_desktop)
            return;  // a headset, or a connector kept for lease: no desktop head to configure
        track(output);
        publish();
    });
    layout_change_.connect(&layout->events.change, [this](void*) { publish(); });
    apply_.connect(&manager_->events.apply, [this](void* data) {
        auto* config = static_cast<wlr_output_configuration_v1*>(data);
        if (configure(config, false))
            wlr_output_configuration_v1_send_succeeded(config);
        else
            wlr_output_configuration_v1_send_failed(config);
        wlr_output_configuration_v1_destroy(config);
        publish();
    });
    test_.connect(&manager_->events.test, [this](void* data) {
        auto* config = static_cast<wlr_output_configuration_v1*>(data);
        if (configure(config, true))
            wlr_output_configuration_v1_send_succeeded(config);
        else
            wlr_output_configuration_v1_send_failed(config);
        wlr_output_configuration_v1_destroy(config);
    });
}

OutputManagement::~OutputManagement()
{
    outputs_.clear();
}

void OutputManagement::track(wlr_output* output)
{
    auto tracked = std::make_unique<Tracked>();
    Tracked* raw = tracked.get();
    raw->output = output;
    raw->commit.connect(&output->events.commit, [this](void* data) {
        // Every frame is a commit; only a change of what heads describe is news.
        const auto* event = static_cast<wlr_output_event_commit*>(data);
        const uint32_t described = WLR_OUTPUT_STATE_ENABLED | WLR_OUTPUT_STATE_MODE | WLR_OUTPUT_STATE_SCALE |
                                   WLR_OUTPUT_STATE_TRANSFORM;
        if (event->committed & described)
            publish();
    });
    raw->destroy.connect(&output->events.destroy, [this, raw](void*) {
        // wlroots drops the output's head itself; the next publish() lists the outputs left.
        outputs_.remove_if([raw](const auto& t) { return t.get() == raw; });
    });
    outputs_.push_back(std::move(tracked));
}

void OutputManagement::publish()
{
    wlr_output_configuration_v1* config = wlr_output_configuration_v1_create();
    if (!config)
        return;
    for (const auto& tracked : outputs_) {
        wlr_output_configuration_head_v1* head = wlr_output_configuration_head_v1_create(config, tracked->output);
        if (!head)
            continue;
        // Enabled as clients see it: on and in the layout (an output turned off by output-power is still on here,
        // as it keeps its place).
        const wlr_box* box = wlr_output_layout_get_box(layout_, tracked->output);
        head->state.enabled = box != nullptr;
        if (box) {
            head->state.x = box->x;
            head->state.y = box->y;
        }
    }
    wlr_output_manager_v1_set_configuration(manager_, config);  // takes the configuration
}

bool OutputManagement::configure(wlr_output_configuration_v1* config, bool test_only)
{
    std::vector<wlr_output_configuration_head_v1*> heads;
    wlr_output_configuration_head_v1* head = nullptr;
    wl_list_for_each(head, &config->heads, link)
    {
        std::string why;
        if (!acceptable(head->state, why)) {
            log::error("output configuration refused: %s: %s", head->state.output->name,
                       why.c_str());
            return false;
        }
        heads.push_back(head);
    }
    // Every output staged and tested before any is committed.
    for (size_t i = 0; i < heads.size(); ++i) {
        wlr_output* output = heads[i]->state.output;
        stage(output, heads[i]->state);
        if (!wlr_output_test(output)) {
            log::error("output configuration refused: %s cannot take it", output->name);
            for (size_t j = 0; j <= i; ++j)
                wlr_output_rollback(heads[j]->state.output);
            return false;
        }
    }
    if (test_only) {
        for (wlr_output_configuration_head_v1* h : heads)
            wlr_output_rollback(h->state.output);
        return true;
    }
    std::vector<Saved> saved;
    for (size_t i = 0; i < heads.size(); ++i) {
        wlr_output* output = heads[i]->state.output;
        Saved before = save(output);
        if (!wlr_output_commit(output)) {
            log::error("output configuration failed: %s refused the commit", output->name);
            for (size_t j = i + 1; j < heads.size(); ++j)
                wlr_output_rollback(heads[j]->state.output);
            for (const Saved& s : saved)
                restore(s);
            return false;
        }
        saved.push_back(before);
    }
    for (wlr_output_configuration_head_v1* h : heads) {
        if (h->state.enabled)
            show_output_(h->state.output, OutputPosition{h->state.x, h->state.y});
        else
            wlr_output_layout_remove(layout_, h->state.output);
    }
    return true;
}

}  // namespace kiln::compositor
