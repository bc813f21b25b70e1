#!/usr/bin/env python3
"""wlr-output-management and wlr-output-power on headless kiln: wlr-randr lists the output and changes its mode,
scale, position and transform, which clients see through wl_output and xdg-output; a configuration kiln or the
backend refuses fails and changes nothing; a test request changes nothing; output-power answers; and
[security] restrict hides both from clients kiln did not start."""
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, need, run_test  # noqa: E402
from wayland_wire import Connection  # noqa: E402


def randr(kiln, *args):
    return kiln.run(["wlr-randr", "--output", "HEADLESS-1", *args])


def listing(kiln):
    result = kiln.run(["wlr-randr"])
    check(result.returncode == 0, f"wlr-randr lists the outputs (exit {result.returncode})")
    return result.stdout


def wl_output_state(kiln):
    """What a new client sees: (current mode width, height), scale, transform, xdg-output logical position."""
    with Connection(kiln.client_env) as conn:
        output = conn.bind("wl_output", 2)
        xdg = conn.create("zxdg_output_v1", conn.bind("zxdg_output_manager_v1", 2), 1, ("o", output))
        conn.roundtrip()
        modes = [e.args("uiii") for e in conn.take(output, 1)]
        current = [(w, h) for flags, w, h, _ in modes if flags & 1]
        scales = [e.args("i")[0] for e in conn.take(output, 3)]
        transforms = [e.args("iiiiissi")[7] for e in conn.take(output, 0)]
        positions = [tuple(e.args("ii")) for e in conn.take(xdg, 0)]
        return current[-1], scales[-1], transforms[-1], positions[-1]


def changes(kiln):
    if shutil.which("swaybg"):
        kiln.spawn(["swaybg", "-c", "#ff0000"])
        kiln.wait_for(lambda: kiln.screenshot().count((255, 0, 0), step=16) == 40 * 30, "swaybg's red")
    check("HEADLESS-1" in listing(kiln) and "640x480 px" in listing(kiln), "wlr-randr lists HEADLESS-1 at 640x480")
    result = randr(kiln, "--custom-mode", "800x600")
    check(result.returncode == 0, f"wlr-randr --custom-mode 800x600 succeeds ({result.stdout.strip()})")
    check(wl_output_state(kiln)[0] == (800, 600), "a client's wl_output reports the 800x600 mode")
    kiln.wait_for(lambda: (lambda s: (s.width, s.height) == (800, 600))(kiln.screenshot()), "an 800x600 screenshot")
    check(True, "and a screenshot is 800x600")
    if shutil.which("swaybg"):
        kiln.wait_for(lambda: kiln.screenshot().count((255, 0, 0), step=20) == 40 * 30, "swaybg over all 800x600")
        check(True, "swaybg's background was configured to the new size: red over the whole 800x600 output")

    result = randr(kiln, "--scale", "2")
    check(result.returncode == 0 and wl_output_state(kiln)[1] == 2, "--scale 2: wl_output's scale is 2")
    result = randr(kiln, "--pos", "100,50")
    check(result.returncode == 0 and "Position: 100,50" in listing(kiln), "--pos 100,50: wlr-randr lists it")
    check(wl_output_state(kiln)[3] == (100, 50), "and xdg-output's logical position is (100, 50)")
    result = randr(kiln, "--transform", "90")
    check(result.returncode == 0 and wl_output_state(kiln)[2] == 1, "--transform 90: wl_output's transform is 90")
    check("Transform: 90" in listing(kiln), "and wlr-randr lists it")


def refusals(kiln):
    before = listing(kiln)
    result = randr(kiln, "--custom-mode", "20000x20000")
    check(result.returncode != 0 and "failed" in result.stdout,
          f"a 20000x20000 mode fails cleanly ({result.returncode}: {result.stdout.strip()})")
    check(listing(kiln) == before and wl_output_state(kiln)[0] == (640, 480), "and nothing changed")
    result = randr(kiln, "--off")
    check(result.returncode != 0 and "failed" in result.stdout,
          f"turning off the only headless output (which wlroots 0.15 cannot disable) fails ({result.stdout.strip()})")
    check(listing(kiln) == before, "and nothing changed")
    check(kiln.screenshot().width == 640, "kiln still draws the output")


