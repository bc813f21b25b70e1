#!/usr/bin/env python3
"""Runs inside the VM: kiln on the DRM backend of a virtio-gpu with two heads lights both connectors (the kernel's
atomic state has each on its own active CRTC) and lays them out from kiln.ini; a window opened on each output is in
that output's screenshot (grim -o) only; pulling Virtual-2's cable at run time takes it out of the layout and off
its CRTC, its window comes to Virtual-1 whole, and its client stays connected and keeps drawing there; its panel
moves to Virtual-1 (one configure, of Virtual-1's width, and none after it; never told closed); plugging the cable
back in lights Virtual-2 again."""
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Screenshot, check, run_test, skip  # noqa: E402
from virtual_input import VirtualPointer  # noqa: E402
from vt_session import ENV, OUT, KilnOnVt  # noqa: E402
from wayland_wire import Connection, Toplevel, shm_buffer  # noqa: E402
import virtio_heads  # noqa: E402
from virtio_heads import wait  # noqa: E402

GREEN, BLUE, CYAN, MAGENTA, BACKGROUND = 0x20c040, 0x3050d0, 0x30c0c0, 0xc030a0, 0x402010
CONFIG = f"""[output Virtual-1]
mode=800x600
position=0,0
[output Virtual-2]
mode=640x480
position=800,0
[background]
color=0x{BACKGROUND:06x}
"""
LAYOUT = (1440, 600)


def shot(output):
    result = subprocess.run(["grim", "-t", "ppm", "-o", output, "-"], env=ENV, capture_output=True, timeout=120)
    if result.returncode != 0:
        raise AssertionError(f"grim -o {output} failed: {result.stderr.decode(errors='replace').strip()}")
    return Screenshot.from_ppm(result.stdout)


