"""What kiln's server-side decoration (compositor/shell/server_decoration.*) looks like in a screenshot: its colours
and sizes, and checks of the pixels around a window's box (x0, y0, x1, y1; x1 and y1 exclusive)."""
from kiln_harness import rgb

ACTIVE, INACTIVE, CLOSE = rgb("285577"), rgb("4c4c4c"), rgb("d03c3c")  # ServerDecoration's colours
BORDER, TITLE = 4, 24  # ServerDecoration's sizes
BACKGROUND = (0, 0, 0)


def decorated_around(shot, box, colour):
    """Whether the title bar, both side borders and the bottom border around `box` are `colour`."""
    x0, y0, x1, y1 = box
    mx, my = (x0 + x1) // 2, (y0 + y1) // 2
    # The title bar's top rows (its text is below them), the side borders, the bottom border and a corner.
    points = [(mx, y0 - TITLE + 1), (x0 + 2, y0 - TITLE + 1), (x0 - 2, my), (x1 + 1, my), (mx, y1 + 1),
              (x0 - 2, y1 + 2)]
    return all(shot.at(x, y) == colour for x, y in points)


def bare(shot, box):
    """Whether everything just outside `box` is the (black) background."""
    x0, y0, x1, y1 = box
    mx, my = (x0 + x1) // 2, (y0 + y1) // 2
    points = [(mx, y0 - 2), (mx, y0 - TITLE + 2), (x0 - 2, my), (x1 + 1, my), (mx, y1 + 1)]
    return all(shot.at(x, y) == BACKGROUND for x, y in points)


def close_box_centre(box):
    """The close box: 12 pixels square, 4 in from the title bar's right end and from below its top edge."""
    _, y0, x1, _ = box
    return x1 - 4 - 6, y0 - TITLE + BORDER + 4 + 6


def title_pixels(shot, box):
    """How many light (text) pixels the title bar above `box` has, left of its close box."""
    x0, y0, x1, _ = box
    return sum(1 for y in range(y0 - TITLE + BORDER, y0) for x in range(x0, x1 - 20) if min(shot.at(x, y)) > 160)
