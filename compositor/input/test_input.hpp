// TestInput: the kiln_test_input_v1 global, through which tests drive the headless touch device (touch has no
// standard protocol for injecting it). Offered only with --test-input on the headless backend.
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

private:
    Seat& seat_;
    wlr_output_layout* layout_;
    wl_global* global_;
};

}  // namespace kiln::compositor