def box(image, colour):
    """Bounding box of the exact colour (x0, y0, x1, y1) or None; row by row with bytes.find, fast enough under
    TCG (the colours are chosen so no misaligned match exists)."""
    needle = bytes(((colour >> 16) & 0xff, (colour >> 8) & 0xff, colour & 0xff))
    stride = image.width * 3
    xs, ys = [], []
    for y in range(image.height):
        row = image.pixels[y * stride:(y + 1) * stride]
        first = row.find(needle)
        while first >= 0 and first % 3:
            first = row.find(needle, first + 1)
        if first < 0:
            continue
        last = row.rfind(needle)
        while last >= 0 and last % 3:
            last = row.rfind(needle, 0, last + 2)
        xs += [first // 3, last // 3 + 1]
        ys.append(y)
    return (min(xs), min(ys), max(xs), max(ys) + 1) if ys else None


def size(b):
    return (b[2] - b[0], b[3] - b[1]) if b else None



def wl_outputs():
    info = subprocess.run(["wayland-info"], env=ENV, capture_output=True, text=True, timeout=120).stdout
    return info.count("interface: 'wl_output'")


def main():
    card = virtio_heads.virtio_card()
    if card is None:
        skip("no virtio-gpu card in the guest (QEMU without virtio-gpu-pci, or the module did not load)")
    heads = virtio_heads.connectors(card)
    if not {"Virtual-1", "Virtual-2"} <= heads.keys():
        skip(f"the virtio-gpu has connectors {sorted(heads)}, not two heads")
    if virtio_heads.start_hotplug_udevd() is None:
        skip("no systemd-udevd in the host root: wlroots hears of hotplug only through udev")
    # QEMU without a display UI enables only head 0: plug the second in before kiln starts.
    virtio_heads.set_connected(card, "Virtual-2", True)
    check(virtio_heads.status(card, "Virtual-2") == "connected",
          f"{card.name}: Virtual-1 and Virtual-2, both connected")
    config = OUT / "kiln.ini"
    config.write_text(CONFIG)
    kiln = KilnOnVt(extra_env=virtio_heads.drm_env(card), args=("--config", str(config)))
    try:
        check(wl_outputs() == 2, "kiln offers two wl_outputs on the virtio-gpu")
        one, two = shot("Virtual-1"), shot("Virtual-2")
        check((one.width, one.height, two.width, two.height) == (800, 600, 640, 480),
              f"each head has its kiln.ini mode ({one.width}x{one.height}, {two.width}x{two.height})")
        links, active = virtio_heads.kms_state(card)
        virtio_heads.log_kms(card, OUT, "both")
        check(links.get("Virtual-1") and links.get("Virtual-2") and links["Virtual-1"] != links["Virtual-2"] and
              active.get(links["Virtual-1"]) and active.get(links["Virtual-2"]),
              f"the kernel drives each connector from its own active CRTC ({links}, {active})")

        mover_conn = Connection(ENV, timeout=120)
        conn = Connection(ENV, timeout=120)
        mover = VirtualPointer(mover_conn, LAYOUT)
        mover.move(400, 300)  # the middle of Virtual-1 (0,0 800x600)
        left = Toplevel(conn, "on Virtual-1")
        left.commit()
        left.map(300, 200, 0xff000000 | GREEN)
        mover.move(1120, 240)  # the middle of Virtual-2 (800,0 640x480)
        right = Toplevel(conn, "on Virtual-2")
        right.commit()
        right.map(200, 150, 0xff000000 | BLUE)
        b = wait(lambda: box(shot("Virtual-2"), BLUE), "the second window on Virtual-2")
        one = shot("Virtual-1")
        check(size(b) == (200, 150) and box(one, BLUE) is None and size(box(one, GREEN)) == (300, 200) and
              box(shot("Virtual-2"), GREEN) is None,
              f"a window opened on each output is drawn there only (Virtual-2: {b}, Virtual-1: {box(one, GREEN)})")

        # A panel on Virtual-2 (the output under the pointer), from the same client as the window.
        layer_shell = conn.bind("zwlr_layer_shell_v1", 4)

        panel_surface = []

        def panel(colour):
            surface = conn.create("wl_surface", left.compositor, 0)
            panel_surface[:] = [surface]
            layer = conn.create("zwlr_layer_surface_v1", layer_shell, 0, ("o", surface), ("o", 0), ("u", 2),
                                ("s", "panel"))
            conn.send(layer, 0, ("u", 0), ("u", 20))  # set_size: full width, 20 high
            conn.send(layer, 1, ("u", 1 | 4 | 8))  # set_anchor: top, left, right
            conn.send(surface, 6)
            configure = conn.dispatch_until(lambda e: e.obj == layer and e.opcode == 0)
            conn.events.remove(configure)  # dispatch_until returns queued events: taken, so none is read twice
            serial, width, height = configure.args("uuu")
            conn.send(layer, 6, ("u", serial))
            conn.send(surface, 1, ("o", shm_buffer(conn, width, height, 0xff000000 | colour)), ("i", 0), ("i", 0))
            conn.send(surface, 6)
            conn.roundtrip()
            return layer, width

        layer, width = panel(MAGENTA)
        check(width == 640, f"a panel on Virtual-2 is configured its width ({width})")
        wait(lambda: size(box(shot("Virtual-2"), MAGENTA)) == (640, 20), "the panel on Virtual-2")

        # Pull Virtual-2's cable.
        conn.roundtrip()
        before = [e.args("uuu")[1] for e in conn.take(layer, 0)]
        check(before == [], f"before the unplug the panel had its one configure, no more ({before} since)")
        virtio_heads.set_connected(card, "Virtual-2", False)
        # The panel moves to the output that is left: one configure, of Virtual-1's width; never closed.
        configure = conn.dispatch_until(lambda e: e.obj == layer and e.opcode in (0, 1), 120)
        conn.events.remove(configure)
        check(configure.opcode == 0, "Virtual-2 unplugged: its panel is configured again, not closed")
        serial, width, height = configure.args("uuu")
        check((width, height) == (800, 20), f"the panel is configured Virtual-1's width ({width}x{height})")
        check(wait(lambda: wl_outputs() == 1, "one wl_output"), "one wl_output is left")
        links, active = virtio_heads.kms_state(card)
        virtio_heads.log_kms(card, OUT, "unplugged")
        check(virtio_heads.status(card, "Virtual-2") == "disconnected" and links.get("Virtual-2") is None and
              links.get("Virtual-1") and active.get(links["Virtual-1"]),
              f"the kernel: Virtual-2 disconnected and on no CRTC, Virtual-1 still driven ({links}, {active})")
        moved = wait(lambda: box(shot("Virtual-1"), BLUE), "the second window on Virtual-1")
        check(size(moved) == (200, 150) and size(box(shot("Virtual-1"), GREEN)) == (300, 200),
              f"Virtual-2's window is on Virtual-1 now, whole, over the first ({moved})")
        # The client is still connected and what it draws now shows on Virtual-1.
        conn.answer_pings(right.wm_base)
        conn.send(right.surface, 1, ("o", shm_buffer(conn, 200, 150, 0xff000000 | CYAN)), ("i", 0), ("i", 0))
        conn.send(right.surface, 2, ("i", 0), ("i", 0), ("i", 200), ("i", 150))
        right.commit()
        conn.roundtrip()
        redrawn = wait(lambda: box(shot("Virtual-1"), CYAN), "the moved window's new frame on Virtual-1")
        check(size(redrawn) == (200, 150), f"its client stays connected and its next frame shows there ({redrawn})")
        conn.send(layer, 6, ("u", serial))
        conn.send(panel_surface[0], 1, ("o", shm_buffer(conn, width, height, 0xff000000 | MAGENTA)), ("i", 0), ("i", 0))
        conn.send(panel_surface[0], 6)
        conn.roundtrip()
        wait(lambda: size(box(shot("Virtual-1"), MAGENTA)) == (800, 20), "the moved panel on Virtual-1")

        # Plug it back in.
        virtio_heads.set_connected(card, "Virtual-2", True)
        check(wait(lambda: wl_outputs() == 2, "two wl_outputs again"), "Virtual-2 plugged back in: two wl_outputs")
        back = wait(lambda: (s := shot("Virtual-2")) and s.width == 640 and box(s, BACKGROUND) and s,
                    "Virtual-2 drawn again")
        check((back.width, back.height) == (640, 480), "Virtual-2 is back at its kiln.ini mode, drawn by kiln")
        links, active = virtio_heads.kms_state(card)
        virtio_heads.log_kms(card, OUT, "replugged")
        check(links.get("Virtual-2") and active.get(links["Virtual-2"]) and links["Virtual-1"] != links["Virtual-2"],
              f"the kernel drives Virtual-2 from an active CRTC again ({links}, {active})")
        # Nothing about the panel changed since its move (Virtual-1 kept its size through the replug, many frames
        # were drawn and shot): no configure more, neither from frames nor from the layout's changes.
        conn.roundtrip()
        later = [e.args("uuu")[1:] for e in conn.take(layer, 0)]
        check(later == [], f"the move was the panel's one configure since the unplug (later ones: {later[:5]}, "
                           f"{len(later)} in all)")
        check(kiln.running(), "kiln is still running")
        conn.close()
        mover_conn.close()
        kiln.stop()
    finally:
        kiln.kill()
        print(kiln.log()[-3000:])


run_test(main)
