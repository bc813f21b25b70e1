#!/usr/bin/env python3
"""pacing_judge on synthetic frames.pacing logs (no VM needed): frames drawn ahead after stalls are explained, frames
drawn ahead with nothing slow behind them are not, however many stalls the run had elsewhere."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pacing_judge import parse, slow_frames, unexplained_ahead  # noqa: E402


def log(entries):
    return " ".join(f"{f:.1f},{c:.1f},{int(a)}" for f, c, a in entries)


def after_stalls(ahead_for):
    """A 4 ms-a-frame run with a 150 ms stall every 60 frames; the `ahead_for` frames after each stall drew ahead."""
    entries = []
    for i in range(600):
        since = i % 60
        fenced = 150.0 if since == 0 else 4.0
        entries.append((fenced, fenced + 0.5, since < ahead_for))
    return entries


def main():
    failures = []

    def check(ok, what):
        print(("ok: " if ok else "FAIL: ") + what)
        if not ok:
            failures.append(what)

    stalls = after_stalls(ahead_for=30)  # a 150 ms stall decays below 8.3 ms after ~34 frames of 4 ms
    check(parse(log(stalls)) == [(f, round(c, 1), a) for f, c, a in stalls], "the stats string parses back")
    check(unexplained_ahead(parse(log(stalls))) == [], "drawn ahead only while a stall decays: all explained")
    check(slow_frames(parse(log(stalls))) == 10, "ten stalls counted")
    # kiln drawing ahead on every frame: the frames long after each stall have nothing behind them.
    always = after_stalls(ahead_for=60)
    bad = unexplained_ahead(parse(log(always)))
    check(len(bad) > 100, f"drawn ahead on every frame: {len(bad)} frames unexplained")
    # Drawn ahead past the decay: frame 50 after a stall.
    late = after_stalls(ahead_for=0)
    late[50] = (4.0, 4.5, True)
    check(unexplained_ahead(parse(log(late))) == [50], "one frame drawn ahead after the estimate decayed is named")
    # A frame slow only to its commit (a read-back, a commit handler) explains drawing ahead too.
    by_commit = [(4.0, 4.5, False)] * 5 + [(4.0, 20.0, False), (4.0, 4.5, True)]
    check(unexplained_ahead(parse(log(by_commit))) == [], "a slow commit explains the next frame drawn ahead")
    check(unexplained_ahead(parse(""))  == [], "an empty log judges nothing")
    if failures:
        sys.exit(1)
    print("PASS")


main()
