#!/usr/bin/env python3
"""Runs inside the VM: wp_drm_lease_device_v1 on a two-head virtio-gpu, Virtual-2 kept for lease by kiln.ini. A
client (kiln-drm-lease-client, libdrm) gets a non-master DRM fd and Virtual-2 alone on offer, leases it, and the
kernel shows the lease worked: the lease fd's resources are that connector and one CRTC only, a dumb-buffer modeset
on it succeeds and the kernel's atomic state has the client's framebuffer on that CRTC; meanwhile kiln keeps drawing
Virtual-1 and no other client is offered Virtual-2. Ending the lease (destroy, or closing the lease fd, which only
the kernel reports) offers Virtual-2 again; unplugging it while leased revokes the lease and withdraws it; plugged
back it is offered again; a VT switch revokes the lease and offers nothing until kiln's VT is back. The protocol's
errors (duplicate_connector, empty_lease, and wrong_device with kiln on two cards, virtio-gpu and vkms) end only the
client at fault. A client in a sandbox (security-context-v1) is not offered the lease device at all."""
import os
import re
import select
import socket
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Screenshot, check, client_binary, run_test, skip  # noqa: E402
from vt_session import ENV, OUT, KilnOnVt, active_vt, chvt, vkms_card  # noqa: E402
from wayland_wire import Connection, Toplevel, shm_buffer  # noqa: E402
import virtio_heads  # noqa: E402
from virtio_heads import wait  # noqa: E402

CONFIG = """[output Virtual-1]
mode=800x600
[output Virtual-2]
lease=true
"""
GREEN, BLUE = 0x20c040, 0x3050d0
CLIENT = client_binary("kiln-drm-lease-client")


def lease_client(*args, timeout=120):
    result = subprocess.run([CLIENT, *args], env=ENV, capture_output=True, text=True, timeout=timeout)
    return result.returncode, result.stdout + result.stderr


def offered():
    """{connector name: id} a new client is offered."""
    status, out = lease_client("--list")
    if status != 0:
        raise AssertionError(f"kiln-drm-lease-client --list exited {status}: {out}")
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"connector (\S+) id=(\d+)", out)}, out


def shot(output):
    result = subprocess.run(["grim", "-t", "ppm", "-o", output, "-"], env=ENV, capture_output=True, timeout=120)
    if result.returncode != 0:
        raise AssertionError(f"grim -o {output} failed: {result.stderr.decode(errors='replace').strip()}")
    return Screenshot.from_ppm(result.stdout)


def shows(image, colour):
    needle = bytes(((colour >> 16) & 0xff, (colour >> 8) & 0xff, colour & 0xff)) * 8
    return needle in image.pixels



class Holder:
    """kiln-drm-lease-client running until told (a line on stdin): --lease NAME holds a lease, --watch prints the
    connector events a client bound before them sees."""

    def __init__(self, *args):
        self.lines = []
        self.partial = b""
        self.proc = subprocess.Popen([CLIENT, *args], env=ENV, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, bufsize=0)

    def _read(self, timeout):
        """Takes what the client has printed within `timeout` s; False at end of output."""
        ready, _, _ = select.select([self.proc.stdout], [], [], max(timeout, 0))
        if not ready:
            return True
        chunk = os.read(self.proc.stdout.fileno(), 65536)
        if not chunk:
            return False
        *lines, self.partial = (self.partial + chunk).split(b"\n")
        self.lines += [line.decode(errors="replace") + "\n" for line in lines]
        return True

    def read_until(self, text, timeout=120, count=1):
        """The first line holding `text`, once `count` lines hold it; fails after `timeout` s or at end of output."""
        deadline = time.monotonic() + timeout
        while sum(text in line for line in self.lines) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"the lease client did not print '{text}': {''.join(self.lines)}")
            if not self._read(deadline - time.monotonic()):
                raise AssertionError(f"the lease client ended before '{text}': {''.join(self.lines)}")
        return next(line for line in self.lines if text in line).strip()

    def end(self, timeout=120):
        """Tells it to end; its status and everything it printed."""
        self.proc.stdin.write(b"end\n")
        self.proc.stdin.flush()
        deadline = time.monotonic() + timeout
        while self._read(deadline - time.monotonic()):
            if time.monotonic() > deadline:
                raise AssertionError(f"the lease client did not end: {''.join(self.lines)}")
        self.lines.append(self.partial.decode(errors="replace"))
        return self.proc.wait(30), "".join(self.lines)


