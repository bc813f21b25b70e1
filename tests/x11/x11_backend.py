#!/usr/bin/env python3
"""kiln --backend x11 inside Xvfb: a client's pixels reach the X root window (captured with xwd)."""
import os
import struct
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, client_binary, need, rgb, run_test  # noqa: E402


def xwd_capture(display):
    """The root window as rows of (r, g, b), parsed from xwd's XWD (version 7) format."""
    data = subprocess.run(["xwd", "-root", "-silent", "-display", display], capture_output=True, check=True,
                          timeout=20).stdout
    fields = struct.unpack(">25I", data[:100])
    (header_size, version, _fmt, depth, width, height, _xoff, byte_order, _unit, _bit_order, _pad, bpp,
     bytes_per_line, _vclass, red_mask, green_mask, blue_mask, _bits_rgb, _cmap, ncolors) = fields[:20]
    if version != 7 or bpp != 32:
        raise AssertionError(f"unexpected XWD: version {version}, {bpp} bits per pixel")
    offset = header_size + ncolors * 12
    pixels = data[offset:]
    little = byte_order == 0

    def shift(mask):
        return (mask & -mask).bit_length() - 1

    rs, gs, bs = shift(red_mask), shift(green_mask), shift(blue_mask)

    def at(x, y):
        raw = pixels[y * bytes_per_line + x * 4:y * bytes_per_line + x * 4 + 4]
        value = int.from_bytes(raw, "little" if little else "big")
        return (value & red_mask) >> rs, (value & green_mask) >> gs, (value & blue_mask) >> bs

    return width, height, at


def main():
    need("Xvfb")
    need("xwd")
    display_number = 40 + os.getpid() % 50
    display = f":{display_number}"
    xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        socket = Path(f"/tmp/.X11-unix/X{display_number}")
        for _ in range(100):
            if socket.exists():
                break
            time.sleep(0.05)
        check(socket.exists(), f"Xvfb listens on {display}")
        colour = rgb("aa33cc")
        with Kiln(backend="x11", env={"DISPLAY": display}) as kiln:
            kiln.spawn([client_binary("kiln-demo-shm"), "--size", "200x160", "--color", "aa33cc"])

            def client_on_root():
                width, height, at = xwd_capture(display)
                hits = sum(1 for y in range(0, height, 4) for x in range(0, width, 4)
                           if all(abs(a - b) <= 6 for a, b in zip(at(x, y), colour)))
                return hits > 500 and hits

            hits = kiln.wait_for(client_on_root, "the client's colour in the X root window", timeout=20, interval=0.3)
            check(True, f"the client's pixels are on the X root window ({hits} sampled pixels)")
            status, stats = kiln.stop()
            check(status == 0, f"kiln exits 0 (got {status})")
            check(stats["frames"]["rendered"] > 0, "kiln rendered frames on the X11 backend")
    finally:
        xvfb.terminate()
        xvfb.wait(10)


run_test(main)
