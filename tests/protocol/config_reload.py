#!/usr/bin/env python3
"""SIGHUP reads kiln.ini again with the client still connected: a new [keyboard] layout arrives as a new
wl_keyboard.keymap, new [bindings] act and removed ones pass the key to the window, [output NAME] scale and transform
and mode reach wl_output; a bad line in the new file is reported and the rest applies; an unreadable file changes nothing."""
import mmap
import os
import signal
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, run_test  # noqa: E402
from wayland_wire import Connection, Toplevel  # noqa: E402

SUPER = 64
KEY_T, KEY_X = 20, 45


def keymap_text(event):
    _, size = event.args("uu")
    fd = event.fds[0]
    with mmap.mmap(fd, size, prot=mmap.PROT_READ) as data:
        return data[:].split(b"\0", 1)[0].decode(errors="replace")


def is_german(text):
    """A German layout has ü where a US one has [ (xkbcommon's serialized keymap names no layout)."""
    return "udiaeresis" in text


def main():
    with tempfile.TemporaryDirectory(prefix="kiln-reload-") as tmp:
        tmp = Path(tmp)
        config = tmp / "kiln.ini"
        before, after = tmp / "old-binding", tmp / "new-binding"
        config.write_text("[keyboard]\nkeymap_layout=us\n"
                          f"[bindings]\ncommand=Super+t touch {before}\n"
                          "[output HEADLESS-1]\nmode=640x480\nscale=1\n")
        with Kiln("--config", str(config), size=None) as kiln, Connection(kiln.client_env) as conn:
            seat = conn.bind("wl_seat", 5)
            keyboard = conn.create("wl_keyboard", seat, 1)
            output = conn.bind("wl_output", 2)
            window = Toplevel(conn, "reload test")
            window.commit()
            window.map(200, 150)
            conn.dispatch_until(lambda e: e.obj == keyboard and e.opcode == 1)
            first = conn.take(keyboard, 0)[-1]
            check(not is_german(keymap_text(first)), "the first keymap is us (no ü)")
            os.close(first.fds[0])
            check([e.args("i")[0] for e in conn.take(output) if e.opcode == 3] == [1], "wl_output starts at scale 1")

            # Start of the reload: a new layout, a new binding in place of the old, a new scale and transform,
            # and one bad line that is reported and skipped.
            config.write_text("[keyboard]\nkeymap_layout=de\n"
                              f"[bindings]\nno-such-action=Super+Z\ncommand=Super+x touch {after}\n"
                              "[output HEADLESS-1]\nmode=800x600\nscale=2\ntransform=90\n")
            kiln.proc.send_signal(signal.SIGHUP)
            event = conn.dispatch_until(lambda e: e.obj == keyboard and e.opcode == 0)
            text = keymap_text(event)
            check(is_german(text), "after SIGHUP the client gets a new keymap, with layout de (ü)")
            conn.dispatch_until(lambda e: e.obj == output and e.opcode == 2)  # wl_output.done: all changes sent
            scale = [e for e in conn.events if e.obj == output and e.opcode == 3][-1].args("i")[0]
            check(scale == 2, f"wl_output.scale is 2 after the reload (got {scale})")
            modes = [e.args("uiii")[1:3] for e in conn.events if e.obj == output and e.opcode == 1]
            check(modes[-1] == [800, 600], f"wl_output.mode is 800x600 after the reload (modes {modes})")
            geometry = [e for e in conn.events if e.obj == output and e.opcode == 0][-1]
            transform = geometry.args("iiiiissi")[7]
            check(transform == 1, f"wl_output.geometry's transform is 90 (1) after the reload (got {transform})")
            kiln.wait_for(lambda: "kiln.ini:4: unknown key 'no-such-action' in [bindings]" in kiln.logs(),
                          "the bad line to be reported")
            check(True, "the bad line is reported with its file and line")

            manager = conn.bind("zwp_virtual_keyboard_manager_v1", 1)
            virtual = conn.new_id("zwp_virtual_keyboard_v1")
            conn.send(manager, 0, ("o", seat), ("n", virtual))
            conn.send(virtual, 0, ("u", 1), ("u", event.args("uu")[1]), fds=[event.fds[0]])

            def press(key):
                conn.send(virtual, 2, ("u", SUPER), ("u", 0), ("u", 0), ("u", 0))
                conn.send(virtual, 1, ("u", 1), ("u", key), ("u", 1))
                conn.send(virtual, 1, ("u", 2), ("u", key), ("u", 0))
                conn.send(virtual, 2, ("u", 0), ("u", 0), ("u", 0), ("u", 0))
                conn.roundtrip()

            press(KEY_X)
            kiln.wait_for(lambda: after.exists(), "the new Super+X binding to run")
            check(True, "the binding added by the reload acts")
            press(KEY_T)
            conn.dispatch_until(lambda e: e.obj == keyboard and e.opcode == 3 and e.args("uuuu")[2] == KEY_T)
            check(not before.exists(), "the binding the reload removed passes Super+T to the window")

            # An unreadable file keeps what runs: Super+X still acts.
            config.unlink()
            config.mkdir()
            kiln.proc.send_signal(signal.SIGHUP)
            kiln.wait_for(lambda: "kiln.ini not reloaded" in kiln.logs(), "kiln to refuse the unreadable file")
            after.unlink()
            press(KEY_X)
            kiln.wait_for(lambda: after.exists(), "Super+X to act after a failed reload")
            check(True, "a reload of a directory in place of the file keeps the running settings")
            check(kiln.alive(), "kiln runs on")
            for queued in conn.events:
                for fd in queued.fds:
                    os.close(fd)
                queued.fds = []
            status, _ = kiln.stop()
            check(status == 0, f"kiln exits 0 on SIGTERM (got {status})")


run_test(main)
