#!/usr/bin/env python3
"""Hostile clients against kiln: after each one kiln is alive, the offender got the protocol's error (or was cut
off, or carried on where the protocol allows what it did), and a well-behaved client kept drawing.

Usage: hostile.py GROUP, one of popups, shm, objects, floods, churn, privileged, limits (one meson test each).
"""
import os
import re
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from frame_stamp import FrameStamp, wait_frames  # noqa: E402
from kiln_harness import Kiln, check, client_binary, rgb, run_test  # noqa: E402

CLIENT = os.environ.get("KILN_HOSTILE_CLIENT") or str(Path(__file__).resolve().parents[2] / "build" / "tests" /
                                                      "hostile" / "kiln-hostile-client")
# The hostile client dies on purpose in the middle of the protocol, its proxies never freed: under ASan its own leak
# report is no finding about kiln (kiln's leaks are still checked, at kiln's exit).
CLIENT_ENV = {"ASAN_OPTIONS": os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0"}
BYSTANDER = "22aa44"

# Outcomes a case may end with: "connected" (the protocol allows it), "protocol-error IFACE CODE", or
# "disconnected" (any errno).
CONNECTED = "connected"
DISCONNECTED = "disconnected"

GROUPS = {
    "popups": {
        # A null parent must be named by another protocol (layer-shell's get_popup) before the first commit; these
        # never name one, so wlroots answers xdg_surface.not_constructed (kiln crashed on it before: SIGSEGV).
        "popup-null-parent": "protocol-error xdg_surface 1",
        "popup-nested-null-parent": "protocol-error xdg_surface 1",
        # A parent must be an xdg_toplevel or xdg_popup: xdg_wm_base.invalid_popup_parent (kiln aborted before).
        "popup-roleless-parent": "protocol-error xdg_wm_base 3",
        # The parent's xdg_toplevel is gone (kiln hung in a freed scene tree before).
        "popup-parent-role-destroyed": "protocol-error xdg_wm_base 3",
        # wlroots closes the popups of a destroyed parent; committing the closed popup's buffer is unconfigured_buffer.
        "popup-parent-destroyed": "protocol-error xdg_surface 3",
        # wl_surface.defunct_role_object on a surface the client already destroyed, so it names no interface.
        "popup-surface-destroyed": "protocol-error ? 4",
        # A window its own parent is xdg_toplevel.invalid_parent (kiln's check: wlroots 0.15 has none); a parent
        # that vanished is the client's own business.
        "set-parent-self": "protocol-error xdg_toplevel 1",
        "set-parent-destroyed": CONNECTED,
    },
    "shm": {
        # wl_shm.error.invalid_stride: a row of 256 ARGB pixels does not fit a stride of 256 bytes (kiln uploaded
        # from beyond the pool before).
        "shm-short-stride": "protocol-error wl_shm_pool 1",
        "shm-pool-size-zero": "protocol-error wl_shm 1",
        "shm-negative-offset": "protocol-error wl_shm_pool 1",
        # libwayland catches the SIGBUS of the shrunk pool and answers wl_shm.error.invalid_fd on the buffer.
        "shm-sigbus": "protocol-error wl_buffer 2",
        "huge-surface": CONNECTED,
    },
    "objects": {
        # A wl_region passed as a wl_buffer: libwayland refuses the arguments and drops the client.
        "attach-foreign-object": DISCONNECTED,
        # xdg_surface.invalid_size (wlroots 0.15 posted code -1; kiln's own xdg-shell posts the protocol's code).
        "geometry-negative": "protocol-error xdg_surface 5",
        "scale-huge": CONNECTED,
        "viewport-huge-destination": CONNECTED,
        # wp_viewport.out_of_buffer at the commit (kiln's own wp_viewporter: wlroots 0.15 did not check it).
        "viewport-source-outside": "protocol-error wp_viewport 2",
        "scale-zero": "protocol-error wl_surface 0",  # invalid_scale
        "transform-invalid": "protocol-error wl_surface 1",  # invalid_transform
        # xdg_wm_base.role, on the xdg_wm_base, as the protocol says (kiln checks it before wlroots 0.15, which posted
        # the code on the new xdg_surface).
        "subsurface-then-xdg": "protocol-error xdg_wm_base 0",
        "subsurface-cycle": "protocol-error wl_subcompositor 0",  # bad_surface: a parent may not be a descendant
        "two-roles": "protocol-error xdg_surface 2",  # already_constructed
        "buffer-destroyed-while-shown": CONNECTED,
        # xdg_surface.defunct_role_object (wlroots 0.15 ignored the early destroy; kiln's own xdg-shell raises the
        # protocol's error; the client no longer knows the object, hence '?').
        "xdg-surface-destroyed-first": "protocol-error ? 6",
        # wl_surface.defunct_role_object (kiln crashed before: wlroots' inert xdg_toplevel.set_title).
        "surface-destroyed-first": "protocol-error ? 4",
        "roleless-surface-destroyed": CONNECTED,
        "selection-null": CONNECTED,
        # The null cursor is fine; the toplevel's surface as cursor is wl_pointer.error.role, which wlroots 0.15
        # posts on the wl_surface (code 0). (Before headless had a pointer this was wl_seat.missing_capability.)
        "cursor-null-surface": "protocol-error wl_surface 0",
    },
    "floods": {
        "commit-flood": CONNECTED,
        "never-read": DISCONNECTED,
        "many-surfaces": CONNECTED,
    },
}

# Lines a case must also print on the way: proof that it got as far as it should have.
MUST_PRINT = {"many-surfaces": "drawn"}


def bystander_drawing(kiln, stamp, what):
    """The well-behaved client is connected, on screen, and new frames of it reach the screen: the frame number it
    stamps into its window advances (two screenshots that merely differ could alias with its animation)."""
    first = kiln.screenshot()
    check(first.count(rgb(BYSTANDER), step=4) > 200, f"{what}: the bystander is on screen")
    frames = wait_frames(kiln.screenshot, stamp, frames=3, timeout=10, what=f"{what}: the bystander")
    check(True, f"{what}: the bystander kept drawing ({frames} frames on)")


def run_case(kiln, name, expected, timeout=60):
    started = time.monotonic()
    result = kiln.run([CLIENT, name], timeout=timeout, env=CLIENT_ENV)
    lines = result.stdout.strip().splitlines()
    outcome = lines[-1] if lines else ""
    print(f"{name}: {outcome} ({time.monotonic() - started:.1f} s)")
    for line in lines[:-1]:
        print(f"  {line}")
    check(kiln.alive(), f"{name}: kiln is alive")
    check(result.returncode == 0, f"{name}: the client ran its case (exit {result.returncode}: {result.stdout!r})")
    if name in MUST_PRINT:
        check(MUST_PRINT[name] in lines, f"{name}: the client printed '{MUST_PRINT[name]}'")
    if expected == DISCONNECTED:
        check(outcome.startswith("disconnected") or outcome.startswith("protocol-error"),
              f"{name}: the client was cut off ({outcome})")
    else:
        check(outcome == expected, f"{name}: outcome is '{expected}' (got '{outcome}')")
    return lines


def wait_listening(kiln, timeout=10):
    """Until kiln's socket accepts connections: libwayland creates the name (bind) before it listens, so a client
    started as soon as the name exists may be refused."""
    path = str(Path(kiln.runtime) / kiln.socket)
    deadline = time.monotonic() + timeout
    while True:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            try:
                probe.connect(path)
                return
            except ConnectionRefusedError:
                if time.monotonic() > deadline:
                    raise AssertionError(f"kiln's socket {path} refused connections for {timeout} s")
                time.sleep(0.02)


def with_bystander(kiln):
    wait_listening(kiln)
    bystander = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "160x120", "--color", BYSTANDER, "--stamp"])
    try:
        shot = kiln.wait_for(lambda: (s := kiln.screenshot()).count(rgb(BYSTANDER), step=4) > 200 and s,
                             "the bystander on screen")
    except AssertionError:
        if bystander.poll() is not None:
            print(f"bystander exited {bystander.returncode}: {bystander.stdout.read().decode(errors='replace')}")
        raise
    return bystander, FrameStamp(shot, rgb(BYSTANDER))


