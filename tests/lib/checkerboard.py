"""A 1-px checkerboard for pixel tests: a client's shm buffer of it, and where and how exactly a screenshot shows it."""
import mmap
import os
import struct

A = 0xffff0000  # red
B = 0xff0000ff  # blue


def shm_buffer_of(conn, width, height, rows):
    """A wl_buffer (ARGB8888) holding `rows`, the buffer's bytes row after row."""
    shm = conn.bind("wl_shm", 1)
    size = width * height * 4
    fd = os.memfd_create("kiln-fractional-test", os.MFD_CLOEXEC)
    try:
        os.ftruncate(fd, size)
        with mmap.mmap(fd, size) as pixels:
            for row in rows:
                pixels.write(row)
        pool = conn.new_id("wl_shm_pool")
        conn.send(shm, 0, ("n", pool), ("i", size), fds=[fd])
    finally:
        os.close(fd)
    return conn.create("wl_buffer", pool, 0, ("i", 0), ("i", width), ("i", height), ("i", width * 4), ("u", 1))


def checkerboard(conn, width, height, phase=0, patch=None):
    """A wl_buffer whose pixel (x, y) is A where x + y + phase is even, else B; `patch` (x, y, w, h) is green."""
    even, odd = struct.pack("=II", A, B), struct.pack("=II", B, A)
    if phase % 2:
        even, odd = odd, even

    def row(y):
        line = ((even if y % 2 == 0 else odd) * (width // 2 + 1))[:width * 4]
        if patch and patch[1] <= y < patch[1] + patch[3]:
            line = line[:patch[0] * 4] + struct.pack("=I", 0xff00ff00) * patch[2] + line[(patch[0] + patch[2]) * 4:]
        return line

    return shm_buffer_of(conn, width, height, (row(y) for y in range(height)))


RED, BLUE = b"\xff\x00\x00", b"\x00\x00\xff"


def checkerboard_on_screen(shot, width, height):
    """Where the checkerboard's top-left pixel is, and how many of its pixels differ from the buffer's, exactly."""
    first = shot.pixels.find(RED)  # the first red pixel in raster order is the pattern's top-left one
    while first >= 0 and first % 3:
        first = shot.pixels.find(RED, first + 1)
    if first < 0:
        return None, None
    x0, y0 = (first // 3) % shot.width, (first // 3) // shot.width
    wrong = 0
    for y in range(height):
        want = ((RED + BLUE) if y % 2 == 0 else (BLUE + RED)) * (width // 2 + 1)
        row = (y0 + y) * shot.width + x0
        got = shot.pixels[row * 3:(row + min(width, shot.width - x0)) * 3] if y0 + y < shot.height else b""
        wrong += sum(1 for i in range(width) if got[i * 3:i * 3 + 3] != want[i * 3:i * 3 + 3])
    # Nothing of the pattern outside: the pixels right of and below it are not red or blue.
    right = shot.at(x0 + width, y0 + 1) if x0 + width < shot.width else (0, 0, 0)
    below = shot.at(x0 + 1, y0 + height) if y0 + height < shot.height else (0, 0, 0)
    spill = bytes(right) in (RED, BLUE) or bytes(below) in (RED, BLUE)
    return (x0, y0, x0 + width + spill, y0 + height + spill), wrong
