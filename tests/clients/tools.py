#!/usr/bin/env python3
"""The clients suite's command-line tools on headless kiln: wl-copy and wl-paste round-tripping text, wlr-randr and
kanshi changing the output's mode, scale and transform, wtype typing into foot (clients_harness.py runs them)."""
import subprocess
import time
from pathlib import Path

from clients_harness import HEIGHT, WIDTH, check, drawn_window, main, need_client, randr_listing, start


def clipboard(kiln, scratch):
    need_client("wl-copy", "wl-clipboard")
    text = "kiln clients ✓\nsecond line"
    copy = start(kiln, ["wl-copy", "--foreground"], stdin=subprocess.PIPE)
    copy.stdin.write(text.encode())
    copy.stdin.close()
    deadline = time.monotonic() + 20
    pasted = None
    while time.monotonic() < deadline:
        result = kiln.run(["wl-paste", "--no-newline"], timeout=10)
        pasted = result.stdout
        if result.returncode == 0 and pasted == text:
            break
        time.sleep(0.1)
    check(pasted == text, f"wl-copy, then wl-paste prints the same text ({pasted!r})")


def wlr_randr(kiln, scratch):
    need_client("wlr-randr", "wlr-randr")
    listing = randr_listing(kiln)
    check("HEADLESS-1" in listing and f"{WIDTH}x{HEIGHT} px" in listing,
          f"wlr-randr lists HEADLESS-1 at {WIDTH}x{HEIGHT}")
    result = kiln.run(["wlr-randr", "--output", "HEADLESS-1", "--custom-mode", "1024x768", "--scale", "2"])
    check(result.returncode == 0, f"wlr-randr --custom-mode 1024x768 --scale 2 succeeds ({result.stdout.strip()})")
    listing = randr_listing(kiln)
    check("1024x768 px" in listing and "Scale: 2.0" in listing, "and lists the new mode and scale")
    shot = kiln.wait_for(lambda: (s := kiln.screenshot()) and (s.width, s.height) == (1024, 768) and s,
                         "a 1024x768 screenshot")
    check(True, f"the output is drawn at its new size ({shot.width}x{shot.height})")


# kanshi 1.3 sets only modes an output lists, and a headless output lists just its current one: the profile turns
# and scales it instead.
KANSHI_CONFIG = """profile kiln-test {
    output HEADLESS-1 enable transform 90 scale 2 position 0,0
}
"""


def kanshi(kiln, scratch):
    need_client("kanshi", "kanshi")
    need_client("wlr-randr", "wlr-randr")
    config = Path(scratch) / "kanshi.conf"
    config.write_text(KANSHI_CONFIG)
    start(kiln, ["kanshi", "-c", str(config)])

    def applied():
        listing = randr_listing(kiln)
        return "Transform: 90" in listing and "Scale: 2.0" in listing
    kiln.wait_for(applied, "kanshi to apply its profile", timeout=20, interval=0.3)
    check(True, "kanshi applied the profile: wlr-randr lists HEADLESS-1 turned 90 degrees at scale 2")
    shot = kiln.wait_for(lambda: (s := kiln.screenshot()) and (s.width, s.height) == (HEIGHT, WIDTH) and s,
                         f"a {HEIGHT}x{WIDTH} screenshot")
    check(True, f"the output is drawn turned ({shot.width}x{shot.height})")


def wtype(kiln, scratch):
    need_client("wtype", "wtype")
    need_client("foot", "foot")
    typed = Path(scratch) / "typed"
    start(kiln, ["foot", "sh", "-c", 'IFS= read -r line; printf "%s" "$line" > "$0.part"; mv "$0.part" "$0"',
                str(typed)])
    drawn_window(kiln, "foot's window (focused when it maps)", min_colors=2)
    result = kiln.run(["wtype", "kiln typed this", "-k", "Return"])
    check(result.returncode == 0, f"wtype exits 0 ({result.stdout.strip()})")
    kiln.wait_for(typed.exists, "the line typed into foot", timeout=20)
    check(typed.read_text() == "kiln typed this", f"wtype's keys arrived in foot ({typed.read_text()!r})")


CASES = {f.__name__: f for f in (clipboard, wlr_randr, kanshi, wtype)}


if __name__ == "__main__":
    main(CASES)
