"""An Xcursor theme file read by hand (the format libXcursor and wlroots load): its images by nominal size."""
import struct
from pathlib import Path

IMAGE = 0xfffd0002


def theme_cursor(theme, name):
    """The file of cursor `name` in `theme` under ~/.icons or /usr/share/icons, or None."""
    for folder in (Path.home() / ".icons", Path("/usr/share/icons")):
        path = folder / theme / "cursors" / name
        if path.exists():
            return path.resolve()
    return None


def nominal_sizes(path):
    data = path.read_bytes()
    _, _, _, count = struct.unpack_from("<4sIII", data, 0)
    return sorted({sub for kind, sub, _ in (struct.unpack_from("<III", data, 16 + 12 * i) for i in range(count))
                   if kind == IMAGE})


def best_size(path, size):
    """The nominal size a loader picks for `size`: the nearest the file has (the first on a tie)."""
    return min(nominal_sizes(path), key=lambda s: abs(s - size))


def image(path, nominal):
    """The first image of that nominal size: (width, height, hotspot x, hotspot y, premultiplied ARGB words)."""
    data = path.read_bytes()
    _, _, _, count = struct.unpack_from("<4sIII", data, 0)
    for i in range(count):
        kind, sub, position = struct.unpack_from("<III", data, 16 + 12 * i)
        if kind == IMAGE and sub == nominal:
            _, _, _, _, width, height, hot_x, hot_y, _ = struct.unpack_from("<9I", data, position)
            pixels = struct.unpack_from(f"<{width * height}I", data, position + 36)
            return width, height, hot_x, hot_y, pixels
    raise ValueError(f"{path} has no image of nominal size {nominal}")


def over(pixel, background):
    """A premultiplied ARGB word drawn over an opaque (r, g, b) background."""
    a, r, g, b = pixel >> 24, (pixel >> 16) & 0xff, (pixel >> 8) & 0xff, pixel & 0xff
    return tuple(round(c + bg * (255 - a) / 255) for c, bg in zip((r, g, b), background))


def drawn_exactly(shot, path, nominal, point, tolerance=2, background=None):
    """How many pixels of the cursor's image at `nominal`, with its hotspot on output pixel `point`, differ from the
    screenshot by more than `tolerance`, and how many of the ring of pixels just outside it are not background
    (by default the screenshot's corner pixel). Only the part on the screenshot counts: an image across an
    output's edge is checked up to it."""
    width, height, hot_x, hot_y, pixels = image(path, nominal)
    background = background or shot.at(0, 0)
    x0, y0 = point[0] - hot_x, point[1] - hot_y
    wrong = 0
    for y in range(height):
        for x in range(width):
            if not (0 <= x0 + x < shot.width and 0 <= y0 + y < shot.height):
                continue
            want = over(pixels[y * width + x], background)
            got = shot.at(x0 + x, y0 + y)
            wrong += any(abs(a - b) > tolerance for a, b in zip(want, got))
    ring = [(x0 + x, y0 - 1) for x in range(-1, width + 1)] + [(x0 + x, y0 + height) for x in range(-1, width + 1)]
    ring += [(x0 - 1, y0 + y) for y in range(height)] + [(x0 + width, y0 + y) for y in range(height)]
    ring = [(x, y) for x, y in ring if 0 <= x < shot.width and 0 <= y < shot.height]
    spill = sum(1 for x, y in ring if any(abs(a - b) > tolerance for a, b in zip(shot.at(x, y), background)))
    return wrong, spill


def drawn_near(shot, path, nominal, point, background=None):
    """The hotspot pixel, `point` or a pixel above or left of it, where the image is drawn exactly; else None. (An
    absolute pointer position can come out a hair under a whole pixel, which wlroots truncates.)"""
    for p in ((point[0], point[1]), (point[0] - 1, point[1]), (point[0], point[1] - 1), (point[0] - 1, point[1] - 1)):
        if drawn_exactly(shot, path, nominal, p, background=background) == (0, 0):
            return p
    return None
