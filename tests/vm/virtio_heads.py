"""Guest helpers for the virtio-gpu tests: the two-head card (QEMU `-device virtio-gpu-pci,max_outputs=2`), its
connectors plugged in and out through the kernel's forced connector status, and the hotplug uevent wlroots listens
for. Python 3 standard library only."""
import os
import re
import subprocess
import time
from pathlib import Path

from vt_session import start_udevd

# QEMU with no display UI enables only the first head, and virtio-gpu neither polls connectors nor sends a uevent when
# their forced status changes. The test is the cable: it forces the status (the kernel then reports the connector
# connected or not to every KMS client) and sends the card a synthetic "change" uevent; this rule turns that into
# the HOTPLUG=1 event the kernel sends for a real hotplug, which is what wlroots rescans connectors on.
HOTPLUG_RULE = ('ACTION=="change", SUBSYSTEM=="drm", ENV{SYNTH_ARG_HOTPLUG}=="1", ENV{HOTPLUG}="1"\n')


def virtio_card():
    """/sys/class/drm/cardN of the virtio-gpu (the guest also has vgem and vkms; their order is not fixed), or None."""
    for card in sorted(Path("/sys/class/drm").glob("card[0-9]*")):
        if "-" in card.name:
            continue
        uevent = (card / "device" / "uevent").read_text()
        if "DRIVER=virtio-pci" in uevent or "virtio_gpu" in uevent:
            return card
    return None


def connectors(card):
    """{name: sysfs dir} of the card's connectors, e.g. {"Virtual-1": .../card1-Virtual-1}."""
    return {path.name.split("-", 1)[1]: path for path in sorted(card.parent.glob(f"{card.name}-*"))}


def start_hotplug_udevd():
    """udevd with the rule above (written before it starts, so it is loaded). None when the host root lacks udevd."""
    rules = Path("/run/udev/rules.d")
    rules.mkdir(parents=True, exist_ok=True)
    (rules / "99-kiln-vm-hotplug.rules").write_text(HOTPLUG_RULE)
    return start_udevd()


def set_connected(card, name, connected):
    """Plugs a connector in ("on") or pulls it ("off") as the kernel sees it, then tells userspace (a hotplug uevent
    on the card, as the kernel's own)."""
    (connectors(card)[name] / "status").write_text("on" if connected else "off")
    (card / "uevent").write_text("change 00000000-0000-0000-0000-000000000000 HOTPLUG=1")


def status(card, name):
    return (connectors(card)[name] / "status").read_text().strip()


def kms_state(card):
    """The kernel's atomic state of the card (debugfs dri/N/state): {connector name: crtc name or None} and
    {crtc name: active}."""
    minor = card.name[len("card"):]
    text = Path(f"/sys/kernel/debug/dri/{minor}/state").read_text()
    links, active = {}, {}
    for block in re.split(r"\n(?=\S)", text):
        head = block.split("\n", 1)[0]
        if head.startswith("connector["):
            name = head.split(": ", 1)[1].strip()
            crtc = re.search(r"crtc=(\S+)", block)
            links[name] = None if crtc is None or crtc.group(1) == "(null)" else crtc.group(1)
        elif head.startswith("crtc["):
            name = head.split(": ", 1)[1].strip()
            match = re.search(r"\bactive=(\d)", block)
            active[name] = bool(match and match.group(1) == "1")
    return links, active


def drm_env(card):
    """kiln's environment on this card alone (wlroots would otherwise drive vkms too, as a second GPU)."""
    return {"WLR_DRM_DEVICES": f"/dev/dri/{card.name}", "WLR_LIBINPUT_NO_DEVICES": "1"}


def log_kms(card, out, label):
    """Keeps the kernel's view for the record (OUT/kms-LABEL.txt)."""
    minor = card.name[len("card"):]
    try:
        (out / f"kms-{label}.txt").write_text(Path(f"/sys/kernel/debug/dri/{minor}/state").read_text())
    except OSError as error:
        (out / f"kms-{label}.txt").write_text(f"cannot read: {error}\n")
    if os.path.exists("/usr/bin/modetest"):
        result = subprocess.run(["modetest", "-M", "virtio_gpu", "-c"], capture_output=True, text=True, timeout=60)
        with open(out / f"kms-{label}.txt", "a") as f:
            f.write(result.stdout[:4000])


def wait(predicate, what, timeout=120):
    """predicate()'s first true value, polled every half second (TCG is slow: screenshots take seconds)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.5)
