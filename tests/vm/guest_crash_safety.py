#!/usr/bin/env python3
"""Runs inside the VM: kiln on vkms under seatd on VT 1 is killed with SIGKILL (nothing of kiln's runs after it);
the VT comes back as a usable text console (KD_TEXT, the keyboard mode it had before kiln, not K_OFF), DRM master
is free, its client is told the compositor is gone, and kiln starts again on the same VT (and restores it on a clean
exit too)."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import check, client_binary, rgb, run_test  # noqa: E402
from vt_session import (ENV, KD_GRAPHICS, KD_TEXT, KB_MODES, KilnOnVt, active_vt, drm_master_free,  # noqa: E402
                        screenshot, tty_modes, vkms_card)

COLOUR = "22aa88"


def start_client():
    """kiln-demo-shm, once its window is on screen."""
    client = subprocess.Popen([client_binary("kiln-demo-shm"), "--color", COLOUR, "--size", "200x150", "--frames",
                               "1000000"], env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while screenshot().count(rgb(COLOUR), tolerance=6, step=4) * 16 < 2000:
        if client.poll() is not None:
            raise AssertionError(f"kiln-demo-shm exited before its window showed: {client.stderr.read().strip()}")
        if time.monotonic() > deadline:
            raise AssertionError("kiln-demo-shm's window did not show")
        time.sleep(0.5)
    return client


def main():
    card = vkms_card()
    check(active_vt() == "tty1", "the guest starts on VT 1")
    text_mode, keyboard_mode = tty_modes("/dev/tty1")
    check(text_mode == KD_TEXT, f"before kiln, VT 1 is a text console with keyboard mode {KB_MODES[keyboard_mode]}")
    env = {"WLR_LIBINPUT_NO_DEVICES": "1"}
    kiln = KilnOnVt(extra_env=env)
    client = None
    try:
        mode, kb = tty_modes("/dev/tty1")
        check(mode == KD_GRAPHICS and KB_MODES[kb] == "K_OFF", "kiln put VT 1 in graphics mode with the keyboard off")
        client = start_client()
        check(True, "a client is drawing")

        os.kill(kiln.pid, signal.SIGKILL)
        status = kiln.wait_exit()
        print(f"seatd-launch exited {status} after kiln was killed")
        check(True, "seatd-launch and its seatd have exited")
        check(client.wait(60) != 0, f"the client was told its compositor is gone ({client.stderr.read().strip()})")
        check(active_vt() == "tty1", "VT 1 is still in front")
        mode, kb = tty_modes("/dev/tty1")
        check(mode == KD_TEXT, f"VT 1 is back in text mode (KDGETMODE {mode})")
        check(KB_MODES[kb] != "K_OFF" and kb == keyboard_mode,
              f"its keyboard mode is back to {KB_MODES[kb]}, as before kiln (not K_OFF)")
        check(drm_master_free(card), "nobody holds DRM master any more")

        kiln = KilnOnVt(extra_env=env, log_name="kiln-again.log")
        mode, kb = tty_modes("/dev/tty1")
        check(mode == KD_GRAPHICS and KB_MODES[kb] == "K_OFF", "kiln starts again on the same VT")
        kiln.stop()
        mode, kb = tty_modes("/dev/tty1")
        check(mode == KD_TEXT and kb == keyboard_mode, "after a clean exit the VT is a text console again")
    finally:
        if client and client.poll() is None:
            client.kill()
        kiln.kill()
        print(kiln.log()[-2000:])


run_test(main)
