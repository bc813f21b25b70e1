"""Where a cursor is drawn: the box of pixels near a point that differ from what is under the cursor."""


def drawn_near(shot, point, background, radius=64):
    """The box (x0, y0, x1, y1) of pixels within `radius` of `point` that differ from `background`, or None."""
    x0, y0 = max(0, point[0] - radius), max(0, point[1] - radius)
    x1, y1 = min(shot.width, point[0] + radius), min(shot.height, point[1] + radius)
    xs, ys = [], []
    for y in range(y0, y1):
        for x in range(x0, x1):
            if max(abs(a - b) for a, b in zip(shot.at(x, y), background)) > 8:
                xs.append(x)
                ys.append(y)
    return (min(xs), min(ys), max(xs) + 1, max(ys) + 1) if xs else None
