#!/usr/bin/env python3
"""A sandboxed application asks to share the screen, end to end, on the stack of screencast.py (kiln with
kiln-portal, xdg-desktop-portal 1.16, PipeWire, WirePlumber). The application (tests/portal/sandboxed_caller.py) runs
inside bubblewrap with a synthetic read-only /.flatpak-info naming org.example.Sandboxed: xdg-desktop-portal 1.16
takes a caller for a Flatpak app when /proc/PID/root/.flatpak-info of the bus peer is a regular file whose
[Application] name is a valid app id (src/xdp-utils.c, parse_app_info_from_flatpak_info), and hands that id to
kiln-portal. The caller passes no id of its own; the id kiln-portal logs can only have come from the sandbox.
- kiln-portal as kiln starts it (no --allow): Start answers 1 (cancelled) with no stream, kiln-portal logs the
  refusal of 'org.example.Sandboxed', PipeWire holds no node more than before; PickColor answers 1 and Screenshot 2
  (kiln-portal's Access answer, kept by 1.16's permission store as "no" for that id). Meanwhile an unsandboxed
  session streaming an animated window keeps getting frames, at MIN_RATE or more once the caller is done, and the
  same caller outside bwrap is granted;
- kiln-portal replaced by one with `--allow org.example.Sandboxed`: the sandboxed caller's Start answers 0, its
  pipewiresrc gets frames at the animation's rate while an unsandboxed session does too, and on a still screen its
  frame equals grim's pixel for pixel; PickColor answers the colour grim shows under the pointer.
Skips (77) where bwrap cannot make a sandbox, or the portal stack is missing."""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Screenshot, check, client_binary, run_test, skip, wait_drawn  # noqa: E402
from screencast import ScreenCastClient, Stack, StreamReader, differing, portal_kiln, require_stack  # noqa: E402
from virtual_input import VirtualPointer  # noqa: E402
from wayland_wire import Connection  # noqa: E402

SIZE = (320, 240)
APP_ID = "org.example.Sandboxed"
CALLER = Path(__file__).resolve().parent / "sandboxed_caller.py"
# Most of the 60 Hz animation, as pipewiresrc delivers it on this machine (screencast.py measures 53-55 alone).
MIN_RATE = 40


def bwrap_argv(stack, info):
    """bwrap with a new root holding the host's directories read-only, /tmp (the stack's runtime dir and bus) and a
    read-only /.flatpak-info; its own pid namespace, as Flatpak's."""
    argv = ["bwrap", "--die-with-parent", "--unshare-pid", "--proc", "/proc", "--dev", "/dev",
            "--ro-bind", "/sys", "/sys", "--bind", "/tmp", "/tmp"]
    for entry in sorted(Path("/").iterdir()):
        if entry.name in ("proc", "dev", "sys", "tmp", ".flatpak-info"):
            continue
        if entry.is_symlink():
            argv += ["--symlink", os.readlink(entry), str(entry)]
        elif entry.is_dir():
            argv += ["--ro-bind", str(entry), str(entry)]
    if not stack.dir.startswith("/tmp/"):
        argv += ["--bind", stack.dir, stack.dir]
    return argv + ["--ro-bind", str(info), "/.flatpak-info", "--"]


