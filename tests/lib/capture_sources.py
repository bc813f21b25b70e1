"""ext-image-copy-capture for the tests: a source of kiln's first output or of a toplevel found by title
(ext-foreign-toplevel-list), and one whole frame of a source in a wl_shm buffer."""
import time

from kiln_harness import check
from wayland_wire import MappedShmBuffer


def output_source(conn):
    """An ext_image_capture_source_v1 of the first wl_output kiln announces."""
    outputs = conn.bind("ext_output_image_capture_source_manager_v1", 1)
    output = conn.bind("wl_output", 1)
    return conn.create("ext_image_capture_source_v1", outputs, 0, ("o", output))


def toplevel_source(conn, title, timeout=10):
    """An ext_image_capture_source_v1 of the toplevel titled `title`, once ext-foreign-toplevel-list lists it."""
    listing = conn.bind("ext_foreign_toplevel_list_v1", 1)
    sources = conn.bind("ext_foreign_toplevel_image_capture_source_manager_v1", 1)
    deadline, handles = time.monotonic() + timeout, {}
    while time.monotonic() < deadline:
        conn.roundtrip()
        for e in conn.take(listing, 0):  # toplevel
            handle = e.args("n")[0]
            conn.interfaces[handle] = "ext_foreign_toplevel_handle_v1"
            handles[handle] = None
        for handle in handles:
            for e in conn.take(handle, 2):  # title
                handles[handle] = e.args("s")[0]
        found = [h for h, t in handles.items() if t == title]
        if found:
            return conn.create("ext_image_capture_source_v1", sources, 0, ("o", found[0]))
        time.sleep(0.05)
    raise AssertionError(f"no toplevel titled {title!r}")


def one_frame(conn, source, shm_format=None, what="the capture frame"):
    """One whole frame of `source`: (width, height, the buffer's bytes, the wl_shm formats the session offered). With
    `shm_format` the buffer is of that format, which the session must offer."""
    manager = conn.bind("ext_image_copy_capture_manager_v1", 1)
    session = conn.create("ext_image_copy_capture_session_v1", manager, 0, ("o", source), ("u", 0))
    conn.dispatch_until(lambda e: e.obj == session and e.opcode == 4)  # done
    events = conn.take(session)
    width, height = next(e.args("uu") for e in events if e.opcode == 0)  # buffer_size
    offered = [e.args("u")[0] for e in events if e.opcode == 1]  # shm_format
    if shm_format is None:
        buffer = MappedShmBuffer(conn, width, height)
    else:
        check(shm_format in offered, f"the capture session offers wl_shm format {shm_format:#x} ({offered})")
        buffer = MappedShmBuffer(conn, width, height, shm_format=shm_format)
    frame = conn.create("ext_image_copy_capture_frame_v1", session, 0)
    conn.send(frame, 1, ("o", buffer.obj))  # attach_buffer
    conn.send(frame, 2, ("i", 0), ("i", 0), ("i", width), ("i", height))  # damage_buffer
    conn.send(frame, 3)  # capture
    end = conn.dispatch_until(lambda e: e.obj == frame and e.opcode in (3, 4))
    check(end.opcode == 3, f"{what} is ready")
    return width, height, bytes(buffer.map[:width * height * 4]), offered
