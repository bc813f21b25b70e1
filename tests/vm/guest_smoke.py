#!/usr/bin/env python3
"""Runs inside the VM: the guest has what the kiln VM tests rely on (a vkms KMS card with a connector, vgem,
/dev/udmabuf, the system dma-heap, test-controlled sw_sync fences that implicit sync on a udmabuf obeys), so a failure
of the kiln tests points at kiln rather than the rig."""
import fcntl
import os
import struct
import subprocess
import sys
from pathlib import Path

import fence_ioctls as fences


# --- explicit sync (vm_syncobj) ---
DRM_IOCTL_GET_CAP = (3 << 30) | (16 << 16) | (ord("d") << 8) | 0x0C  # DRM_IOWR(0x0c, struct drm_get_cap)
DRM_CAP_SYNCOBJ_TIMELINE = 0x14


def drm_get_cap(fd, cap):
    """drmGetCap: the capability's value, or None when the ioctl fails."""
    arg = bytearray(struct.pack("=QQ", cap, 0))
    try:
        fcntl.ioctl(fd, DRM_IOCTL_GET_CAP, arg)
    except OSError:
        return None
    return struct.unpack("=QQ", arg)[1]
# --- end explicit sync ---


def driver_cards():
    """Maps each /dev/dri/cardN to the name of its kernel driver (the guest also has vgem, order not fixed)."""
    cards = {}
    for card in sorted(Path("/sys/class/drm").glob("card[0-9]*")):
        if "-" in card.name:
            continue  # a connector (card1-Virtual-1), not a card
        # vkms and vgem are bare platform devices with no bound driver link: their uevent names them.
        fields = dict(line.split("=", 1) for line in (card / "device" / "uevent").read_text().splitlines()
                      if "=" in line)
        cards[card.name] = fields.get("DRIVER") or fields.get("MODALIAS", "?").removeprefix("platform:")
    return cards


def main():
    failures = 0

    def check(ok, what):
        nonlocal failures
        print(("ok: " if ok else "FAIL: ") + what)
        failures += 0 if ok else 1

    cards = driver_cards()
    print(f"cards: {cards}")
    check("vkms" in cards.values(), "a DRM card is driven by vkms")
    check("vgem" in cards.values(), "a DRM card is driven by vgem")
    check(Path("/dev/udmabuf").is_char_device(), "/dev/udmabuf exists")
    check(Path("/dev/dma_heap/system").is_char_device(), "/dev/dma_heap/system exists")
    check(any(p.name.startswith("renderD") for p in Path("/dev/dri").iterdir()), "a render node exists")

    modetest = subprocess.run(["modetest", "-M", "vkms", "-c"], capture_output=True, text=True, timeout=60)
    connected = [line for line in modetest.stdout.splitlines() if "\tconnected\t" in line]
    print("\n".join(connected))
    check(modetest.returncode == 0 and len(connected) >= 1, "modetest lists a connected vkms connector")

    # --- explicit sync (vm_syncobj): the vkms card has timeline syncobjs (prepare.sh patches them in) ---
    vkms_card = next((name for name, driver in cards.items() if driver == "vkms"), None)
    if vkms_card:
        card_fd = os.open(f"/dev/dri/{vkms_card}", os.O_RDWR | os.O_CLOEXEC)
        check(drm_get_cap(card_fd, DRM_CAP_SYNCOBJ_TIMELINE) == 1, f"{vkms_card} (vkms) has DRM_CAP_SYNCOBJ_TIMELINE")
        os.close(card_fd)
    # --- end explicit sync ---

    check(Path(fences.SW_SYNC_PATH).exists(), f"{fences.SW_SYNC_PATH} exists (sw_sync.ko loaded, debugfs mounted)")
    if Path(fences.SW_SYNC_PATH).exists():
        timeline = fences.Timeline()
        fence = timeline.fence()
        check(not fences.signalled(fence), "a new sw_sync fence is pending")
        timeline.inc()
        check(fences.signalled(fence), "the fence has signalled after SW_SYNC_IOC_INC")
        os.close(fence)

        # Implicit sync: a pending write fence imported into a udmabuf holds back its readers until it signals.
        buf, memfd = fences.udmabuf(4096)
        exported = fences.export_fence(buf)
        check(fences.signalled(exported), "a fresh udmabuf has no pending fence")
        os.close(exported)
        fence = timeline.fence()
        fences.import_fence(buf, fence, fences.DMA_BUF_SYNC_WRITE)
        exported = fences.export_fence(buf, fences.DMA_BUF_SYNC_READ)
        check(not fences.signalled(exported), "after IMPORT_SYNC_FILE(WRITE) a reader's EXPORT_SYNC_FILE is pending")
        timeline.inc()
        check(fences.signalled(exported), "it signals once the timeline is incremented")
        for fd in (exported, fence, buf, memfd):
            os.close(fd)
        timeline.close()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