def sandboxed_env(engine, directory):
    """The environment of a client kiln accepts through a security context (as Flatpak makes one)."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(directory / "sandbox"))
    listener.listen()
    close_read, close_write = os.pipe()
    manager = engine.bind("wp_security_context_manager_v1", 1)
    context = engine.new_id("wp_security_context_v1")
    engine.send(manager, 1, ("n", context), fds=[listener.fileno(), close_read])  # create_listener
    engine.send(context, 1, ("s", "org.example.sandbox"))  # set_sandbox_engine
    engine.send(context, 2, ("s", "org.example.Headset"))  # set_app_id
    engine.send(context, 4)  # commit
    engine.roundtrip()
    listener.close()
    os.close(close_read)
    return dict(ENV, XDG_RUNTIME_DIR=str(directory), WAYLAND_DISPLAY="sandbox"), close_write


def plane_owner(card, crtc):
    """The process that allocated the framebuffer on `crtc`'s plane, from the kernel's atomic state, and the state."""
    minor = card.name[len("card"):]
    text = Path(f"/sys/kernel/debug/dri/{minor}/state").read_text()
    for block in re.split(r"\n(?=\S)", text):
        if block.startswith("plane[") and re.search(rf"\bcrtc={crtc}\s", block):
            match = re.search(r"allocated by = \[?([^\]\n]*)", block)  # [comm] for a kernel thread
            return (match.group(1) if match else None), block
    return None, text


def main():
    card = virtio_heads.virtio_card()
    if card is None:
        skip("no virtio-gpu card in the guest (QEMU without virtio-gpu-pci, or the module did not load)")
    if not {"Virtual-1", "Virtual-2"} <= virtio_heads.connectors(card).keys():
        skip("the virtio-gpu has not two heads")
    if virtio_heads.start_hotplug_udevd() is None:
        skip("no systemd-udevd in the host root: wlroots hears of ended leases and hotplug only through udev")
    virtio_heads.set_connected(card, "Virtual-2", True)
    config = OUT / "kiln.ini"
    config.write_text(CONFIG)
    kiln = KilnOnVt(extra_env=virtio_heads.drm_env(card), args=("--config", str(config)))
    holder = None
    try:
        kiln.wait_log("output Virtual-2 is offered for lease")
        info = subprocess.run(["wayland-info"], env=ENV, capture_output=True, text=True, timeout=120).stdout
        check("wp_drm_lease_device_v1" in info and info.count("interface: 'wl_output'") == 1,
              "kiln offers wp_drm_lease_device_v1, and Virtual-2 (lease=true) is no wl_output")
        on_offer, out = offered()
        check("drm_fd driver=virtio_gpu master=0" in out, "a client gets a non-master fd of the virtio-gpu")
        check(list(on_offer) == ["Virtual-2"], f"Virtual-2 alone is on offer ({on_offer})")
        virtual2 = on_offer["Virtual-2"]

        # Privileged: a sandboxed client is not offered the device (nor can bind it).
        engine = Connection(ENV, timeout=120)
        sandbox_dir = Path("/run/kiln-sandbox")  # a socket wants tmpfs, not the 9p test dir
        sandbox_dir.mkdir(mode=0o700, exist_ok=True)
        env, close_write = sandboxed_env(engine, sandbox_dir)
        result = subprocess.run([CLIENT, "--list"], env=env, capture_output=True, text=True, timeout=120)
        check(result.returncode == 3 and "no wp_drm_lease_device_v1" in result.stdout,
              f"a client in a security context is not offered wp_drm_lease_device_v1 (exit {result.returncode})")
        os.close(close_write)
        engine.close()

        # The protocol's errors end only the client at fault.
        for mode, code, why in (("duplicate-connector", 1, "is in this lease request already"),
                                ("empty-lease", 2, "a lease request must name a connector")):
            status, out = lease_client("--error", mode, "Virtual-2")
            check(f"protocol error: interface=wp_drm_lease_request_v1 code={code}" in out and why in out,
                  f"{mode}: wp_drm_lease_request_v1 error {code} ({out.strip().splitlines()[-1]})")
        check(kiln.running(), "kiln is still running after the bad requests")

        # A window on Virtual-1, which kiln goes on drawing while Virtual-2 is leased.
        conn = Connection(ENV, timeout=120)
        window = Toplevel(conn, "desktop")
        window.commit()
        window.map(200, 150, 0xff000000 | GREEN)
        wait(lambda: shows(shot("Virtual-1"), GREEN), "the window on Virtual-1")

        # A client bound before the lease: it sees the connector withdrawn, and offered again afterwards.
        watcher = Holder("--watch")
        watcher.read_until("connector Virtual-2")
        holder = Holder("--lease", "Virtual-2", "--colour", "c03080")
        holder.read_until("holding the lease")
        resources = holder.read_until("lease resources:")
        match = re.search(r"connectors=([\d,]*) crtcs=([\d,]*)", resources)
        check(match and match.group(1) == str(virtual2) and len(match.group(2).split(",")) == 1,
              f"the kernel shows the lease fd Virtual-2 ({virtual2}) and one CRTC only ({resources})")
        modeset = holder.read_until("modeset")
        check(modeset.endswith(" ok"), f"a dumb-buffer modeset through the lease fd succeeds ({modeset})")
        links, active = virtio_heads.kms_state(card)
        virtio_heads.log_kms(card, OUT, "leased")
        crtc = links.get("Virtual-2")
        owner, state = plane_owner(card, crtc) if crtc else (None, "")
        check(crtc and active.get(crtc) and owner and owner.startswith("kiln-drm-lease"),
              f"the kernel's state: Virtual-2 on an active {crtc} scanning out the lease client's framebuffer "
              f"(allocated by {owner})" + ("" if owner else f": {state[:3000]}"))
        check(links.get("Virtual-1") not in (None, crtc) and active.get(links["Virtual-1"]),
              f"and Virtual-1 on its own active CRTC ({links})")
        on_offer, _ = offered()
        check(on_offer == {}, f"leased, Virtual-2 is offered to no new client ({on_offer})")
        check(watcher.read_until("withdrawn Virtual-2"), "and withdrawn from the client it was offered to before")
        # kiln still draws Virtual-1: a frame committed after the lease shows there.
        conn.send(window.surface, 1, ("o", shm_buffer(conn, 200, 150, 0xff000000 | BLUE)), ("i", 0), ("i", 0))
        conn.send(window.surface, 2, ("i", 0), ("i", 0), ("i", 200), ("i", 150))
        window.commit()
        conn.roundtrip()
        wait(lambda: shows(shot("Virtual-1"), BLUE), "the window's new frame on Virtual-1")
        check(True, "kiln keeps drawing Virtual-1 while Virtual-2 is leased (the window's next frame shows)")

        status, out = holder.end()
        check(status == 0 and "re-offered Virtual-2" in out,
              f"the client destroys its lease: Virtual-2 is offered again (exit {status})")
        holder = None
        on_offer, _ = offered()
        check(list(on_offer) == ["Virtual-2"], f"and a new client is offered it ({on_offer})")
        watcher.read_until("connector Virtual-2", count=2)
        status, out = watcher.end()
        check(status == 0 and "device 0: released" in out,
              f"the client bound before is offered it again, and release is answered by released (exit {status})")

        # Closing the lease fd ends the lease too: only the kernel knows (a lease uevent), kiln sends finished.
        holder = Holder("--lease", "Virtual-2", "--end", "close")
        holder.read_until("holding the lease")
        status, out = holder.end()
        check(status == 0 and "finished" in out and "re-offered Virtual-2" in out,
              f"the client closes its lease fd: finished, and Virtual-2 is offered again (exit {status})")
        holder = None

        # Unplugged while leased: the lease is revoked (finished) and the connector withdrawn.
        holder = Holder("--lease", "Virtual-2")
        holder.read_until("holding the lease")
        virtio_heads.set_connected(card, "Virtual-2", False)
        revoked = holder.read_until("revoked")
        check("finished" in "".join(holder.lines), f"Virtual-2 unplugged while leased: the lease ends ({revoked})")
        holder = None
        on_offer, _ = offered()
        check(on_offer == {}, f"and Virtual-2 is on offer no more ({on_offer})")
        virtio_heads.set_connected(card, "Virtual-2", True)
        wait(lambda: "Virtual-2" in offered()[0], "Virtual-2 offered after it is plugged back")
        check(True, "plugged back in, Virtual-2 is offered again")

        # A VT switch takes DRM master from kiln: the lease held is revoked and nothing is offered until kiln's VT is
        # back; then the connector is offered again, to the client bound all along too.
        watcher = Holder("--watch")
        watcher.read_until("connector Virtual-2")
        holder = Holder("--lease", "Virtual-2")
        holder.read_until("holding the lease")
        watcher.read_until("withdrawn Virtual-2")
        check(active_vt() == "tty1", "kiln is on VT 1, Virtual-2 leased")
        chvt(2)
        revoked = holder.read_until("revoked")
        check("finished" in "".join(holder.lines), f"switched to VT 2: the lease is revoked ({revoked})")
        holder = None
        on_offer, _ = offered()
        check(on_offer == {}, f"away from kiln's VT nothing is offered ({on_offer})")
        chvt(1)
        watcher.read_until("connector Virtual-2", count=2)
        status, out = watcher.end()
        check(status == 0, "back on VT 1: Virtual-2 is offered again to the client bound all along")
        check(list(offered()[0]) == ["Virtual-2"], "and to a new client")
        check(kiln.running(), "kiln is still running")
        conn.close()
        kiln.stop()

        # Two DRM devices (the virtio-gpu and vkms, each with a connector kept for lease): a device per card, each
        # offering its own, and a connector named in the other device's request is wrong_device.
        (OUT / "kiln.ini").write_text(CONFIG + "[output Virtual-3]\nlease=true\n")
        env = dict(virtio_heads.drm_env(card), WLR_DRM_DEVICES=f"/dev/dri/{card.name}:{vkms_card()}",
                   WLR_RENDERER_ALLOW_SOFTWARE="1")  # wlroots' blitter for the second GPU is llvmpipe here
        kiln = KilnOnVt(extra_env=env, args=("--config", str(config)), log_name="kiln-two-devices.log")
        kiln.wait_log("output Virtual-3 is offered for lease")
        status, out = lease_client("--list")
        check(re.search(r"device (\d): drm_fd driver=virtio_gpu.*\ndevice \1: connector Virtual-2 ", out) and
              re.search(r"device (\d): drm_fd driver=vkms.*\ndevice \1: connector Virtual-3 ", out),
              f"two DRM devices: two lease devices, each offering its own connector ({out.strip()})")
        status, out = lease_client("--error", "wrong-device", "Virtual-2")
        check("protocol error: interface=wp_drm_lease_request_v1 code=0" in out and "another DRM lease device" in out,
              f"wrong-device: wp_drm_lease_request_v1 error 0 ({out.strip().splitlines()[-1]})")
        check(kiln.running(), "kiln is still running")
        kiln.stop()
    finally:
        if holder and holder.proc.poll() is None:
            holder.proc.kill()
        kiln.kill()
        print(kiln.log()[-3000:])


run_test(main)