def group_cases(group):
    with Kiln() as kiln:
        bystander, stamp = with_bystander(kiln)
        for name, expected in GROUPS[group].items():
            run_case(kiln, name, expected)
            check(bystander.poll() is None, f"{name}: the bystander is still connected")
            bystander_drawing(kiln, stamp, name)
            if name == "huge-surface":
                # A 16384x16384 texture is 1 GiB: a second one must not add to what the first left behind.
                rss_first, _ = process_usage(kiln.proc.pid)
                run_case(kiln, name, expected)
                bystander_drawing(kiln, stamp, name)  # a few frames: the texture of the client's last buffer is gone
                rss_second, _ = process_usage(kiln.proc.pid)
                print(f"huge-surface: kiln RSS {rss_first} KiB after one, {rss_second} KiB after two")
                check(rss_second - rss_first < 64 * 1024, "a second huge surface does not grow kiln by another GiB")
        status, _ = kiln.stop()
        check(status == 0, "kiln exits 0")


def process_usage(pid):
    """(VmRSS in KiB, open fds) of a process."""
    rss = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
    return rss, len(os.listdir(f"/proc/{pid}/fd"))


def churn():
    with Kiln() as kiln:
        bystander, stamp = with_bystander(kiln)
        # A first round warms caches (programs, allocator pools) so the measured round shows growth, not set-up.
        result = kiln.run([CLIENT, "churn", "50"], timeout=120, env=CLIENT_ENV)
        check(result.returncode == 0, f"warm-up churn ran ({result.stdout.strip()})")
        rss_before, fds_before = process_usage(kiln.proc.pid)
        started = time.monotonic()
        result = kiln.run([CLIENT, "churn", "500"], timeout=150, env=CLIENT_ENV)
        elapsed = time.monotonic() - started
        check(result.returncode == 0, f"500 connect/commit/disconnect cycles ran ({result.stdout.strip()})")
        time.sleep(0.5)  # the last disconnects are processed
        rss_after, fds_after = process_usage(kiln.proc.pid)
        print(f"churn: 500 cycles in {elapsed:.1f} s; RSS {rss_before} KiB -> {rss_after} KiB "
              f"({rss_after - rss_before:+d} KiB); fds {fds_before} -> {fds_after}")
        check(kiln.alive(), "kiln is alive after the churn")
        check(fds_after <= fds_before, f"no fd leaked ({fds_before} -> {fds_after})")
        if os.environ.get("KILN_SANITIZED"):
            # ASan holds freed memory in quarantine on purpose, so RSS grows; LeakSanitizer checks at kiln's exit.
            print(f"churn: RSS bound not checked under sanitizers ({rss_after - rss_before:+d} KiB)")
        else:
            check(rss_after - rss_before < 16 * 1024, f"RSS grew less than 16 MiB ({rss_after - rss_before:+d} KiB)")
        check(bystander.poll() is None, "the bystander is still connected")
        bystander_drawing(kiln, stamp, "churn")
        status, _ = kiln.stop()
        check(status == 0, "kiln exits 0")


