#!/usr/bin/env python3
"""security-context-v1 on headless kiln, with the test as the sandbox engine (as Flatpak does it): a client that
connects through the context's socket sees none of the privileged globals (nor layer-shell, shortcuts-inhibit and
xdg-output, as on sway), cannot bind them by name, and the error for that names nothing hidden; its process being a
kiln startup command does not make it trusted; the same client connected directly sees them (unless --restrict);
kiln.ini's allow-sandboxed grants one app more, but a context never gives more than the client that made it has (an
untrusted client naming a granted app in its own context cannot capture the screen, a startup command's context
can); the socket keeps accepting after the engine's own connection ends and stops once close_fd hangs up; every
protocol error, each ending only its client."""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LIB = Path(__file__).resolve().parents[1] / "lib"
sys.path.insert(0, str(LIB))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402
from wayland_wire import Connection, expect_protocol_error  # noqa: E402

MANAGER = "wp_security_context_manager_v1"
# Every global kiln offers that reads the screen or the input, injects input or changes the whole session, by the
# name kiln.ini's allow-sandboxed grants it with.
PRIVILEGED = {
    "zwlr_screencopy_manager_v1": "screencopy",
    "zwlr_export_dmabuf_manager_v1": "export-dmabuf",
    "zwp_virtual_keyboard_manager_v1": "virtual-keyboard",
    "zwlr_virtual_pointer_manager_v1": "virtual-pointer",
    "zwp_input_method_manager_v2": "input-method",
    "zwlr_data_control_manager_v1": "data-control",
    "zwlr_output_manager_v1": "output-management",
    "zwlr_output_power_manager_v1": "output-power",
    "zwlr_gamma_control_manager_v1": "gamma-control",
    "zwlr_input_inhibit_manager_v1": "input-inhibit",
    "ext_session_lock_manager_v1": "session-lock",
    "zwlr_foreign_toplevel_manager_v1": "foreign-toplevel-management",
    MANAGER: "security-context",
    "ext_image_copy_capture_manager_v1": "image-copy-capture",
    "ext_output_image_capture_source_manager_v1": "image-copy-capture",
    "ext_foreign_toplevel_image_capture_source_manager_v1": "image-copy-capture",
    # What sway's security filter hides too: an overlay layer surface with exclusive keyboard interactivity takes
    # every key, a shortcuts inhibitor the user's way out, and xdg-output says where every output lies.
    "zwlr_layer_shell_v1": "layer-shell",
    "zwp_keyboard_shortcuts_inhibit_manager_v1": "keyboard-shortcuts-inhibit",
    "zxdg_output_manager_v1": "xdg-output",
    # What bars read: which workspaces each output has and which it shows (issue 32).
    "ext_workspace_manager_v1": "ext-workspace",
}
CAPTURE = ["zwlr_screencopy_manager_v1", "ext_image_copy_capture_manager_v1",
           "ext_output_image_capture_source_manager_v1", "ext_foreign_toplevel_image_capture_source_manager_v1"]
# Privileged protocols kiln does not offer yet (issue 21): once offered, they must be hidden from sandboxes too.
PRIVILEGED_LATER = ["ext_data_control_manager_v1", "ext_foreign_toplevel_list_v1", "ext_transient_seat_manager_v1"]
ORDINARY = ["wl_compositor", "wl_shm", "wl_seat", "xdg_wm_base", "wl_output", "ext_idle_notifier_v1",
            "wp_color_manager_v1"]
# wp_security_context_manager_v1 errors, then wp_security_context_v1's.
INVALID_LISTEN_FD, NESTED = 1, 2
ALREADY_USED, ALREADY_SET, INVALID_METADATA = 1, 2, 3


class Sandbox:
    """A security context the engine connection `engine` commits, listening at `directory`/`name`."""

    def __init__(self, engine, directory, name, app_id="org.example.App", commit=True):
        self.directory, self.name = Path(directory), name
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(self.directory / name))
        self.listener.listen()
        close_read, self.close_write = os.pipe()
        self.engine = engine
        manager = engine.bind(MANAGER, 1)
        self.context = engine.new_id("wp_security_context_v1")
        engine.send(manager, 1, ("n", self.context), fds=[self.listener.fileno(), close_read])
        engine.send(self.context, 1, ("s", "org.example.sandbox"))
        engine.send(self.context, 2, ("s", app_id))
        engine.send(self.context, 3, ("s", f"{name}-instance"))
        if commit:
            engine.send(self.context, 4)
        engine.roundtrip()
        # As Flatpak does, the engine keeps only the close pipe's writing end: kiln holds the socket now.
        self.listener.close()
        os.close(close_read)

    def env(self):
        return {"XDG_RUNTIME_DIR": str(self.directory), "WAYLAND_DISPLAY": self.name}

    def close(self):
        """Hangs up close_fd: kiln stops accepting."""
        if self.close_write >= 0:
            os.close(self.close_write)
            self.close_write = -1


