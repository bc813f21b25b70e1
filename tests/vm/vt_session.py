"""Guest helpers for the session tests: kiln on vkms under seatd-launch on the guest's VT, the VT and keyboard modes
the kernel keeps for a tty, DRM master, and udevd for libinput. Python 3 standard library only."""
import fcntl
import json
import os
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Screenshot, kiln_binary  # noqa: E402

OUT = Path(os.environ.get("KILN_VM_OUT", "/tmp"))
RUNTIME = Path("/run/user-test")
SOCKET = "kiln-vm"
ENV = dict(os.environ, XDG_RUNTIME_DIR=str(RUNTIME), WAYLAND_DISPLAY=SOCKET)

# linux/kd.h and linux/vt.h
KDGETMODE, KD_TEXT, KD_GRAPHICS = 0x4B3B, 0, 1
KDGKBMODE = 0x4B44
KB_MODES = {0: "K_RAW", 1: "K_XLATE", 2: "K_MEDIUMRAW", 3: "K_UNICODE", 4: "K_OFF"}
# drm.h: DRM_IO(0x1e), DRM_IO(0x1f)
DRM_IOCTL_SET_MASTER, DRM_IOCTL_DROP_MASTER = 0x641E, 0x641F


def tty_modes(tty):
    """(KDGETMODE, KDGKBMODE) of a tty: the display mode (KD_TEXT/KD_GRAPHICS) and the keyboard mode."""
    fd = os.open(tty, os.O_RDWR | os.O_NOCTTY)
    try:
        out = []
        for request in (KDGETMODE, KDGKBMODE):
            arg = bytearray(4)
            fcntl.ioctl(fd, request, arg)
            out.append(struct.unpack("=i", arg)[0])
        return tuple(out)
    finally:
        os.close(fd)


def active_vt():
    """The VT in front, as the kernel names it ("tty1")."""
    return Path("/sys/class/tty/tty0/active").read_text().strip()


def chvt(number):
    """Switches VT with busybox's chvt, which waits until the switch is done (seatd must let go of kiln's VT)."""
    result = subprocess.run(["timeout", "30", "busybox", "chvt", str(number)], capture_output=True, text=True)
    if result.returncode != 0:
        raise AssertionError(f"chvt {number} failed ({result.returncode}): {result.stderr.strip()}")


def vkms_card():
    """/dev/dri/cardN of vkms (the guest also has vgem; their order is not fixed)."""
    for card in sorted(Path("/sys/class/drm").glob("card[0-9]*")):
        if "-" not in card.name and "vkms" in (card / "device" / "uevent").read_text():
            return f"/dev/dri/{card.name}"
    raise AssertionError("no vkms card in the guest")


def drm_master_free(card):
    """Whether nobody holds DRM master on `card`: this process can take it (and gives it back at once)."""
    fd = os.open(card, os.O_RDWR | os.O_CLOEXEC)
    try:
        try:
            fcntl.ioctl(fd, DRM_IOCTL_SET_MASTER)
        except OSError:
            return False
        fcntl.ioctl(fd, DRM_IOCTL_DROP_MASTER)
        return True
    finally:
        os.close(fd)


def screenshot():
    result = subprocess.run(["grim", "-t", "ppm", "-"], env=ENV, capture_output=True, timeout=60)
    if result.returncode != 0:
        raise AssertionError(f"grim failed: {result.stderr.decode(errors='replace').strip()}")
    return Screenshot.from_ppm(result.stdout)


def start_udevd():
    """systemd-udevd from the host root (the udev package): libinput's udev backend only takes devices udevd has
    processed (ID_INPUT_*), and hears of hot-plug only from udevd's netlink group. Devices that were there before it
    started stay unprocessed (nothing triggers them). Returns None when the host root has no udevd."""
    udevd = next((p for p in ("/lib/systemd/systemd-udevd", "/usr/lib/systemd/systemd-udevd") if Path(p).exists()),
                 None)
    if udevd is None:
        return None
    # The guest runs the host root under chroot; systemd's tools refuse to act there unless told it is fine.
    env = dict(os.environ, SYSTEMD_IGNORE_CHROOT="1")
    subprocess.run([udevd, "--daemon", "--resolve-names=never"], env=env, check=True, timeout=60)
    subprocess.run(["udevadm", "settle", "--timeout=60"], env=env, check=True, timeout=90)
    return udevd


def _alive(pid):
    """Whether `pid` runs (a zombie waiting for its reaper does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):  # gone before, or while, its stat was read
        return False


class KilnOnVt:
    """kiln on the DRM backend through seatd-launch (seatd with its VT handling, kiln its only client)."""

    def __init__(self, extra_env=None, log_name="kiln.log", args=()):
        self.stats_path = OUT / "stats.json"
        self.log_path = OUT / log_name
        env = dict(ENV, **(extra_env or {}))
        RUNTIME.mkdir(mode=0o700, exist_ok=True)
        self.launcher = subprocess.Popen(["seatd-launch", "--", kiln_binary(), "--backend", "drm", "--socket", SOCKET,
                                          "--stats", str(self.stats_path), *args], env=env,
                                         stdout=open(self.log_path, "w"), stderr=subprocess.STDOUT)
        # Ready once it says where clients connect (a killed kiln leaves its socket file behind, so that is no sign).
        deadline = time.monotonic() + 90
        while f"clients connect with WAYLAND_DISPLAY={SOCKET}" not in self.log():
            if self.launcher.poll() is not None:
                raise AssertionError(f"kiln exited before opening its socket:\n{self.log()}")
            if time.monotonic() > deadline:
                raise AssertionError("kiln did not open its socket on the DRM backend")
            time.sleep(0.2)
        pids = subprocess.run(["pgrep", "-x", "kiln"], capture_output=True, text=True).stdout.split()
        if len(pids) != 1:
            raise AssertionError(f"expected one kiln process, found {pids}")
        self.pid = int(pids[0])
        self.seatd = [int(pid) for pid in subprocess.run(["pgrep", "-P", str(self.launcher.pid), "-x", "seatd"],
                                                         capture_output=True, text=True).stdout.split()]
        if not self.seatd:
            raise AssertionError("seatd-launch has no seatd child")

    def log(self):
        return self.log_path.read_text(errors="replace")

    def wait_log(self, text, count=1, timeout=60):
        """Waits until kiln's log holds `text` `count` times."""
        deadline = time.monotonic() + timeout
        while self.log().count(text) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"kiln did not log '{text}' (x{count})")
            time.sleep(0.2)

    def running(self):
        return self.launcher.poll() is None

    def wait_exit(self, timeout=60):
        """Waits for seatd-launch and then seatd to end; returns seatd-launch's status. seatd-launch only sends seatd
        SIGTERM on its way out, and the VT is seatd's to restore: its modes are final once seatd has gone."""
        status = self.launcher.wait(timeout)
        deadline = time.monotonic() + timeout
        while any(_alive(pid) for pid in self.seatd):
            if time.monotonic() > deadline:
                raise AssertionError("seatd did not exit after seatd-launch")
            time.sleep(0.2)
        return status

    def stop(self):
        """SIGTERM to kiln itself (seatd-launch is its parent): it writes its stats and exits; returns them."""
        os.kill(self.pid, signal.SIGTERM)
        status = self.wait_exit()
        if status != 0:
            raise AssertionError(f"kiln (through seatd-launch) exited {status}")
        return json.loads(self.stats_path.read_text())

    def kill(self):
        if self.launcher.poll() is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                self.launcher.wait(30)
            except subprocess.TimeoutExpired:
                self.launcher.kill()
