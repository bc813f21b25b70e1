"""The compositors the benchmarks compare (kiln, weston 14 GL and pixman, sway 1.7) and starting one headless.

Peers run as `nobody` through setpriv when we are root (sway and weston refuse root), each in its own
XDG_RUNTIME_DIR owned by the user it runs as. `Running` starts one, times exec until `wayland-info` is answered, and
keeps the log for a failed row.
"""
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

SOCKET = "wayland-bench"


def as_user(user):
    """The setpriv prefix that runs a command as `user`, or nothing when we are not root."""
    if os.geteuid() != 0 or user is None:
        return []
    group = "nogroup" if user == "nobody" else user
    return ["setpriv", f"--reuid={user}", f"--regid={group}", "--clear-groups"]


def make_reachable(path):
    """Lets other users (the peers run as nobody) walk down to `path`: o+x on each parent directory."""
    if os.geteuid() != 0:
        return
    for p in Path(path).resolve().parents:
        if p == Path("/"):
            break
        os.chmod(p, os.stat(p).st_mode | 0o011)


def scratch_with_peer_cache(prefix):
    """A new scratch directory (the caller removes it) and, in it, the XDG_CACHE_HOME (Mesa's shader cache) of the
    peers and their clients, owned by the user they run as."""
    scratch = Path(tempfile.mkdtemp(prefix=prefix))
    os.chmod(scratch, 0o711)  # the peers' user reaches its cache below it
    peer_cache = scratch / "peer-cache"
    peer_cache.mkdir()
    if os.geteuid() == 0:
        shutil.chown(peer_cache, "nobody")
    return scratch, peer_cache


@dataclass
class Spec:
    """How to run one compositor: argv ({socket}, {runtime} are filled in), environment, files to write first."""
    name: str
    user: str | None
    argv: list
    env: dict = field(default_factory=dict)
    files: dict = field(default_factory=dict)
    placement: str = ""
    window_mover: str | None = None  # "sway": the runner moves each window itself through swaymsg
    output_size: tuple = (1920, 1080)  # the headless output's, for the runner's placement
    note: str = ""  # what a reader of its numbers must know

    def installed(self):
        return shutil.which(self.argv[0]) is not None or os.access(self.argv[0], os.X_OK)


def specs(kiln, size="1920x1080", refresh_hz=60, weston_shell="desktop"):
    """Every compositor by name. weston_shell "kiosk" makes every window fullscreen, "desktop" places them itself."""
    w, h = size.split("x")
    weston_ini = "[core]\nidle-time=0\n[shell]\npanel-position=none\nbackground-color=0xff202020\n"
    weston = ["weston", "--backend=headless", f"--width={w}", f"--height={h}", f"--refresh-rate={refresh_hz * 1000}",
              "--socket={socket}", "--idle-time=0", f"--shell={weston_shell}", "--config={runtime}/weston.ini"]
    # Defaults kept (repaint-window 7 ms), so weston runs as shipped; the note says what that costs headless.
    weston_note = ("weston's headless output reports each frame done 16 ms after its repaint, then waits for the next "
                   "predicted vblank less the 7 ms repaint window: about 39 Hz, not 60, and ~41 ms commit→present")
    weston_place = ("random: desktop-shell puts each window at a random spot of the output and weston offers no "
                    "way to set it, so weston's windows are NOT placed like kiln's and sway's (overlap varies)"
                    if weston_shell == "desktop" else "fullscreen (kiosk-shell)")
    sway_common = (f"xwayland disable\noutput HEADLESS-1 mode {w}x{h}@{refresh_hz}Hz\n"
                   "default_border none\ndefault_floating_border none\nfocus_on_window_activation none\n")
    sway_config = sway_common + "for_window [title=\".*\"] floating enable\n"
    sway_env = {"WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_HEADLESS_OUTPUTS": "1",
                "WLR_RENDERER": "pixman"}
    return {
        "kiln": Spec("kiln", None, [kiln, "--backend", "headless", "--headless-size", size, "--socket", "{socket}"],
                     placement="kiln's own: the first centred, then a cascade of 32 px steps that wraps inside the "
                               "output and skips taken spots", output_size=(int(w), int(h))),
        "weston-gl": Spec("weston-gl", "nobody", weston[:1] + ["--renderer=gl"] + weston[1:],
                          files={"weston.ini": weston_ini}, placement=weston_place, note=weston_note),
        "weston-pixman": Spec("weston-pixman", "nobody", weston[:1] + ["--renderer=pixman"] + weston[1:],
                              files={"weston.ini": weston_ini}, placement=weston_place, note=weston_note),
        "sway": Spec("sway", "nobody", ["sway", "-c", "{runtime}/sway.config"],
                     env=sway_env,
                     files={"sway.config": sway_config},
                     placement="kiln's placement, applied by the runner (floating, swaymsg move absolute position)",
                     output_size=(int(w), int(h)),
                     window_mover="sway",
                     note="sway 1.7 headless never answers wp_presentation feedback: latency and output Hz come "
                          "from the probe's frame callbacks"),
        # sway as it places windows itself (tiling: side by side, no overlap, each resized to its tile), the load an
        # outside measurement with sway's defaults sees; only with --only (OPT_IN).
        "sway-tiled": Spec("sway-tiled", "nobody", ["sway", "-c", "{runtime}/sway.config"],
                           env=sway_env, files={"sway.config": sway_common},
                           placement="sway's own tiling: windows side by side, none overlapping, each resized to its "
                                     "tile (the probe too), so NOT the load kiln and `sway` get",
                           output_size=(int(w), int(h)),
                           note="as sway, but tiled: compare it with `sway` to see what placement alone does"),
    }


