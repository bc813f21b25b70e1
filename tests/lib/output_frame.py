"""One ext-image-copy-capture frame of kiln's first output (kiln's own composition for a capture, not the output's
frame that grim copies), as a Screenshot, or at 10 bits (XRGB2101010) as a TenBitFrame."""
import struct

from capture_sources import one_frame, output_source
from kiln_harness import Screenshot
from wayland_wire import Connection


def capture_output_frame(kiln):
    with Connection(kiln.client_env) as conn:
        width, height, bgrx, _ = one_frame(conn, output_source(conn))
    return bgrx_screenshot(width, height, bgrx)


def bgrx_screenshot(width, height, bgrx):
    """A Screenshot of a little-endian XRGB8888 (B, G, R, X bytes) image."""
    rgb = bytearray(width * height * 3)
    rgb[0::3], rgb[1::3], rgb[2::3] = bgrx[2::4], bgrx[1::4], bgrx[0::4]
    return Screenshot(width, height, bytes(rgb))


XRGB2101010 = 0x30335258  # wl_shm.format 'XR30'


class TenBitFrame:
    """An XRGB2101010 capture: at(x, y) gives (r, g, b) code values 0..1023."""

    def __init__(self, width, height, words):
        self.width, self.height, self.words = width, height, words

    def at(self, x, y):
        w = self.words[y * self.width + x]
        return (w >> 20 & 0x3ff, w >> 10 & 0x3ff, w & 0x3ff)


def capture_output_ten_bits(kiln):
    """One ext-image-copy-capture frame of kiln's first output into an XRGB2101010 wl_shm buffer, which the session
    must offer."""
    with Connection(kiln.client_env) as conn:
        width, height, data, _ = one_frame(conn, output_source(conn), shm_format=XRGB2101010,
                                           what="the 10-bit capture frame")
    words = struct.unpack(f"<{width * height}I", data)
    return TenBitFrame(width, height, words)
