#!/usr/bin/env python3
"""The cursor as metadata (cursor_mode 4) through the portal: the same stack as screencast.py on an empty headless
kiln (black background). The portal offers cursor modes 7; a session with cursor_mode 4 is read by
kiln-portal-cursor-reader (a small libpipewire consumer: GStreamer's pipewiresrc does not pass SPA_META_Cursor on)
while a virtual pointer moves over the output:
- every frame is black: the cursor is not drawn into the picture;
- the buffers' SPA_META_Cursor follows the pointer to each place it is moved to (position = the hotspot there), and
  the last buffer has the last place: kiln sends a moved pointer's frame before its position, and kiln-portal once
  queued both, a moment apart, of which the consumer got only the first, so the cursor arrived one buffer late;
- the cursor's picture (a bitmap with opaque pixels) comes with the buffers after it changes, not with every one."""
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import build_dir, check, run_test, skip  # noqa: E402
from screencast import ScreenCastClient, Stack, portal_kiln, require_stack  # noqa: E402
from virtual_input import VirtualPointer  # noqa: E402
from wayland_wire import Connection  # noqa: E402

SIZE = (320, 240)
PLACES = [(100, 60), (200, 150), (60, 180), (250, 40), (300, 220)]


def main():
    portal_binary = require_stack()
    reader_binary = build_dir() / "tests" / "portal" / "kiln-portal-cursor-reader"
    if not reader_binary.exists():
        skip("kiln-portal-cursor-reader was not built (needs libpipewire-0.3-dev)")
    with Stack() as stack:
        with portal_kiln(stack, f"{portal_binary} --replace", size=SIZE) as kiln:
            pointer = VirtualPointer(Connection(kiln.client_env), SIZE)
            pointer.move(20, 20)
            client = ScreenCastClient(stack.env["DBUS_SESSION_BUS_ADDRESS"])
            _, cursors = client.wait_for_portal()
            check(cursors == 7, f"the portal offers cursor modes hidden, embedded and metadata (7): {cursors}")
            response, session, streams = client.share(cursor_mode=4)
            check(response == 0 and len(streams) == 1, f"Start with cursor mode 4 answers {response}: {streams}")
            fd = client.remote(session)
            reader = subprocess.Popen([str(reader_binary), str(fd), str(streams[0][0]), "8"], pass_fds=(fd,),
                                      env=stack.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            time.sleep(1.5)
            for x, y in PLACES:
                pointer.move(x, y)
                time.sleep(0.5)
            out, _ = reader.communicate(timeout=30)
            lines = out.splitlines()
            frames = [line.split() for line in lines if line.startswith("frame ")]
            cursors = [tuple(int(v) for v in line.split()[1:]) for line in lines if line.startswith("cursor ")]
            bitmaps = [tuple(int(v) for v in line.split()[1:]) for line in lines if line.startswith("bitmap ")]
            check(frames and all(f[1:3] == [str(SIZE[0]), str(SIZE[1])] for f in frames),
                  f"the reader gets {len(frames)} frames of {SIZE}: {lines[:5]}")
            lit = [int(f[4]) for f in frames if int(f[4])]
            check(not lit, f"no frame has the cursor drawn in ({len(lit)} of {len(frames)} frames have lit pixels)")
            seen = {(c[1], c[2]) for c in cursors if c[0] != 0}
            missing = [p for p in PLACES if p not in seen]
            check(cursors and not missing, f"SPA_META_Cursor follows the pointer to {PLACES} ({len(cursors)} cursor "
                  f"metas; missing {missing}; seen {sorted(seen)[:12]})")
            shown = [(c[1], c[2]) for c in cursors if c[0] != 0]
            check(shown[-1] == PLACES[-1], f"the last buffer has the pointer where it stopped, {PLACES[-1]}: "
                  f"{shown[-3:]}")
            check(bitmaps and all(b[2] > 0 for b in bitmaps) and len(bitmaps) * 2 < len(cursors),
                  f"the cursor's picture comes {len(bitmaps)} times in {len(cursors)} buffers: {bitmaps[:3]}")
            client.close(session)


if __name__ == "__main__":
    run_test(main)
