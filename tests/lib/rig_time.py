"""How long a test may wait on this rig: one scale for every harness wait."""
import os


def time_scale():
    """How much longer than on a native machine this rig's waits may last: KILN_TEST_TIME_SCALE (default 1). The VM
    rig sets it under TCG, where a guest on a busy host runs many times slower: waits are limits for a hang, not
    judgements of speed, so they stretch with the rig rather than fail on a slow one."""
    try:
        return max(1.0, float(os.environ.get("KILN_TEST_TIME_SCALE", "1")))
    except ValueError:
        return 1.0