def accepts(path):
    """Whether a client connecting at `path` gets a registry answered (False: refused or closed unanswered)."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(2)
    try:
        probe.connect(str(path))
        # wl_display.sync (new id 2): the answer is wl_callback.done on object 2.
        probe.sendall((1).to_bytes(4, sys.byteorder) + ((12 << 16) | 0).to_bytes(4, sys.byteorder) +
                      (2).to_bytes(4, sys.byteorder))
        return len(probe.recv(64)) > 0
    except OSError:
        return False
    finally:
        probe.close()


def hidden_ones(globals_):
    return sorted(set(PRIVILEGED) & set(globals_))


def sandboxed_vs_direct(scratch):
    need("wayland-info")
    with Kiln() as kiln, Connection(kiln.client_env) as direct:
        missing = sorted(set(PRIVILEGED) - set(direct.globals))
        check(not missing, f"a client connected directly sees every privileged global (missing: {missing})")
        sandbox = Sandbox(direct, scratch, "sandbox-a")
        with Connection(sandbox.env()) as boxed:
            check(not hidden_ones(boxed.globals), f"a sandboxed client sees no privileged global "
                  f"(seen: {hidden_ones(boxed.globals)})")
            later = [name for name in PRIVILEGED_LATER if name in direct.globals and name in boxed.globals]
            check(not later, f"nor the privileged protocols built since (seen: {later})")
            check(all(name in boxed.globals for name in ORDINARY), f"it sees the ordinary ones ({ORDINARY})")

            # Binding a hidden global by the name a direct client was told: libwayland's invalid-object error, word
            # for word what a name no global has gets, whatever interface and version the client guesses. (An
            # overlay layer surface cannot even be made, let alone take the keyboard.)
            unknown = max(name for name, _ in direct.globals.values()) + 1000
            for interface in sorted(PRIVILEGED):
                name, version = direct.globals[interface]
                for asked, asked_version in ((interface, 1), ("wl_compositor", 1), (interface, version + 1)):
                    errors = []
                    for bound in (name, unknown):
                        with Connection(sandbox.env()) as prober:
                            obj = prober.new_id(asked)
                            prober.send(prober.registry, 0, ("u", bound), ("s", asked), ("u", asked_version),
                                        ("n", obj))
                            errors.append(str(expect_protocol_error(prober)).replace(f"({bound})", "(NAME)"))
                    hidden, nonexistent = errors
                    check("invalid global" in hidden and "wl_registry" in hidden and
                          (asked == interface or interface not in hidden) and hidden == nonexistent,
                          f"binding {interface}'s name from the sandbox as {asked} v{asked_version} is the error a "
                          f"name no global has gets, naming nothing hidden ({hidden}; unknown name: {nonexistent})")

            # wayland-info, a client no one here wrote, through the sandbox.
            result = kiln.run(["wayland-info"], env=sandbox.env())
            listed = {line.split("'")[1] for line in result.stdout.splitlines() if line.startswith("interface: '")}
            check(result.returncode == 0 and "wl_compositor" in listed and not hidden_ones(listed),
                  f"wayland-info through the sandbox lists no privileged global ({hidden_ones(listed)})")

            # The engine's own connection ends: the context keeps accepting (the spec requires it).
            engine_socket = sandbox.directory / sandbox.name
            direct.close()
            with Connection(kiln.client_env) as again:
                again.roundtrip()
            check(accepts(engine_socket), "the sandbox socket still accepts after the engine disconnected")

            # close_fd hangs up: kiln closes the socket; clients accepted before it stay.
            sandbox.close()
            kiln.wait_for(lambda: not accepts(engine_socket), "kiln to stop accepting on the sandbox socket")
            check(True, "once close_fd hangs up the sandbox socket refuses connections")
            boxed.roundtrip()
            check(not hidden_ones(boxed.globals), "a client accepted before the hangup is still served, sandboxed")
        check(kiln.alive(), "kiln is still running")


PROBE = """
import os, socket, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from wayland_wire import Connection, shm_buffer
scratch = Path(sys.argv[2])
ready = scratch / "sandbox-ready"
while not ready.exists():
    time.sleep(0.05)

