// TestInput: the kiln_test_input_v1 global, through which tests drive the headless touch device and the pen of the
// headless tablet (neither has a standard protocol for injecting it), touchpad gestures, and unplug headless outputs. Offered only with --test-input on the
// headless backend.
#pragma once

#include "compositor/wlr.hpp"

namespace kiln::compositor {

class Seat;

class TestInput {
public:
    TestInput(wl_display* display, Seat& seat, wlr_output_layout* layout);
    ~TestInput();
    TestInput(const TestInput&) = delete;
    TestInput& operator=(const TestInput&) = delete;

    Seat& seat() { return seat_; }
    wlr_output_layout* layout() const { return layout_; }
    // The headless tablet's one tool, which a real tablet's driver would own.
    wlr_tablet_tool* pen() { return &pen_; }

private:
    Seat& seat_;
    wlr_output_layout* layout_;
    wlr_tablet_tool pen_{};
    wl_global* global_;
};

}  // namespace kiln::compositor
