#!/usr/bin/env python3
"""xdg-toplevel-tag-v1 and kiln.ini's [rule] sections: a window whose client tags it "e-mail composer" before its
first commit opens on workspace 2, as the rule says: not on screen while workspace 1 is shown, told suspended, the
focused window keeps the keyboard; Super+2 (a virtual keyboard, as wtype sends it) shows it. An untagged window and
one with another tag open on workspace 1 as always. A rule naming an output puts its window on that output of two.
Bad [rule] lines each get one log line with their line number, are ignored, and kiln runs on (unit: config_test
checks the parsing)."""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, run_test, stat  # noqa: E402
from virtual_input import SUPER, VirtualKeyboard, array_u32  # noqa: E402
from wayland_wire import Connection, shm_buffer  # noqa: E402
from xdg_shell_client import box_on as box, wait_box  # noqa: E402

SUSPENDED = 9
RED, BLUE, GREEN = 0xffc02020, 0xff2040c0, 0xff20a040

CONFIG = """[rule mail]
tag=e-mail composer
workspace=2
[rule]
workspace=3
[rule broken]
tag=e-mail composer
sticky=yes
workspace=
[rule side]
tag=side panel
output=HEADLESS-2
"""


class Window:
    """An xdg_wm_base 7 toplevel of one colour, tagged (and described) before its first commit when `tag` is given."""

    def __init__(self, conn, color, tag=None, size=(200, 150)):
        self.conn, self.color, self.size = conn, color, size
        compositor = conn.bind("wl_compositor", 4)
        wm_base = conn.bind("xdg_wm_base", 7)
        self.surface = conn.create("wl_surface", compositor, 0)
        self.xdg_surface = conn.create("xdg_surface", wm_base, 2, ("o", self.surface))
        self.toplevel = conn.create("xdg_toplevel", self.xdg_surface, 1)
        if tag is not None:
            tags = conn.bind("xdg_toplevel_tag_manager_v1", 1)
            conn.send(tags, 1, ("o", self.toplevel), ("s", tag))                     # set_toplevel_tag
            conn.send(tags, 2, ("o", self.toplevel), ("s", f"{tag} (described)"))   # set_toplevel_description
            conn.send(tags, 0)                                                       # destroy: the tag stays
        conn.send(self.surface, 6)
        self.configure()
        buffer = shm_buffer(conn, *size, color)
        conn.send(self.surface, 1, ("o", buffer), ("i", 0), ("i", 0))
        conn.send(self.surface, 2, ("i", 0), ("i", 0), ("i", size[0]), ("i", size[1]))
        conn.send(self.surface, 6)
        conn.roundtrip()

    def configure(self):
        """Waits for the next configure, acks it; returns its states."""
        event = self.conn.dispatch_until(lambda e: e.obj == self.xdg_surface and e.opcode == 0)
        self.conn.events.remove(event)
        configures = self.conn.take(self.toplevel, 0)
        states = configures[-1].args("iia")[2] if configures else b""
        self.conn.send(self.xdg_surface, 4, ("u", event.args("u")[0]))
        return set(array_u32(states))

    def wait_state(self, present, state, what):
        for _ in range(12):
            if (state in self.configure()) == present:
                check(True, what)
                return
        check(False, what)