def capture(conn):
    # One wlr-screencopy frame of the whole output into shm: 'ready', 'failed', or why it could not start.
    if "zwlr_screencopy_manager_v1" not in conn.globals:
        return "not-offered"
    manager = conn.bind("zwlr_screencopy_manager_v1", 1)
    frame = conn.create("zwlr_screencopy_frame_v1", manager, 0, ("i", 0), ("o", conn.bind("wl_output", 1)))
    fmt, width, height, stride = conn.dispatch_until(lambda e: e.obj == frame and e.opcode == 0).args("uuuu")
    conn.send(frame, 0, ("o", shm_buffer(conn, width, height, 0, shm_format=fmt)))
    done = conn.dispatch_until(lambda e: e.obj == frame and e.opcode in (2, 3))
    return "ready" if done.opcode == 2 else "failed"

with Connection(dict(os.environ)) as direct, \\
        Connection(dict(os.environ, XDG_RUNTIME_DIR=sys.argv[2], WAYLAND_DISPLAY="sandbox-s")) as boxed:
    # This startup command is the engine of a context for the granted app, as Flatpak started from it would be.
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(scratch / "sandbox-t"))
    listener.listen()
    close_read, close_write = os.pipe()
    manager = direct.bind("wp_security_context_manager_v1", 1)
    context = direct.new_id("wp_security_context_v1")
    direct.send(manager, 1, ("n", context), fds=[listener.fileno(), close_read])
    direct.send(context, 2, ("s", "org.example.Granted"))
    direct.send(context, 4)
    direct.roundtrip()
    listener.close()
    os.close(close_read)
    with Connection(dict(os.environ, XDG_RUNTIME_DIR=sys.argv[2], WAYLAND_DISPLAY="sandbox-t")) as trusted:
        lines = [" ".join(f"{interface}={name}" for interface, (name, _) in direct.globals.items()),
                 " ".join(boxed.globals), " ".join(trusted.globals), capture(trusted)]
    out = scratch / "probe"
    (out.with_suffix(".part")).write_text("\\n".join(lines) + "\\n")
    (out.with_suffix(".part")).rename(out)
