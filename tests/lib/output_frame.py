"""One ext-image-copy-capture frame of kiln's first output (kiln's own composition for a capture, not the output's
frame that grim copies), as a Screenshot, or at 10 bits (XRGB2101010) as a TenBitFrame."""
import struct

from kiln_harness import Screenshot, check
from wayland_wire import Connection, MappedShmBuffer


def capture_output_frame(kiln):
    with Connection(kiln.client_env) as conn:
        manager = conn.bind("ext_image_copy_capture_manager_v1", 1)
        sources = conn.bind("ext_output_image_capture_source_manager_v1", 1)
        output = conn.bind("wl_output", 1)
        source = conn.create("ext_image_capture_source_v1", sources, 0, ("o", output))
        session = conn.create("ext_image_copy_capture_session_v1", manager, 0, ("o", source), ("u", 0))
        conn.dispatch_until(lambda e: e.obj == session and e.opcode == 4)  # done
        width, height = next(e.args("uu") for e in conn.take(session) if e.opcode == 0)  # buffer_size
        buffer = MappedShmBuffer(conn, width, height)
        frame = conn.create("ext_image_copy_capture_frame_v1", session, 0)
        conn.send(frame, 1, ("o", buffer.obj))  # attach_buffer
        conn.send(frame, 2, ("i", 0), ("i", 0), ("i", width), ("i", height))  # damage_buffer
        conn.send(frame, 3)  # capture
        end = conn.dispatch_until(lambda e: e.obj == frame and e.opcode in (3, 4))
        check(end.opcode == 3, "the capture frame is ready")
        bgrx = bytes(buffer.map[:width * height * 4])
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
        manager = conn.bind("ext_image_copy_capture_manager_v1", 1)
        sources = conn.bind("ext_output_image_capture_source_manager_v1", 1)
        output = conn.bind("wl_output", 1)
        source = conn.create("ext_image_capture_source_v1", sources, 0, ("o", output))
        session = conn.create("ext_image_copy_capture_session_v1", manager, 0, ("o", source), ("u", 0))
        conn.dispatch_until(lambda e: e.obj == session and e.opcode == 4)  # done
        events = conn.take(session)
        width, height = next(e.args("uu") for e in events if e.opcode == 0)  # buffer_size
        offered = [e.args("u")[0] for e in events if e.opcode == 1]  # shm_format
        check(XRGB2101010 in offered, f"the capture session offers XRGB2101010 shm buffers ({offered})")
        buffer = MappedShmBuffer(conn, width, height, shm_format=XRGB2101010)
        frame = conn.create("ext_image_copy_capture_frame_v1", session, 0)
        conn.send(frame, 1, ("o", buffer.obj))  # attach_buffer
        conn.send(frame, 2, ("i", 0), ("i", 0), ("i", width), ("i", height))  # damage_buffer
        conn.send(frame, 3)  # capture
        end = conn.dispatch_until(lambda e: e.obj == frame and e.opcode in (3, 4))
        check(end.opcode == 3, "the 10-bit capture frame is ready")
        words = struct.unpack(f"<{width * height}I", bytes(buffer.map[:width * height * 4]))
    return TenBitFrame(width, height, words)