def rule_puts_tagged_window_on_workspace_2():
    with tempfile.TemporaryDirectory(prefix="kiln-toplevel-tag-") as tmp:
        config = Path(tmp) / "kiln.ini"
        config.write_text(CONFIG)
        with Kiln("--config", str(config)) as kiln, Connection(kiln.client_env) as conn, \
                Connection(kiln.client_env) as mail_conn:
            # Bad rules: one line each, naming the line, and kiln started regardless.
            log = kiln.logs()
            for words, line in (("matches no window", 4), ("unknown key 'sticky'", 8),
                                ("bad value '' for workspace", 9)):
                hits = [text for text in log.splitlines() if words in text]
                check(len(hits) == 1 and f"kiln.ini:{line}: " in hits[0],
                      f"a bad rule line is reported once, with its line {line}: {hits}")
            seat = conn.bind("wl_seat", 5)
            keyboard = conn.create("wl_keyboard", seat, 1)
            keymap = conn.dispatch_until(lambda e: e.obj == keyboard and e.opcode == 0)
            keys = VirtualKeyboard(conn, seat, keymap)

            blue = Window(conn, BLUE)
            conn.dispatch_until(lambda e: e.obj == keyboard and e.opcode == 1 and e.args("uo")[1] == blue.surface)
            wait_box(kiln, BLUE, "shown", "an untagged window opens on workspace 1, on screen")

            red = Window(mail_conn, RED, tag="e-mail composer")
            red.wait_state(True, SUSPENDED, "the window tagged 'e-mail composer' mapped and was told suspended: "
                           "it is on a hidden workspace")
            wait_box(kiln, RED, None, "it is not on screen while workspace 1 is shown")
            wait_box(kiln, BLUE, "shown", "the untagged window stays shown")
            conn.roundtrip()
            focus = [e.opcode for e in conn.events if e.obj == keyboard and e.opcode in (1, 2)]
            check(not focus or focus[-1] == 1, f"and has the keyboard (its enter/leave since: {focus})")
            green = Window(conn, GREEN, tag="settings", size=(120, 90))
            wait_box(kiln, GREEN, "shown", "a window with another tag opens on workspace 1 too")

            keys.press(SUPER, "2")
            wait_box(kiln, RED, "shown", "Super+2: workspace 2 shows the tagged window")
            wait_box(kiln, BLUE, None, "and workspace 1's untagged window is hidden")
            wait_box(kiln, GREEN, None, "and the one with another tag too")
            red.wait_state(False, SUSPENDED, "the tagged window's client is told it is no longer suspended")
            keys.press(SUPER, "1")
            wait_box(kiln, BLUE, "shown", "Super+1: the untagged window is back")
            wait_box(kiln, RED, None, "and the tagged one hidden again")
            check(kiln.alive(), "kiln runs on")
            status, stats = kiln.stop()
            check(stat(stats, "rules.applied") == 1, f"one window moved by a rule (stats rules.applied = "
                  f"{stat(stats, 'rules.applied')})")


def rule_puts_tagged_window_on_output():
    with tempfile.TemporaryDirectory(prefix="kiln-toplevel-tag-") as tmp:
        config = Path(tmp) / "kiln.ini"
        config.write_text("[output HEADLESS-1]\nposition=0,0\n[output HEADLESS-2]\nposition=640,0\n"
                          "[rule]\ntag=left\noutput=HEADLESS-1\n[rule]\ntag=right\noutput=HEADLESS-2\n")
        with Kiln("--outputs", "2", "--config", str(config)) as kiln, Connection(kiln.client_env) as conn:
            # Untagged, a window opens on the output under the pointer; each tagged one on its rule's output, so
            # one of the two is moved there whichever output the pointer is on.
            Window(conn, BLUE)
            wait_box(kiln, BLUE, "shown", "an untagged window opens")
            start = "HEADLESS-1" if box(kiln, BLUE, "HEADLESS-1") else "HEADLESS-2"
            check(True, f"on {start}, under the pointer")
            Window(conn, RED, tag="left")
            Window(conn, GREEN, tag="right", size=(120, 90))
            wait_box(kiln, RED, "shown", "the window tagged 'left' is on HEADLESS-1", output="HEADLESS-1")
            wait_box(kiln, RED, None, "and not on HEADLESS-2", output="HEADLESS-2")
            wait_box(kiln, GREEN, "shown", "the window tagged 'right' is on HEADLESS-2", output="HEADLESS-2")
            wait_box(kiln, GREEN, None, "and not on HEADLESS-1", output="HEADLESS-1")
            status, stats = kiln.stop()
            check(stat(stats, "rules.applied") == 1, f"one of them was moved (the other opened there anyway): "
                  f"rules.applied = {stat(stats, 'rules.applied')}")


def main():
    need("grim")
    rule_puts_tagged_window_on_workspace_2()
    rule_puts_tagged_window_on_output()


run_test(main)
