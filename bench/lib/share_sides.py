"""The two sides bench/share_cost.py compares: headless kiln + kiln-portal, and sway 1.7 + a patched
xdg-desktop-portal-wlr 0.7.0 (built by bench/xdpw/build.sh), each with xdg-desktop-portal on a portal Stack's bus
and a full-screen kiln-demo-shm animating.

A side is a context manager entered inside a tests/portal Stack; once entered, `.pids` names the processes to
measure ("compositor", "portal") and `.logs()` gives what to print when a share fails.
"""
import hashlib
import os
import shutil
import subprocess
import time
from pathlib import Path

from lib.compositors import Running, as_user, make_reachable, specs

ROOT = Path(__file__).resolve().parents[2]
XDP = "/usr/libexec/xdg-desktop-portal"
XDPW_DIR = ROOT / "bench" / "xdpw"
# Where this machine keeps the xdg-desktop-portal-wlr mirror (a bare git repository with tag v0.7.0).
XDPW_DEFAULT_SOURCE = "/work/.mirror/emersion+xdg-desktop-portal-wlr/repo"


def named_below(pid, name, descendants):
    for p in descendants(pid):
        try:
            if Path(f"/proc/{p}/exe").resolve().name == name:
                return p
        except OSError:
            pass
    return None


def xdpw_binary(source, out_dir):
    """The patched xdg-desktop-portal-wlr, built into out_dir by bench/xdpw/build.sh unless already built there
    with the same patch: (path, None), or (None, why not)."""
    if not source or not Path(source).exists():
        return None, f"no xdg-desktop-portal-wlr source at {source or '(none given)'} (--xdpw-source)"
    patch = (XDPW_DIR / "relax-dmabuf-check.patch").read_bytes()
    stamp = Path(out_dir) / "patch.sha256"
    binary = Path(out_dir) / "build" / "xdg-desktop-portal-wlr"
    digest = hashlib.sha256(patch + str(source).encode()).hexdigest()
    if binary.exists() and stamp.exists() and stamp.read_text() == digest:
        return binary, None
    built = subprocess.run([str(XDPW_DIR / "build.sh"), str(source), str(out_dir)], capture_output=True, text=True)
    if built.returncode != 0:
        return None, built.stderr.strip().splitlines()[-1] if built.stderr.strip() else "build.sh failed"
    stamp.write_text(digest)
    return binary, None


class KilnSide:
    """kiln --restrict image-copy-capture starting kiln-portal and xdg-desktop-portal (XDG_CURRENT_DESKTOP=kiln)."""
    name = "kiln"

    def __init__(self, stack, size, demo, portal_binary, descendants, kiln_class):
        self.stack, self.size, self.demo, self.portal_binary = stack, size, demo, portal_binary
        self.descendants, self.kiln_class = descendants, kiln_class
        self.kiln, self.pids = None, {}

    def __enter__(self):
        from screencast import xdp_command
        portals_dir = Path(self.stack.dir) / "portals"
        portals_dir.mkdir()
        shutil.copy(ROOT / "portal" / "kiln.portal", portals_dir / "kiln.portal")
        env = {k: v for k, v in self.stack.env.items() if k.startswith(("DBUS_", "PIPEWIRE_"))}
        w, h = self.size
        self.kiln = self.kiln_class("--restrict", "image-copy-capture", "-s", f"{self.portal_binary} --replace",
                                    "-s", xdp_command(portals_dir), size=f"{w}x{h}", env=env,
                                    runtime_dir=self.stack.dir, socket="wayland-share-bench", stats=False)
        self.kiln.__enter__()
        client = self.kiln.spawn([self.demo, "--size", f"{w}x{h}", "--color", "336699"])
        time.sleep(1.5)
        if client.poll() is not None:
            raise RuntimeError(f"kiln-demo-shm exited under kiln: {client.stdout.read()[-300:]}")
        self.pids = {"compositor": self.kiln.proc.pid,
                     "portal": named_below(self.kiln.proc.pid, "kiln-portal", self.descendants)}
        return self

    def __exit__(self, *exc):
        self.kiln.__exit__(*exc)
        return False

    def logs(self):
        return self.kiln.logs()[-3000:] if self.kiln else ""


class SwaySide:
    """sway 1.7 headless (pixman, as `nobody` when root: bench/lib/compositors.py) with the patched
    xdg-desktop-portal-wlr and xdg-desktop-portal (XDG_CURRENT_DESKTOP=sway, so it picks wlr.portal) on the bus."""
    name = "sway"

    def __init__(self, stack, size, demo, xdpw):
        self.stack, self.size, self.demo, self.xdpw = stack, size, demo, xdpw
        self.running, self.client, self.pids = None, None, {}

    def __enter__(self):
        w, h = self.size
        spec = specs("kiln", size=f"{w}x{h}", refresh_hz=60)["sway"]
        self.running = Running(spec)
        if not self.running.start():
            raise RuntimeError(f"sway did not start: {self.running.error}\n{self.running.log_tail()}")
        make_reachable(self.demo)
        self.client = subprocess.Popen(as_user(spec.user) + [self.demo, "--size", f"{w}x{h}", "--color", "336699"],
                                       env=self.running.client_env, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
        time.sleep(1.5)
        if self.client.poll() is not None:
            raise RuntimeError(f"kiln-demo-shm exited under sway with status {self.client.returncode}")
        base = Path(self.stack.dir)
        config = base / "xdpw.config"
        # No chooser program here: the one output, by name.
        config.write_text("[screencast]\nchooser_type=none\noutput_name=HEADLESS-1\n")
        portals_dir = base / "portals-sway"
        portals_dir.mkdir()
        # 1.16 picks a backend by UseIn against XDG_CURRENT_DESKTOP (no portals.conf before 1.17).
        (portals_dir / "wlr.portal").write_text(
            "[portal]\nDBusName=org.freedesktop.impl.portal.desktop.wlr\n"
            "Interfaces=org.freedesktop.impl.portal.Screenshot;org.freedesktop.impl.portal.ScreenCast;\n"
            "UseIn=wlroots;sway;\n")
        # We are root: xdg-desktop-portal-wlr reaches sway's socket (nobody's 0700 runtime dir) by its full path.
        env = dict(self.stack.env, WAYLAND_DISPLAY=str(self.running.runtime / self.running.client_env["WAYLAND_DISPLAY"]),
                   XDG_CURRENT_DESKTOP="sway")
        portal = self.stack.start("xdpw", [str(self.xdpw), "-c", str(config), "-l", "INFO", "-r"], env=env)
        self.stack.start("xdg-desktop-portal-sway", [
            "sh", "-c", f"gdbus wait --session --timeout 20 org.freedesktop.impl.portal.desktop.wlr && "
                        f"XDG_DESKTOP_PORTAL_DIR={portals_dir} exec {XDP} --replace --verbose"], env=env)
        self.pids = {"compositor": self.running.proc.pid, "portal": portal.pid}
        return self

    def __exit__(self, *exc):
        if self.client and self.client.poll() is None:
            self.client.kill()
            self.client.wait()
        if self.running:
            self.running.stop()
            self.running.cleanup()
        return False

    def logs(self):
        sway = self.running.log_tail(15) if self.running else ""
        return f"--- sway ---\n{sway}\n{self.stack.logs()}"
