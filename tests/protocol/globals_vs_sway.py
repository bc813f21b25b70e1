#!/usr/bin/env python3
"""kiln offers every global of the reference list kept in the tree (reference_globals.txt: headless sway 1.7 as
measured, and issue 21's 2024-26 set), bar the entries marked pending (printed) or deliberately omitted (with why;
one that kiln offers after all fails, so the list cannot go stale). wayland-info, a client neither wrote, lists what
kiln offers. Where sway is installed it runs headless again, as the benchmarks run it (pixman renderer, as nobody
when we are root), and the sway-1.7 entries must still be exactly what it lists."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402

REFERENCE = Path(__file__).resolve().parent / "reference_globals.txt"
STATUSES = ("pending", "deliberately-omitted")


class Entry:
    def __init__(self, interface, sources, status, reason):
        self.interface, self.sources, self.status, self.reason = interface, sources, status, reason


def read_reference(path):
    """The file's entries by interface; a malformed line fails the test with its number."""
    entries = {}
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields, _, marker = line.partition("|")
        words = fields.split()
        if len(words) < 2:
            check(False, f"{path.name}:{number}: a line names an interface and where it comes from")
        status, reason = "", ""
        if marker.strip():
            status, _, reason = marker.strip().partition(":")
            status, reason = status.strip(), reason.strip()
            if status not in STATUSES or not reason:
                check(False, f"{path.name}:{number}: the marker is 'pending: REASON' or "
                      f"'deliberately-omitted: REASON' (got '{marker.strip()}')")
        if words[0] in entries:
            check(False, f"{path.name}:{number}: {words[0]} is listed twice")
        entries[words[0]] = Entry(words[0], set(words[1:]), status, reason)
    return entries


def interfaces(wayland_info_text):
    return {line.split("'")[1] for line in wayland_info_text.splitlines() if line.startswith("interface: '")}


def measure_sway():
    """The globals headless sway 1.7 lists, or None (with why, printed) where it cannot run here."""
    try:
        from lib.compositors import Running, specs
    except ImportError as error:
        print(f"sway part skipped: the benchmarks' compositor runner is missing ({error})")
        return None
    sway_spec = specs("/nonexistent", size="1280x720")["sway"]
    if not sway_spec.installed():
        print("sway part skipped: sway is not installed; the sway-1.7 entries were not re-measured")
        return None
    with Running(sway_spec) as sway:
        if not sway.start():
            check(False, f"sway 1.7 starts headless ({sway.error}):\n{sway.log_tail()}")
        listed = interfaces(sway.globals)
    check(len(listed) >= 30, f"sway lists its globals ({len(listed)})")
    return listed


def main():
    need("wayland-info")
    entries = read_reference(REFERENCE)
    check(len(entries) >= 50, f"{REFERENCE.name} holds the reference ({len(entries)} entries)")

    sway_globals = measure_sway()
    if sway_globals is not None:
        listed_as_sway = {name for name, e in entries.items() if "sway-1.7" in e.sources}
        check(sway_globals == listed_as_sway,
              f"the sway-1.7 entries are what sway 1.7 lists: missing from the file "
              f"{sorted(sway_globals - listed_as_sway)}, not listed by sway {sorted(listed_as_sway - sway_globals)}")

    with Kiln() as kiln:
        result = kiln.run(["wayland-info"])
        check(result.returncode == 0, f"wayland-info on kiln exits 0 (got {result.returncode})")
        kiln_globals = interfaces(result.stdout)

    required = {name for name, e in entries.items() if not e.status}
    missing = sorted(required - kiln_globals)
    check(not missing, f"kiln offers every reference global not marked pending or omitted; missing: {missing}")
    omitted = {name for name, e in entries.items() if e.status == "deliberately-omitted"}
    stale = sorted(omitted & kiln_globals)
    check(not stale, f"no global marked deliberately-omitted is offered after all: {stale}")

    pending = {name: e for name, e in entries.items() if e.status == "pending"}
    for name in sorted(pending):
        state = "offered now: drop its pending marker" if name in kiln_globals else "not offered yet"
        print(f"pending: {name} ({pending[name].reason}): {state}")
    print(f"reference: {len(entries)} globals ({len(required)} required, {len(pending)} pending, {len(omitted)} "
          f"omitted); kiln: {len(kiln_globals)}; only kiln: {sorted(kiln_globals - entries.keys())}")


run_test(main)