def privileged():
    # Unrestricted (the default): any client binds wlr-screencopy.
    with Kiln() as kiln:
        wait_listening(kiln)
        result = kiln.run([CLIENT, "bind-screencopy"], env=CLIENT_ENV)
        check("screencopy announced" in result.stdout and result.stdout.strip().endswith(CONNECTED),
              f"by default a client binds screencopy ({result.stdout.strip()!r})")
    # Restricted: not announced, and asking for it by name is refused; kiln's own -s children still get it,
    # including a grandchild (the shell forks before running the client).
    kiln = Kiln("--restrict", "screencopy", stats=False)
    startup_out = Path(kiln.tmp) / "startup.out"
    kiln.argv += ["-s", f"true; ASAN_OPTIONS=\"$ASAN_OPTIONS:detect_leaks=0\" {CLIENT} bind-screencopy > {startup_out}; "
                        "true"]
    with kiln:
        wait_listening(kiln)
        result = kiln.run([CLIENT, "bind-screencopy"], env=CLIENT_ENV)
        print(result.stdout.strip())
        check("screencopy not announced" in result.stdout, "a client kiln did not start does not see screencopy")
        check(result.stdout.strip().endswith("protocol-error wl_registry 0"),
              "binding the hidden name is refused with wl_display.invalid_object on the registry")
        kiln.wait_for(lambda: startup_out.exists() and startup_out.read_text().strip().endswith(CONNECTED),
                      "the startup command's client")
        check("screencopy announced" in startup_out.read_text(), "a client kiln started with -s binds screencopy")
        check(kiln.alive(), "kiln is alive")


# A client past one of kiln's per-client limits gets wl_display.error no_memory (2), and only it goes: libwayland's
# client reports that error as ENOMEM (12), not as a protocol error, and logs the message with it.
NO_MEMORY = "disconnected 12"


def refused(lines, what):
    check(any(f"error 2: too many {what}" in line for line in lines),
          f"the client was told wl_display.error no_memory, too many {what}")


def measured(lines, pattern):
    """The number a line of the client's matching `pattern` (with one group) states."""
    for line in lines:
        if found := re.fullmatch(pattern, line):
            return float(found.group(1))
    raise AssertionError(f"the client did not print '{pattern}': {lines}")


def soft_fd_limit(pid):
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            return int(line.split()[3])
    raise AssertionError("no 'Max open files' in /proc/PID/limits")