def caller(stack, info, action, *args, sandboxed=True, stdin=None):
    argv = ["/usr/bin/python3", str(CALLER), stack.env["DBUS_SESSION_BUS_ADDRESS"], action, *args]
    if sandboxed:
        argv = bwrap_argv(stack, info) + argv
    return subprocess.Popen(argv, env=stack.env, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def answers(proc, timeout=60):
    """A finished caller's `key value` lines as a dict (with its stderr under "stderr")."""
    out, err = proc.communicate(timeout=timeout)
    said = dict(line.split(" ", 1) for line in out.splitlines() if " " in line)
    said["stderr"], said["exit"] = err[-2000:], proc.returncode
    return said


def video_nodes(stack):
    """kiln-portal's stream nodes PipeWire holds (pw-dump: Video/Source nodes)."""
    dump = subprocess.run(["pw-dump"], env=stack.env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                          timeout=20).stdout
    return sorted(o["id"] for o in json.loads(dump or "[]")
                  if o.get("type") == "PipeWire:Interface:Node"
                  and (o.get("info") or {}).get("props", {}).get("media.class") == "Video/Source")


def rate_during(reader, seconds_or_proc):
    """Frames/s `reader` delivered while a process ran (or for a number of seconds)."""
    started, delivered = time.monotonic(), reader.delivered
    if isinstance(seconds_or_proc, (int, float)):
        time.sleep(seconds_or_proc)
    else:
        seconds_or_proc.wait(90)
    return (reader.delivered - delivered) / (time.monotonic() - started)


def main():
    portal_binary = require_stack()
    if subprocess.run(["bwrap", "--dev-bind", "/", "/", "true"], stderr=subprocess.DEVNULL).returncode != 0:
        skip("bwrap cannot make a sandbox here (no user namespaces?)")
    with Stack() as stack:
        info = Path(stack.dir) / "flatpak-info"
        info.write_text(f"[Application]\nname={APP_ID}\nruntime=runtime/org.freedesktop.Platform/x86_64/23.08\n\n"
                        f"[Instance]\ninstance-id=4242\n")
        info.chmod(0o444)
        allow_now = Path(stack.dir) / "allow-now"
        allowing = f"while [ ! -e {allow_now} ]; do sleep 0.1; done; exec {portal_binary} --replace --allow {APP_ID}"
        with portal_kiln(stack, f"{portal_binary} --replace", size=SIZE, starts=(allowing,)) as kiln:
            still = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "200x150", "--color", "3366cc",
                                "--frames", "3", "--stay"])
            wait_drawn(still)
            client = ScreenCastClient(stack.env["DBUS_SESSION_BUS_ADDRESS"])
            client.wait_for_portal()
            moving = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "100x60", "--color", "00aa00"])

            # An unsandboxed session streams the animation the whole time the sandboxed app is refused.
            response, session, streams = client.share()
            check(response == 0 and len(streams) == 1, f"the unsandboxed session starts ({response}, {streams})")
            reader = StreamReader(client.remote(session), streams[0][0])
            check(reader.frame() is not None, "the unsandboxed session gets frames")
            nodes = video_nodes(stack)
            check(streams[0][0] in nodes, f"pw-dump lists the unsandboxed stream's node {streams[0][0]}: {nodes}")

            time.sleep(1)  # the animating client starting up
            before = rate_during(reader, 2.0)
            proc = caller(stack, info, "screencast", str(Path(stack.dir) / "refused.rgb"))
            during = rate_during(reader, proc)
            said = answers(proc)
            check(said.get("flatpak-info") == "True", f"the caller sees /.flatpak-info in its sandbox: {said}")
            check(said.get("start") == "1" and said.get("streams") == "none",
                  f"the sandboxed app's Start is cancelled with no stream: {said}")
            check(f"for sandboxed app '{APP_ID}' denied" in kiln.logs(),
                  "kiln-portal logs the refusal of the app id xdg-desktop-portal read from /.flatpak-info")
            check(f"with '{APP_ID}'" not in kiln.logs(), "kiln-portal shared nothing with the sandboxed app")
            nodes_after = video_nodes(stack)
            check(nodes_after == nodes, f"PipeWire holds no new node for the refused app: {nodes} then {nodes_after}")
            # Starting Python and GStreamer in the sandbox takes the CPU for a while here: frames must go on
            # arriving meanwhile, and at the full rate once it is done.
            after = rate_during(reader, 2.0)
            check(during > 0 and after >= MIN_RATE, f"the unsandboxed session kept streaming: {before:.1f} frames/s "
                  f"before, {during:.1f} while the sandboxed app was refused, {after:.1f} after")

            # The same caller outside the sandbox is an unsandboxed app (id ""), granted: the sandbox made the id.
            proc = caller(stack, info, "screencast", str(Path(stack.dir) / "host.rgb"), sandboxed=False,
                          stdin=subprocess.PIPE)
            proc.stdin.write("\n")
            proc.stdin.flush()
            said = answers(proc)
            check(said.get("flatpak-info") == "False" and said.get("start") == "0" and said.get("frame"),
                  f"the same caller outside bwrap is granted and gets frames: {said}")

            # Screenshot's permission question (Access) and PickColor, refused to the sandbox too.
            said = answers(caller(stack, info, "pickcolor"))
            check(said.get("pickcolor") == "1" and said.get("color") == "none", f"PickColor is refused: {said}")
            said = answers(caller(stack, info, "screenshot"))
            check(said.get("screenshot") == "2" and said.get("uri") == "False", f"Screenshot is refused: {said}")
            check(f"for sandboxed app '{APP_ID}' denied (grant it with --allow {APP_ID})" in kiln.logs(),
                  "kiln-portal's Access answer names the app and how to grant it")
            check(kiln.alive() and reader.frame() is not None, "kiln runs and the unsandboxed stream still flows")
            reader.stop()

            # --allow names the app: its share is granted, beside an unsandboxed one, both at the animation's rate.
            allow_now.touch()
            kiln.wait_for(lambda: "another kiln-portal replaced this one" in kiln.logs(), "the first kiln-portal to "
                          "leave when the allowing one takes its name", timeout=20)
            response, session, streams = client.share()
            check(response == 0 and len(streams) == 1, f"an unsandboxed session starts again ({response})")
            reader = StreamReader(client.remote(session), streams[0][0])
            check(reader.frame() is not None, "the unsandboxed session gets frames")
            frame_file = Path(stack.dir) / "allowed.rgb"
            proc = caller(stack, info, "screencast", str(frame_file), stdin=subprocess.PIPE)
            said = {}
            for line in proc.stdout:
                key, _, value = line.strip().partition(" ")
                said[key] = value
                if key in ("rate", "frames") or (key == "streams" and value == "none"):
                    break
            check(said.get("start") == "0" and said.get("streams", "none") != "none",
                  f"with --allow {APP_ID} the sandboxed app's Start answers 0 with a stream: {said} "
                  f"{proc.stderr.read() if proc.poll() is not None else ''}")
            check(f"with '{APP_ID}' as PipeWire node {said['streams']}" in kiln.logs(),
                  f"kiln-portal logs sharing with {APP_ID} on node {said['streams']}")
            sandboxed_rate = float(said.get("rate", 0))
            other_rate = rate_during(reader, 1.0)
            moving.kill()
            moving.wait()
            time.sleep(0.3)
            proc.stdin.write("\n")
            proc.stdin.flush()
            said.update(answers(proc))
            check(sandboxed_rate >= MIN_RATE and other_rate >= MIN_RATE,
                  f"the sandboxed session gets {sandboxed_rate:.1f} frames/s, the unsandboxed one {other_rate:.1f}")
            check(said.get("frame") == str(frame_file), f"the sandboxed app read a still frame: {said}")
            head, _, pixels = frame_file.read_bytes().partition(b"\n")
            width, height = map(int, head.split())
            frame = Screenshot(width, height, pixels)
            shot = kiln.screenshot()
            diff = differing(frame, shot) if (width, height) == SIZE else -1
            check(diff == 0, f"the sandboxed app's frame ({width}x{height}) equals grim's ({diff} pixels differ)")
            check(reader.frame() is not None, "the unsandboxed session still gets frames")
            reader.stop()

            # PickColor over the still window (the picture without the cursor): the colour grim shows there.
            box = shot.bounding_box((0x33, 0x66, 0xcc), tolerance=0)
            check(box is not None, "the still window is on screen")
            spot = ((box[0] + box[2]) // 2, (box[1] + box[3]) // 2)
            want = ",".join(map(str, shot.at(*spot)))
            pointer = VirtualPointer(Connection(kiln.client_env), SIZE)
            pointer.move(*spot)
            time.sleep(0.3)
            said = answers(caller(stack, info, "pickcolor"))
            check(said.get("pickcolor") == "0" and said.get("color") == want,
                  f"with --allow PickColor over the window answers the colour grim shows ({want}): {said}")
            check(kiln.alive(), "kiln runs")


if __name__ == "__main__":
    run_test(main)
