#!/usr/bin/env python3
"""Runs inside the VM: the guest has what the kiln VM tests rely on (a vkms KMS card with a connector, vgem,
/dev/udmabuf, the system dma-heap), so a failure of the kiln tests points at kiln rather than the rig."""
import subprocess
import sys
from pathlib import Path


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
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
