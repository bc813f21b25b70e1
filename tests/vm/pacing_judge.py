"""Judges kiln's drawn-ahead frames against the frame times kiln itself measured (its stats' frames.pacing: one
"fenced_ms,to_commit_ms,drew_ahead" entry per committed frame, in order).

kiln draws the next frame ahead when its frame-time estimate is over half a refresh. The estimate is a decaying
maximum of what frames took (output_commit.cpp): a frame's render-done time raises it at once and otherwise pulls it
10 % of the way down, and a frame's time to its commit raises it. So a drawn-ahead frame is explained only by a slow
frame measured shortly before it; on a busy host (a TCG guest stalls often) there are many, on an idle one few, and a
fixed share of drawn-ahead frames cannot tell the two apart. Drawing ahead with no such frame behind it is the bug
this catches: it adds a frame of latency for nothing."""

DECAY = 0.9  # the estimate keeps 90 % of itself per fenced frame
SLACK = 3  # entries: the estimate is updated at render-done and at commit, which need not be the same frame's


def parse(pacing):
    """[(fenced_ms, to_commit_ms, drew_ahead)] from the stats string."""
    entries = []
    for token in pacing.split():
        fenced, to_commit, ahead = token.split(",")
        entries.append((float(fenced), float(to_commit), ahead == "1"))
    return entries


def unexplained_ahead(entries, refresh_hz=60.0):
    """Indexes of the entries that drew ahead although no frame measured in the SLACK entries before had brought the
    estimate (rebuilt from the measurements alone) over half a refresh."""
    half_ms = 500.0 / refresh_hz
    estimate = 0.0
    over = []  # per entry: the rebuilt estimate was over half a refresh after it
    unexplained = []
    for index, (fenced_ms, to_commit_ms, ahead) in enumerate(entries):
        if fenced_ms > 0:
            estimate = max(fenced_ms, estimate * DECAY + fenced_ms * (1 - DECAY))
        estimate = max(to_commit_ms, estimate)
        over.append(estimate > half_ms)
        if ahead and not any(over[max(0, index - SLACK):index + 1]):
            unexplained.append(index)
    return unexplained


def slow_frames(entries, refresh_hz=60.0):
    """How many frames themselves took over half a refresh (the host's stalls, as kiln measured them)."""
    half_ms = 500.0 / refresh_hz
    return sum(1 for fenced_ms, to_commit_ms, _ in entries if max(fenced_ms, to_commit_ms) > half_ms)