# Compositors run only when named with --only.
OPT_IN = {"sway-tiled"}


class Running:
    """One compositor process, started by start(), stopped by stop() (also on leaving a with block)."""

    def __init__(self, spec, extra_args=(), timeout=30.0, cache_home=None):
        self.spec, self.extra_args, self.timeout = spec, list(extra_args), timeout
        self.proc = None
        self.ready_ms = None
        self.globals = ""
        self.error = None
        self.runtime = Path(tempfile.mkdtemp(prefix="kiln-bench-"))
        if spec.user and os.geteuid() == 0:
            shutil.chown(self.runtime, spec.user)
        os.chmod(self.runtime, 0o700)
        self.log_path = self.runtime / "compositor.log"
        self.env = dict(os.environ, XDG_RUNTIME_DIR=str(self.runtime), **spec.env)
        for var in ("WAYLAND_DISPLAY", "DISPLAY", "WAYLAND_SOCKET", "SWAYSOCK", "LD_PRELOAD"):
            self.env.pop(var, None)
        if spec.user and os.geteuid() == 0:
            # Our HOME is not theirs: Mesa's shader cache goes to `cache_home` (kept warm across runs by the caller)
            # or to the runtime dir, and goes with it.
            self.env.update(HOME=str(self.runtime), XDG_CACHE_HOME=str(cache_home or self.runtime / "cache"))
        self.client_env = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        self.cleanup()

    def user_prefix(self):
        return as_user(self.spec.user)

    def start(self):
        """Execs the compositor and waits for a wayland-info answer; False (with .error) when none comes."""
        for name, text in self.spec.files.items():
            (self.runtime / name).write_text(text)
        fill = {"{socket}": SOCKET, "{runtime}": str(self.runtime)}
        argv = []
        for a in self.spec.argv + self.extra_args:
            for k, v in fill.items():
                a = a.replace(k, v)
            argv.append(a)
        log = open(self.log_path, "wb")
        start = time.monotonic()
        self.proc = subprocess.Popen(self.user_prefix() + argv, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        log.close()
        client_env = dict(self.env)
        while time.monotonic() - start < self.timeout:
            sockets = [p.name for p in self.runtime.glob("wayland-*") if not p.name.endswith(".lock")]
            if sockets:
                client_env["WAYLAND_DISPLAY"] = sockets[0]
                info = subprocess.run(self.user_prefix() + ["wayland-info"], env=client_env, capture_output=True)
                if info.returncode == 0:
                    self.ready_ms = (time.monotonic() - start) * 1000
                    self.globals = info.stdout.decode(errors="replace")
                    self.client_env = client_env
                    return True
            if self.proc.poll() is not None:
                self.error = f"exited with status {self.proc.returncode} before answering wayland-info"
                return False
            time.sleep(0.005)
        self.error = f"no wayland-info answer within {self.timeout:.0f} s"
        return False

    def offers(self, interface):
        return f"'{interface}'" in self.globals  # wayland-info: interface: 'name', version: N, name: M

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def log_tail(self, lines=15):
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self):
        """SIGTERM, then SIGKILL after 5 s; returns the exit status (None if never started)."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def cleanup(self):
        shutil.rmtree(self.runtime, ignore_errors=True)
