"""Reads the frame number `kiln-demo-shm --stamp` paints into its window's top-left corner from screenshots, so a
test can see a client's frames reach the screen: each frame's stamp differs from the last 65535, so no sampling
interval aliases with the client's animation (its sliding square repeats every few frames)."""
import time

STAMP_SIZE = 8


def decode(pixel):
    """The frame number (mod 65536) a stamp pixel holds, or None where the pixel is no stamp."""
    r, g, b = pixel
    return (g << 8 | r) if b == (r ^ 0xff) else None


class FrameStamp:
    """The stamp of one `--stamp` window: found once by its colour's bounding box (the window must not move)."""

    def __init__(self, shot, window_rgb, tolerance=8):
        box = shot.bounding_box(window_rgb, tolerance=tolerance)
        if box is None:
            raise AssertionError(f"no window of colour {window_rgb} on screen to read a frame stamp from")
        # The stamp covers the window's corner, so the colour's box starts at the window's own corner.
        self.x, self.y = box[0] + STAMP_SIZE // 2, box[1] + STAMP_SIZE // 2

    def read(self, shot):
        return decode(shot.at(self.x, self.y))


def wait_frames(shoot, stamp, frames=3, timeout=10, what="the client"):
    """Until the stamp in `shoot()`'s screenshots is `frames` past the one seen first; returns how far it went. Fails
    on no stamp, or on a stamp that does not get that far in `timeout` seconds."""
    first = stamp.read(shoot())
    if first is None:
        raise AssertionError(f"{what}: no frame stamp on screen at {stamp.x},{stamp.y}")
    deadline = time.monotonic() + timeout
    while True:
        now = stamp.read(shoot())
        if now is not None and (now - first) % 65536 >= frames:
            return (now - first) % 65536
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: its frame stamp went from {first} to {now} in {timeout} s, "
                                 f"not {frames} frames on: it stopped drawing or its frames stopped reaching the screen")
        time.sleep(0.05)
