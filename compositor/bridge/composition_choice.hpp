// CompositionChoice: whether frames may be composed on the CPU (renderer::CpuCompositor) instead of GL, and which
// path the last frame took, which decides whether shm commits are read in place or copied.
#pragma once

namespace kiln::compositor {

class CompositionChoice {
public:
    // Asked for (`allowed`) and GL itself runs on the CPU (`software`): frames may then be composed on the CPU.
    bool choose(bool allowed, bool software)
    {
        cpu_ = allowed && software;
        return cpu_;
    }
    bool cpu() const { return cpu_; }
    // Which path an output's last frame took. While frames are composed on the CPU, shm commits are read where they
    // lie (no copy); while GL draws them, they are copied as before, so GL uploads only their damage.
    void frame_composed(bool on_cpu) { shm_in_place_ = on_cpu; }
    bool shm_in_place() const { return cpu_ && shm_in_place_; }

private:
    bool cpu_ = false;
    bool shm_in_place_ = true;
};

}  // namespace kiln::compositor