def test_request(kiln):
    with Connection(kiln.client_env) as conn:
        manager = conn.bind("zwlr_output_manager_v1", 2)
        done = conn.dispatch_until(lambda e: e.obj == manager and e.opcode == 1)
        serial = done.args("u")[0]
        head = [e.args("n")[0] for e in conn.events if e.obj == manager and e.opcode == 0][0]

        def try_mode(width, height):
            config = conn.create("zwlr_output_configuration_v1", manager, 0, ("u", serial))
            config_head = conn.create("zwlr_output_configuration_head_v1", config, 0, ("o", head))
            conn.send(config_head, 1, ("i", width), ("i", height), ("i", 0))  # set_custom_mode
            conn.send(config, 3)  # test
            answer = conn.dispatch_until(lambda e: e.obj == config)
            conn.send(config, 4)  # destroy
            return answer.opcode

        check(try_mode(1024, 768) == 0, "testing a 1024x768 mode succeeds")
        check(wl_output_state(kiln)[0] == (640, 480), "and testing changed nothing")
        check(try_mode(8193, 600) == 1, "testing a mode wider than 8192 fails")


def output_power(kiln):
    with Connection(kiln.client_env) as conn:
        output = conn.bind("wl_output", 2)
        manager = conn.bind("zwlr_output_power_manager_v1", 1)
        power = conn.create("zwlr_output_power_v1", manager, 0, ("o", output))
        mode = conn.dispatch_until(lambda e: e.obj == power and e.opcode == 0)
        check(mode.args("u")[0] == 1, "output-power reports the output on")
        conn.events.remove(mode)
        conn.send(power, 0, ("u", 0))  # set_mode off
        answer = conn.dispatch_until(lambda e: e.obj == power)
        # A backend that can turn outputs off answers mode off; headless in wlroots 0.15 cannot, and says failed.
        check((answer.opcode, answer.args("u")[0] if answer.opcode == 0 else None) in ((0, 0), (1, None)),
              f"turning it off is answered (mode off, or failed where the backend cannot: event {answer.opcode})")
        if answer.opcode == 0:
            conn.send(power, 0, ("u", 1))
            back = conn.dispatch_until(lambda e: e.obj == power and e.opcode == 0 and e.args("u")[0] == 1)
            check(back is not None, "and on again")
    check(kiln.screenshot().width == 640, "the output still shows")


def restricted(kiln_args):
    with Kiln(*kiln_args) as kiln:
        listening(kiln)
        result = kiln.run(["wayland-info"])
        for name in ("zwlr_output_manager_v1", "zwlr_output_power_manager_v1"):
            check(f"'{name}'" not in result.stdout, f"restricted: {name} hidden from a client kiln did not start")
        check("'zwlr_layer_shell_v1'" in result.stdout, "other globals still listed")
        result = kiln.run(["wlr-randr"])
        check(result.returncode != 0, "and wlr-randr cannot change outputs")


def listening(kiln):
    """Kiln's socket file exists a moment before kiln listens: clients other than the wire one (swaybg, grim)
    start only once it does."""
    with Connection(kiln.client_env) as conn:
        conn.roundtrip()


def main():
    need("wlr-randr")
    need("grim")
    need("wayland-info")
    for test in (changes, refusals, test_request, output_power):
        with Kiln() as kiln:
            listening(kiln)
            test(kiln)
    restricted(["--restrict", "output-management", "--restrict", "output-power"])
    with tempfile.TemporaryDirectory() as directory:
        config = Path(directory) / "kiln.ini"
        config.write_text("[security]\nrestrict=output-management\nrestrict=output-power\n")
        restricted(["--config", str(config)])


if __name__ == "__main__":
    run_test(main)
