#!/usr/bin/env python3
"""A signal in kiln's first milliseconds: SIGTERM and SIGHUP killed kiln by their default action before its handlers
were in, and SIGINT was lost where kiln inherited it ignored (a shell's background job). kiln blocks them before any
library's constructor runs (the executable's preinit_array, and again first thing in main), so each is acted on once
the event loop runs: SIGTERM and SIGINT end kiln with status 0, SIGHUP (a reload) leaves it running until SIGTERM.

Two ways in: a preloaded library sends the signal from its constructor, before main (a fixed moment, red before
the fix); and the test sends it from outside as soon as kiln's mask is in, then 0 to 10.5 ms later, many times.
What stays unguarded is the dynamic loader's own mapping and relocation before that (milliseconds; no process can
block a signal before its first instruction runs), which the outside sends therefore wait out."""
import os
import signal
import subprocess
import time
from pathlib import Path

from oneshot import scratch
from kiln_harness import check, kiln_binary, private_env, run_test, skip

PROBE = os.environ.get("KILN_EARLY_SIGNAL_PROBE", "")
TRIES = 12
SOCKET = "kiln-env-signal"
CASES = ((signal.SIGTERM, False), (signal.SIGINT, False), (signal.SIGINT, True), (signal.SIGHUP, False))


def spawn(tmp, ignore_sigint=False, env=None):
    argv = [kiln_binary(), "--backend", "headless", "--socket", SOCKET, "--headless-size", "320x240"]
    # preexec_fn runs in the child before exec: SIGINT ignored, as a non-interactive shell starts `kiln &`.
    preexec = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if ignore_sigint else None
    return subprocess.Popen(argv, env=private_env(tmp, **(env or {})), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, preexec_fn=preexec)


def name_of(sig, ignore_sigint):
    return signal.Signals(sig).name + (" (inherited ignored)" if ignore_sigint else "")


def ends_cleanly(tmp, proc, sig, what):
    """SIGTERM/SIGINT: kiln ends with 0. SIGHUP: kiln runs on (its socket comes up), then SIGTERM ends it with 0."""
    if sig == signal.SIGHUP:
        socket = Path(tmp) / SOCKET
        deadline = time.monotonic() + 30
        while not socket.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        check(proc.poll() is None, f"{what}: kiln runs on after the SIGHUP (got status {proc.returncode})")
        proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        check(False, f"{what}: kiln did not end within 30 s: the signal was lost ({err[-300:]!r})")
    check(proc.returncode == 0, f"{what}: kiln exits 0, not killed (status {proc.returncode}; {err[-300:]!r})")


def wait_for_mask(proc):
    """Spins until kiln's main thread blocks SIGTERM (/proc/PID/status SigBlk), or it is gone."""
    status = Path(f"/proc/{proc.pid}/status")
    while proc.poll() is None:
        try:
            blocked = next(line for line in status.read_text().splitlines() if line.startswith("SigBlk:"))
        except (OSError, StopIteration):
            continue
        if int(blocked.split()[1], 16) & (1 << (signal.SIGTERM - 1)):
            return


def spin(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def main():
    if not PROBE or not Path(PROBE).exists():
        skip("no early-signal probe library (KILN_EARLY_SIGNAL_PROBE)")
    with scratch() as tmp:
        for sig, ignore_sigint in CASES:
            what = f"{name_of(sig, ignore_sigint)} from a library constructor, before main"
            for _ in range(3):
                proc = spawn(tmp, ignore_sigint, {"LD_PRELOAD": PROBE,
                                                  "KILN_EARLY_SIGNAL": signal.Signals(sig).name[3:]})
                ends_cleanly(tmp, proc, sig, what)
            print(f"ok: {what}: 3 starts, each ended cleanly")
        for sig, ignore_sigint in CASES:
            for n in range(TRIES):
                delay = (n % 8) * 0.0015
                what = f"{name_of(sig, ignore_sigint)} {delay * 1000:.1f} ms after kiln's mask is in"
                proc = spawn(tmp, ignore_sigint)
                wait_for_mask(proc)
                spin(delay)
                proc.send_signal(sig)
                ends_cleanly(tmp, proc, sig, what)
            print(f"ok: {name_of(sig, ignore_sigint)} from outside: {TRIES} starts, each ended cleanly")


run_test(main)
