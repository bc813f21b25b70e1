#!/usr/bin/env python3
"""PipeWire consumers that misbehave, on the stack of screencast.py (kiln with kiln-portal, xdg-desktop-portal,
PipeWire, WirePlumber) while a window animates. kiln-portal-hostile-consumer, on the stream of one session:
- holds every buffer it gets and never gives one back, while a second session is read by pipewiresrc;
- takes buffers and is killed with SIGKILL while they flow;
- asks only for 65535x65535, then only for I420: nothing kiln-portal offers, so no format is agreed.
After each, a well-behaved pipewiresrc on the same stream gets frames that change as the window animates; at the end kiln and kiln-portal
still run, their memory grew by less than HEADROOM over the whole run, and on a still screen both the first stream
and a new session equal grim pixel for pixel."""
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import build_dir, check, client_binary, run_test, skip, wait_drawn  # noqa: E402
from screencast import ScreenCastClient, Stack, StreamReader, differing, portal_kiln, require_stack  # noqa: E402

SIZE = (640, 480)
# A few frame buffers (1.2 MB each at this size); a frame kept per frame published goes past it within the run.
HEADROOM_KIB = 16 * 1024


def rss_kib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def descendant(pid, name):
    """The pid of the process under `pid` whose executable is named `name`, or None."""
    children = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    todo = list(children.get(pid, []))
    while todo:
        child = todo.pop()
        try:
            if Path(f"/proc/{child}/exe").resolve().name == name:
                return child
        except OSError:
            pass
        todo.extend(children.get(child, []))
    return None


def alive(pid):
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def main():
    portal_binary = require_stack()
    consumer_binary = build_dir() / "tests" / "portal" / "kiln-portal-hostile-consumer"
    if not consumer_binary.exists():
        skip("kiln-portal-hostile-consumer was not built (needs libpipewire-0.3-dev)")
    with Stack() as stack:
        with portal_kiln(stack, f"{portal_binary} --replace", size=SIZE) as kiln:
            still = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "200x150", "--color", "3366cc",
                                "--frames", "3", "--stay"])
            wait_drawn(still)
            moving = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "300x100", "--color", "00aa00"])
            client = ScreenCastClient(stack.env["DBUS_SESSION_BUS_ADDRESS"])
            client.wait_for_portal()
            response, session, streams = client.share()
            check(response == 0 and len(streams) == 1, f"Start answers {response} with one stream: {streams}")
            node = streams[0][0]
            portal_pid = descendant(kiln.proc.pid, "kiln-portal")
            check(portal_pid is not None, "kiln-portal runs under kiln")

            def consumer(mode, seconds):
                fd = client.remote(session)
                child = subprocess.Popen([str(consumer_binary), str(fd), str(node), str(seconds), mode],
                                         pass_fds=(fd,), env=stack.env, stdout=subprocess.PIPE,
                                         stderr=subprocess.STDOUT, text=True)
                os.close(fd)
                return child

            def sees_motion(what, on_session=None, on_node=None):
                """A pipewiresrc on the stream reads 6 frames: they differ, as the window animates."""
                reader = StreamReader(client.remote(on_session or session), on_node or node)
                pictures, count = set(), 0
                try:
                    while count < 6:
                        frame = reader.frame(timeout=5)
                        check(frame is not None, f"{what}: pipewiresrc gets frames ({count} so far)")
                        count += 1
                        pictures.add(hash(frame.pixels))
                        time.sleep(0.1)
                finally:
                    reader.stop()
                check(len(pictures) >= 3, f"{what}: {len(pictures)} different pictures in {count} frames")

            sees_motion("before any hostile consumer")
            kiln_before, portal_before = rss_kib(kiln.proc.pid), rss_kib(portal_pid)

            # 1. Holds every buffer: kiln-portal has none left for this stream; another session is untouched.
            holder = consumer("hold", 5)
            time.sleep(1)
            response, other, other_streams = client.share()
            check(response == 0 and len(other_streams) == 1, f"a second session starts while a consumer holds "
                  f"the first one's buffers (response {response})")
            sees_motion("a second session while the first stream's buffers are held", other, other_streams[0][0])
            client.close(other)
            out, _ = holder.communicate(timeout=30)
            kept = [int(line.split()[2]) for line in out.splitlines() if line.startswith("done frames ")]
            check(f"format {SIZE[0]} {SIZE[1]}" in out and kept and kept[0] >= 2,
                  f"the holding consumer had the stream and kept its buffers: {out.strip()[-300:]}")
            sees_motion("the held stream after its holder left")

            # 2. Killed with SIGKILL while frames flow.
            victim = consumer("stream", 60)
            deadline, seen = time.monotonic() + 20, ""
            while "frames 30" not in seen and time.monotonic() < deadline:
                line = victim.stdout.readline()
                if not line:
                    break
                seen += line
            check("frames 30" in seen, f"the consumer to be killed takes frames: {seen.strip()[-300:]}")
            victim.kill()
            victim.wait()
            sees_motion("the stream after its consumer was killed mid-stream")

            # 3. Formats kiln-portal cannot give: no format is agreed, the stream stays as it was.
            for mode, what in (("huge", "65535x65535"), ("yuv", "I420")):
                out, _ = consumer(mode, 3).communicate(timeout=30)
                agreed = [line for line in out.splitlines() if line.startswith(("format ", "frames "))]
                check(not agreed,
                      f"a consumer asking only for {what} gets no format and no frames: {out.strip()[-300:]}")
                sees_motion(f"the stream after a consumer asked for {what}")

            check(kiln.alive(), "kiln still runs")
            check(alive(portal_pid), f"kiln-portal ({portal_pid}) still runs")
            kiln_growth = rss_kib(kiln.proc.pid) - kiln_before
            portal_growth = rss_kib(portal_pid) - portal_before
            check(kiln_growth < HEADROOM_KIB and portal_growth < HEADROOM_KIB,
                  f"memory grew by {kiln_growth} KiB in kiln and {portal_growth} KiB in kiln-portal "
                  f"(less than {HEADROOM_KIB} KiB each)")

            # A still screen: the first stream and a new session equal grim.
            moving.kill()
            moving.wait()
            time.sleep(0.5)
            shot = kiln.screenshot()
            response, fresh, fresh_streams = client.share()
            check(response == 0 and len(fresh_streams) == 1, f"a new session starts (response {response})")
            for what, on_session, on_node in (("the first stream", session, node),
                                              ("a new session", fresh, fresh_streams[0][0])):
                reader = StreamReader(client.remote(on_session), on_node)
                frame = reader.frame()
                check(frame is not None, f"{what} has frames")
                # The frame held from before the window closed may come first: the last one counts.
                while (newer := reader.frame(timeout=2)) is not None:
                    frame = newer
                reader.stop()
                diff = differing(frame, shot)
                check(diff == 0, f"{what} equals grim ({diff} of {SIZE[0] * SIZE[1]} pixels differ)")
            check(portal_pid == descendant(kiln.proc.pid, "kiln-portal"), "it is the same kiln-portal")


if __name__ == "__main__":
    run_test(main)
