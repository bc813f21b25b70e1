// Teardown: one step of shutting down (freeing a wlroots object, destroying the clients) run when this member is
// destroyed, so the step happens where the member is declared: C++ destroys members in reverse declaration order.
#pragma once

#include <functional>
#include <utility>

namespace kiln::compositor {

class Teardown {
public:
    explicit Teardown(std::function<void()> step) : step_(std::move(step)) {}
    ~Teardown()
    {
        if (step_)
            step_();
    }
    Teardown(const Teardown&) = delete;
    Teardown& operator=(const Teardown&) = delete;

private:
    std::function<void()> step_;
};

}  // namespace kiln::compositor
