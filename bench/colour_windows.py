#!/usr/bin/env python3
"""bench/colour_cost.py's client: N windows of 250x250 wl_shm pixels in one connection, each redrawn on every frame
callback (one of its two buffers of different colours attached, all of it damaged, committed), the first K given a
color-management-v1 image description (named primaries and the sRGB curve) before their first buffer. Prints "ready"
once every window has drawn; each SIGUSR1 prints the commits sent so far (one per frame)."""
import argparse
import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "lib"))
from wayland_wire import Connection, Toplevel, shm_buffer  # noqa: E402

SIZE = 250  # bench/lib/workload.py's WINDOW
PRIMARIES = {"srgb": 1, "display-p3": 9}  # wp_color_manager_v1.primaries
TF_SRGB = 9  # wp_color_manager_v1.transfer_function.srgb
COLOURS = [(0xff996633, 0xff336699), (0xff40a040, 0xffa04040)]  # xrgb pairs, alternating per frame


def describe(conn, manager, primaries):
    creator = conn.create("wp_image_description_creator_params_v1", manager, 5)  # create_parametric_creator
    conn.send(creator, 3, ("u", PRIMARIES[primaries]))  # set_primaries_named
    conn.send(creator, 1, ("u", TF_SRGB))  # set_tf_named
    description = conn.create("wp_image_description_v1", creator, 0)  # create
    event = conn.dispatch_until(lambda e: e.obj == description and e.opcode in (0, 1))
    conn.events.remove(event)
    if event.opcode != 1:
        sys.exit(f"colour_windows: the {primaries} description failed")
    return description


class Window:
    def __init__(self, conn, index, manager, description):
        self.conn = conn
        self.top = Toplevel(conn, f"colour bench {index}")
        if description:
            colour = conn.create("wp_color_management_surface_v1", manager, 2, ("o", self.top.surface))
            conn.send(colour, 1, ("o", description), ("u", 1))  # set_image_description, relative colorimetric
        pair = COLOURS[index % len(COLOURS)]
        self.buffers = [shm_buffer(conn, SIZE, SIZE, c) for c in pair]
        self.flip = 0
        self.top.commit()
        self.top.wait_configure()

    def draw(self):
        """Attaches the next buffer, damages it all, asks for a frame callback and commits; returns the callback."""
        surface = self.top.surface
        self.conn.send(surface, 1, ("o", self.buffers[self.flip]), ("i", 0), ("i", 0))  # attach
        self.flip ^= 1
        self.conn.send(surface, 2, ("i", 0), ("i", 0), ("i", SIZE), ("i", SIZE))  # damage
        callback = self.conn.create("wl_callback", surface, 3)  # frame
        self.conn.send(surface, 6)  # commit
        return callback


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--windows", type=int, default=16)
    p.add_argument("--described", type=int, default=0, help="how many windows get a description (the first ones)")
    p.add_argument("--primaries", choices=sorted(PRIMARIES), default="display-p3")
    args = p.parse_args()
    env = dict(os.environ)
    conn = Connection(env, timeout=30)
    manager = conn.bind("wp_color_manager_v1", 1) if args.described else None
    description = describe(conn, manager, args.primaries) if args.described else None
    windows = [Window(conn, i, manager, description if i < args.described else None) for i in range(args.windows)]
    wm_base = windows[0].top.wm_base
    commits = 0
    pending = {}
    for i, w in enumerate(windows):
        pending[w.draw()] = i
        commits += 1
    drawn = set()

    def report(*_):
        print(commits, flush=True)
    signal.signal(signal.SIGUSR1, report)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    xdg_surfaces = {w.top.xdg_surface: w for w in windows}
    while True:
        conn._read(1.0)
        events, conn.events = conn.events, []
        for e in events:
            if e.obj in pending and e.interface == "wl_callback":
                i = pending.pop(e.obj)
                if i not in drawn:
                    drawn.add(i)
                    if len(drawn) == len(windows):
                        print("ready", flush=True)
                pending[windows[i].draw()] = i
                commits += 1
            elif e.obj == wm_base and e.opcode == 0:
                conn.send(wm_base, 3, ("u", e.args("u")[0]))  # pong
            elif e.obj in xdg_surfaces and e.opcode == 0:
                conn.send(e.obj, 4, ("u", e.args("u")[0]))  # ack_configure
            for fd in e.fds:
                os.close(fd)


if __name__ == "__main__":
    main()
