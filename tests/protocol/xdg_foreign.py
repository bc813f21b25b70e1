#!/usr/bin/env python3
"""xdg-foreign v1 and v2 on headless kiln (kiln's own): one client exports its window as a handle, another imports
it and parents its own window to it; a bad handle, the export ending, the parent window or the importing client
going each end imports with `destroyed`, never a crash; non-toplevel surfaces are protocol errors."""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, run_test  # noqa: E402
from wayland_wire import Connection, ProtocolError, Toplevel  # noqa: E402

GLOBALS = ["zxdg_exporter_v1", "zxdg_importer_v1", "zxdg_exporter_v2", "zxdg_importer_v2"]


def export(conn, window, version=2):
    exporter = conn.bind(f"zxdg_exporter_v{version}", 1)
    exported = conn.create(f"zxdg_exported_v{version}", exporter, 1, ("o", window.surface))  # export(_toplevel)
    handle = conn.dispatch_until(lambda e: e.obj == exported and e.opcode == 0).args("s")[0]
    return exported, handle


def import_handle(conn, handle, version=2):
    importer = conn.bind(f"zxdg_importer_v{version}", 1)
    return conn.create(f"zxdg_imported_v{version}", importer, 1, ("s", handle))  # import(_toplevel)


def destroyed(conn, imported):
    conn.roundtrip()
    return any(e.obj == imported and e.opcode == 0 for e in conn.events)


def mapped_window(conn, title):
    window = Toplevel(conn, title)
    window.commit()
    window.map(100, 80)
    return window


def expect_error(kiln, what, steps):
    with Connection(kiln.client_env) as conn:
        try:
            steps(conn)
            conn.roundtrip(timeout=5)
        except ProtocolError as error:
            check("error" in str(error) and ": 0 " in str(error), f"{what}: {error}")
            return
    raise AssertionError(f"{what}: no protocol error")


def main():
    with Kiln() as kiln:
        with Connection(kiln.client_env) as a, Connection(kiln.client_env) as b:
            for name in GLOBALS:
                check(name in a.globals, f"{name} is offered")

            parent = mapped_window(a, "parent")
            exported, handle = export(a, parent)
            check(re.fullmatch(r"[0-9a-f]{32}", handle) is not None, f"exporting a toplevel gives a handle ({handle})")
            _, handle_v1 = export(a, parent, version=1)
            check(handle_v1 != handle, "each export has its own handle")

            child = mapped_window(b, "child")
            imported = import_handle(b, handle)
            b.send(imported, 1, ("o", child.surface))  # set_parent_of
            check(not destroyed(b, imported), "another client imports it and parents its window to it")
            imported_v1 = import_handle(b, handle, version=1)
            b.send(imported_v1, 1, ("o", child.surface))
            check(not destroyed(b, imported_v1), "a v2 handle imports through v1 too")
            imported_v1_own = import_handle(b, handle_v1, version=1)
            check(not destroyed(b, imported_v1_own), "and a v1 handle through v1")

            bogus = import_handle(b, "not-a-handle")
            check(destroyed(b, bogus), "a handle nobody exported is destroyed at once")

            a.send(exported, 0)  # the v2 export ends
            a.roundtrip()
            check(destroyed(b, imported) and destroyed(b, imported_v1),
                  "ending an export destroys its imports, whatever their version")
            check(not destroyed(b, imported_v1_own), "imports of another export of that window are untouched")

            # The parent window goes while the child is parented to it.
            b.send(imported_v1_own, 1, ("o", child.surface))
            b.roundtrip()
            a.send(parent.toplevel, 0)
            a.send(parent.xdg_surface, 0)
            a.send(parent.surface, 0)
            a.roundtrip()
            check(destroyed(b, imported_v1_own), "the exported window going destroys the imports of it")
            check(kiln.alive(), "kiln is unharmed")

            # The child goes before its import, then the import.
            other = mapped_window(a, "second parent")
            _, handle = export(a, other)
            imported = import_handle(b, handle)
            b.send(imported, 1, ("o", child.surface))
            b.roundtrip()
            b.send(child.toplevel, 0)
            b.send(child.xdg_surface, 0)
            b.send(child.surface, 0)
            b.send(imported, 0)  # destroy
            b.roundtrip()
            check(True, "a child window destroyed before its import, then the import: no error")

            # A child parented before its first commit, and the importing client leaving with it.
            early = Toplevel(b, "early child")
            imported = import_handle(b, handle)
            b.send(imported, 1, ("o", early.surface))
            b.roundtrip()
            check(not destroyed(b, imported), "a window not yet committed can be parented")
        check(kiln.alive(), "both clients leaving with exports and imports alive leaves kiln running")

        with Connection(kiln.client_env) as a, Connection(kiln.client_env) as b:
            parent = mapped_window(a, "parent")
            _, handle = export(a, parent)
            imported = import_handle(b, handle)
            child = mapped_window(b, "child")
            b.send(imported, 1, ("o", child.surface))
            b.roundtrip()
            a.close()
            b.dispatch_until(lambda e: e.obj == imported and e.opcode == 0)
            check(True, "the exporting client disconnecting destroys the imports of its window")

        def import_onto_bare_surface(conn):
            compositor = conn.bind("wl_compositor", 4)
            surface = conn.create("wl_surface", compositor, 0)
            imported = import_handle(conn, "whatever")
            conn.send(imported, 1, ("o", surface))

        def export_bare_surface(conn):
            compositor = conn.bind("wl_compositor", 4)
            surface = conn.create("wl_surface", compositor, 0)
            exporter = conn.bind("zxdg_exporter_v2", 1)
            conn.create("zxdg_exported_v2", exporter, 1, ("o", surface))

        expect_error(kiln, "set_parent_of a surface that is no toplevel is invalid_surface", import_onto_bare_surface)
        expect_error(kiln, "exporting a surface that is no toplevel is invalid_surface", export_bare_surface)
        status, _ = kiln.stop()
        check(status == 0, f"kiln exits cleanly (status {status})")


run_test(main)