def limits():
    # kiln starts with the soft limit on open files most sessions hand out (1024), as under a display manager.
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    kiln = Kiln(stats=False)
    child_limit = Path(kiln.tmp) / "child-limit"
    kiln.argv = ["prlimit", "--nofile=1024:", "--"] + kiln.argv + ["-s", f"ulimit -Sn > {child_limit}"]
    with kiln:
        bystander, stamp = with_bystander(kiln)

        def bystander_fine(what):
            check(kiln.alive(), f"{what}: kiln is alive")
            check(bystander.poll() is None, f"{what}: the bystander is still connected")
            bystander_drawing(kiln, stamp, what)

        # kiln raises its soft limit to the hard one; its children get back the limit it started with.
        soft = soft_fd_limit(kiln.proc.pid)
        print(f"kiln's soft limit on open files: {soft} (hard {hard})")
        check(soft == hard, f"kiln raised its soft limit on open files to the hard limit ({soft} of {hard})")
        kiln.wait_for(lambda: child_limit.exists() and child_limit.read_text().strip(), "the startup command")
        check(child_limit.read_text().strip() == "1024",
              f"a startup command gets the limit kiln started with (1024, got {child_limit.read_text().strip()})")

        sanitized = os.environ.get("KILN_SANITIZED")  # ASan keeps freed memory in quarantine: RSS says nothing
        time.sleep(1)
        rss_start, _ = process_usage(kiln.proc.pid)

        def memory_back(what, rss=None):
            """kiln's RSS, 1 s after a big client went, is back within 16 MiB of where the group started."""
            if rss is None:
                time.sleep(1)
                rss, _ = process_usage(kiln.proc.pid)
            print(f"{what}: kiln RSS {rss_start} KiB at the start, {rss} KiB after the client left")
            if not sanitized:
                check(rss - rss_start < 16 * 1024, f"{what}: kiln gave the memory back ({rss - rss_start:+d} KiB)")

        # A client with 34,000 surfaces leaves: the other clients' round trips do not wait for its teardown.
        lines = run_case(kiln, "teardown-many-surfaces", CONNECTED, timeout=150)
        after = measured(lines, r"round trip after the disconnect: (\d+) ms")
        check(after < 1500, f"a round trip right after the disconnect took {after:.0f} ms (< 1500 ms)")
        memory_back("teardown-many-surfaces")
        bystander_fine("teardown-many-surfaces")

        # Objects: 50,000 per client.
        lines = run_case(kiln, "objects-limit", NO_MEMORY, timeout=120)
        refused(lines, "objects")
        memory_back("objects-limit")
        bystander_fine("objects-limit")

        # 20,000 regions of 100 rectangles from a client that goes while another, connected after it, stays: the
        # memory under that client's allocations comes back too.
        lines = run_case(kiln, "regions-memory", CONNECTED, timeout=120)
        held = measured(lines, r"kiln RSS while held: (\d+) KiB")
        if not sanitized:
            check(held - rss_start > 32 * 1024, f"the regions took memory ({held - rss_start:+.0f} KiB)")
        memory_back("regions-memory", int(measured(lines, r"kiln RSS after: (\d+) KiB")))
        bystander_fine("regions-memory")

        # shm pools (mappings): 4,096 per client; another client maps its window meanwhile.
        lines = run_case(kiln, "shm-pools", NO_MEMORY, timeout=150)
        refused(lines, "wl_shm pools")
        check("second client: drawn" in lines, "a second client's window was drawn while the pools were held")
        bystander_fine("shm-pools")

        # Security contexts: 16 live ones per creating process; a new client is still answered.
        lines = run_case(kiln, "security-contexts", NO_MEMORY, timeout=120)
        refused(lines, "security contexts")
        check("new client: served" in lines, "a new client was answered after the contexts")
        bystander_fine("security-contexts")

        # 2,000 connections at once (each one fd in kiln), then a new client.
        wanted = 2000
        if hard < wanted + 200:
            print(f"connections: not tried, the hard limit on open files here is {hard} (< {wanted + 200})")
        else:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            path = str(Path(kiln.runtime) / kiln.socket)
            held_sockets = []
            try:
                for _ in range(wanted):
                    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    s.connect(path)
                    held_sockets.append(s)
                time.sleep(0.5)
                _, fds = process_usage(kiln.proc.pid)
                print(f"connections: {wanted} held, kiln has {fds} fds open")
                try:
                    lines = run_case(kiln, "well-behaved", CONNECTED, timeout=30)
                except subprocess.TimeoutExpired:
                    raise AssertionError(f"a new client was not answered with {wanted} connections open")
                check("second client: drawn" in lines, f"a new client's window is drawn with {wanted} connections open")
                check(fds > wanted, f"kiln accepted all {wanted} connections ({fds} fds)")
            finally:
                for s in held_sockets:
                    s.close()
            bystander_fine("connections")
        status, _ = kiln.stop()
        check(status == 0, "kiln exits 0")


def main():
    group = sys.argv[1] if len(sys.argv) > 1 else ""
    if group in GROUPS:
        group_cases(group)
    elif group == "churn":
        churn()
    elif group == "privileged":
        privileged()
    elif group == "limits":
        limits()
    else:
        raise AssertionError(f"unknown group '{group}'")


run_test(main)