"""
GRANTED = "org.example.Granted:screencopy,image-copy-capture,security-context,layer-shell"


def restricted_and_granted(scratch):
    ini = Path(scratch) / "kiln.ini"
    ini.write_text(f"[security]\nrestrict=screencopy\nrestrict=image-copy-capture\nallow-sandboxed={GRANTED}\n")
    probe = Path(scratch) / "probe.py"
    probe.write_text(PROBE)
    with Kiln("--config", str(ini), "-s", f"python3 {probe} {LIB} {scratch}") as kiln, \
            Connection(kiln.client_env) as direct:
        check(not set(CAPTURE) & set(direct.globals),
              "under [security] restrict=screencopy and image-copy-capture a client kiln did not start sees neither")
        Sandbox(direct, scratch, "sandbox-s")  # the startup command connects through this one
        (Path(scratch) / "sandbox-ready").touch()

        # Issue 29: a client kiln did not start names the granted app in a context of its own. The app id is
        # whatever it says, so the grant gives it only what it could bind itself: not the restricted capture.
        claimed = Sandbox(direct, scratch, "sandbox-claimed", app_id="org.example.Granted")
        other = Sandbox(direct, scratch, "sandbox-other", app_id="org.example.Other")
        with Connection(claimed.env()) as boxed:
            seen = hidden_ones(boxed.globals)
            check(seen == sorted([MANAGER, "zwlr_layer_shell_v1"]),
                  f"a context an untrusted client made for the granted app gets only the granted protocols its maker "
                  f"could bind itself (security-context, layer-shell), no capture (seen: {seen})")
        with Connection(other.env()) as boxed:
            check(not hidden_ones(boxed.globals), f"another app in a sandbox still sees none "
                  f"({hidden_ones(boxed.globals)})")

        result = Path(scratch) / "probe"
        kiln.wait_for(result.exists, "the startup command's probe")
        direct_seen, boxed_seen, trusted_seen, captured = result.read_text().splitlines()
        names = dict((pair.split("=")[0], int(pair.split("=")[1])) for pair in direct_seen.split())
        boxed_seen, trusted_seen = boxed_seen.split(), trusted_seen.split()
        check(set(CAPTURE) <= set(names), "a startup command connected directly is trusted by its process and "
              "sees the restricted capture protocols")
        # By the names the startup command was told, the claimed context's client cannot bind them either.
        for interface in CAPTURE:
            with Connection(claimed.env()) as boxed:
                obj = boxed.new_id(interface)
                boxed.send(boxed.registry, 0, ("u", names[interface]), ("s", interface), ("u", 1), ("n", obj))
                error = str(expect_protocol_error(boxed))
                check("invalid global" in error, f"nor bind {interface} by its name ({error})")
        check(not hidden_ones(boxed_seen), f"the same startup command through a security context is sandboxed: its "
              f"context, not its pid, answers ({hidden_ones(boxed_seen)})")
        seen = hidden_ones(trusted_seen)
        check(seen == sorted(CAPTURE + [MANAGER, "zwlr_layer_shell_v1"]),
              f"a context the startup command made for the granted app gets every granted protocol, the restricted "
              f"capture too, and no more (seen: {seen})")
        check(captured == "ready", f"a client in that context captures the screen with screencopy ({captured})")

        # Nested: a granted sandboxed client may see the manager, but creating a context from it is an error.
        with Connection(claimed.env()) as boxed:
            try:
                Sandbox(boxed, scratch, "sandbox-nested")
                error = "no error"
            except AssertionError as raised:
                error = str(raised)
            check(f"{MANAGER}" in error and f": {NESTED} " in error,
                  f"a sandboxed client creating a security context gets the nested error ({error})")
        check(kiln.alive(), "kiln survives")


def protocol_errors(scratch):
    with Kiln() as kiln:
        def expect(what, interface, code, send):
            with Connection(kiln.client_env) as conn:
                send(conn)
                error = expect_protocol_error(conn)
                check(f"{interface}@" in str(error) and f": {code} " in str(error), f"{what}: error {code} ({error})")

        def listener_fd(conn, fd):
            r, w = os.pipe()
            manager = conn.bind(MANAGER, 1)
            conn.send(manager, 1, ("n", conn.new_id("wp_security_context_v1")), fds=[fd, r])
            os.close(r)
            os.close(w)

        unbound = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        expect("a socket that is not listening", MANAGER, INVALID_LISTEN_FD, lambda c: listener_fd(c, unbound.fileno()))
        unbound.close()
        r, w = os.pipe()
        expect("a pipe as listen_fd", MANAGER, INVALID_LISTEN_FD, lambda c: listener_fd(c, r))
        os.close(r)
        os.close(w)

        counter = iter(range(100))

        def context_then(requests):
            def send(conn):
                sandbox = Sandbox(conn, scratch, f"sandbox-e{next(counter)}", commit=False)
                for opcode, *args in requests:
                    conn.send(sandbox.context, opcode, *args)
                sandbox.close()
            return send

        CTX = "wp_security_context_v1"
        expect("set_sandbox_engine twice", CTX, ALREADY_SET, context_then([(1, ("s", "org.example.other"))]))
        expect("set_app_id twice", CTX, ALREADY_SET, context_then([(2, ("s", "org.example.Other"))]))
        expect("set_instance_id twice", CTX, ALREADY_SET, context_then([(3, ("s", "2"))]))
        expect("set_app_id after commit", CTX, ALREADY_USED, context_then([(4,), (2, ("s", "x"))]))
        expect("commit twice", CTX, ALREADY_USED, context_then([(4,), (4,)]))

        def empty_engine(conn):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.bind(str(Path(scratch) / "sandbox-empty"))
            sock.listen()
            r, w = os.pipe()
            manager = conn.bind(MANAGER, 1)
            context = conn.new_id("wp_security_context_v1")
            conn.send(manager, 1, ("n", context), fds=[sock.fileno(), r])
            conn.send(context, 1, ("s", ""))
            for fd in (r, w):
                os.close(fd)
            sock.close()
        expect("an empty sandbox engine name", CTX, INVALID_METADATA, empty_engine)

        # Destroying a context before commit is fine, and so is a context that never gets a client.
        with Connection(kiln.client_env) as conn:
            sandbox = Sandbox(conn, scratch, "sandbox-destroyed", commit=False)
            conn.send(sandbox.context, 0)
            conn.roundtrip()
            check(not accepts(Path(scratch) / "sandbox-destroyed"), "a context destroyed before commit never accepts")
            sandbox.close()
        check(kiln.alive(), "kiln survives every error")


def main():
    scratch = tempfile.mkdtemp(prefix="kiln-sandbox-")
    os.chmod(scratch, 0o700)
    try:
        protocol_errors(scratch)
        sandboxed_vs_direct(scratch)
        restricted_and_granted(scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


run_test(main)
