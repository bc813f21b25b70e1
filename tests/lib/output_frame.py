"""One ext-image-copy-capture frame of kiln's first output (kiln's own composition for a capture, not the output's
frame that grim copies), as a Screenshot."""
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
