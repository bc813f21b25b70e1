#!/usr/bin/env python3
"""Which source a screen cast gets without --output/--window (issue 31): kiln's focused one, or the chooser's pick.
Two outputs; a red window moved to HEADLESS-2 and focused, a blue one (the newest) moved to HEADLESS-1:
- a monitor share without --output is HEADLESS-2, the focused output: its frames equal `grim -o HEADLESS-2` and
  kiln-portal's log says "sharing HEADLESS-2 ... (focused)";
- a window share is the focused red window, not the newest (blue); after `kiln msg focus` of the blue one a new
  share gets the blue one (kiln msg's "identifier" is what kiln-portal matches its ext-foreign-toplevel handles by);
- a kiln-portal that cannot reach kiln's control socket (KILN_SOCKET names nothing) shares as before focus was
  asked: the first output and the newest window, and logs why once per share;
- a kiln-portal with KILN_PORTAL_CHOOSER runs the command with the choices on stdin (the focused one first, in the
  documented format) and shares the line it prints (here the second); a chooser that exits 1 or names no choice
  cancels (Start answers 1) and kiln and kiln-portal go on serving."""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import check, client_binary, run_test, wait_drawn  # noqa: E402
from screencast import ScreenCastClient, Stack, StreamReader, differing, portal_kiln, require_stack  # noqa: E402
from window_source import msg, share_window  # noqa: E402

SIZE = (640, 480)
RED, BLUE = (0xcc, 0x33, 0x33), (0x33, 0x66, 0xcc)


def share_monitor(client):
    """A monitor share with the cursor drawn in (as grim has it): (response, session, streams)."""
    return client.share(cursor_mode=2)


def one_stream(response, streams, what):
    check(response == 0 and len(streams) == 1, f"{what}: Start answers {response} with one stream: {streams}")
    return streams[0]


def full_log(kiln):
    """kiln's whole log (kiln.logs() is its tail): kiln-portal's and xdg-desktop-portal's output is in it too."""
    return Path(kiln.log_path).read_text(errors="replace")


def sharing_lines(kiln):
    return [line for line in full_log(kiln).splitlines() if "kiln-portal: sharing " in line]


def main():
    portal_binary = require_stack()
    with Stack() as stack:
        work = Path(stack.dir)
        broken_now, chooser_now = work / "broken-now", work / "chooser-now"
        choices, cancel, unknown = work / "choices.txt", work / "cancel", work / "unknown"
        chooser = work / "chooser.sh"
        # It prints the second choice; with `unknown` a name no output has; with `cancel` it exits 1 (after
        # printing: the status alone says no).
        chooser.write_text(f"cat > {choices}\n"
                           f"[ -e {unknown} ] && {{ echo 'output NOPE-9 (1x1)'; exit 0; }}\n"
                           f"sed -n 2p {choices}\n"
                           f"[ -e {cancel} ] && exit 1\n"
                           f"exit 0\n")
        # Two later kiln-portals, each replacing the one before when its file appears: one whose control socket
        # is not kiln's, one with a chooser.
        broken = (f"while [ ! -e {broken_now} ]; do sleep 0.1; done; "
                  f"KILN_SOCKET={work}/no-such.sock exec {portal_binary} --replace")
        choosing = (f"while [ ! -e {chooser_now} ]; do sleep 0.1; done; "
                    f"KILN_PORTAL_CHOOSER='sh {chooser}' exec {portal_binary} --replace")
        with portal_kiln(stack, f"{portal_binary} --replace", "--outputs", "2", size=SIZE,
                         starts=[broken, choosing]) as kiln:
            red = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "240x180", "--color", "cc3333",
                              "--frames", "3", "--stay"])
            wait_drawn(red)
            blue = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "200x150", "--color", "3366cc",
                               "--frames", "3", "--stay"])
            wait_drawn(blue)
            windows = msg(kiln, "windows")["windows"]
            by_size = {(w["width"], w["height"]): w for w in windows}
            check((240, 180) in by_size and (200, 150) in by_size, f"kiln lists both windows: {windows}")
            red_id, blue_id = by_size[(240, 180)]["id"], by_size[(200, 150)]["id"]
            identifiers = {w["id"]: w.get("identifier") for w in windows}
            check(all(isinstance(i, str) and i for i in identifiers.values()),
                  f"kiln msg windows names each window's ext-foreign-toplevel identifier: {identifiers}")
            # The red window to HEADLESS-2, focused there: focus (output and window) is not the newest or first.
            msg(kiln, "move", str(red_id), "5", "HEADLESS-2")
            msg(kiln, "move", str(blue_id), "6", "HEADLESS-1")
            msg(kiln, "focus", str(red_id))
            outputs = {o["name"]: o for o in msg(kiln, "outputs")["outputs"]}
            check(outputs["HEADLESS-2"]["focused"] and not outputs["HEADLESS-1"]["focused"],
                  f"kiln msg reports HEADLESS-2 focused: {outputs}")
            second_at = (outputs["HEADLESS-2"]["x"], outputs["HEADLESS-2"]["y"])
            first_at = (outputs["HEADLESS-1"]["x"], outputs["HEADLESS-1"]["y"])
            kiln.wait_for(lambda: kiln.screenshot("HEADLESS-2").count(RED, tolerance=0) > 240 * 180 // 2,
                          "the red window on HEADLESS-2")

            client = ScreenCastClient(stack.env["DBUS_SESSION_BUS_ADDRESS"])
            client.wait_for_portal()
            response, session, streams = share_monitor(client)
            node, props = one_stream(response, streams, "the focused output")
            check(tuple(props.get("position", ())) == second_at,
                  f"without --output the focused output, HEADLESS-2 at {second_at}, is shared: {props}")
            reader = StreamReader(client.remote(session), node)
            # A still screen: later frames come only when something changes, and any of them equals grim.
            frame = reader.frame()
            frame = reader.frame(timeout=2) or frame
            shot = kiln.screenshot("HEADLESS-2")
            diff = differing(frame, shot) if frame else -1
            check(frame is not None and diff == 0 and frame.count(RED, tolerance=0) > 240 * 180 // 2,
                  f"the stream's frame equals grim -o HEADLESS-2, the red window on it ({diff} pixels differ)")
            reader.stop()
            client.close(session)
            check(any("sharing HEADLESS-2" in line and line.endswith("(focused)") for line in sharing_lines(kiln)),
                  f"kiln-portal's log names HEADLESS-2, the focused output: {sharing_lines(kiln)[-1:]}")

            # The other way round: with the blue window focused, HEADLESS-1 is (neither is simply "the first").
            msg(kiln, "focus", str(blue_id))
            response, session, streams = share_monitor(client)
            _, props = one_stream(response, streams, "the other focused output")
            check(tuple(props.get("position", ())) == first_at,
                  f"with the blue window focused, HEADLESS-1 at {first_at} is shared: {props}")
            check(sharing_lines(kiln)[-1].startswith("kiln-portal: sharing HEADLESS-1") and
                  sharing_lines(kiln)[-1].endswith("(focused)"), f"the log names it: {sharing_lines(kiln)[-1:]}")
            client.close(session)
            msg(kiln, "focus", str(red_id))

            response, session, streams = share_window(client)
            _, props = one_stream(response, streams, "the focused window")
            check(tuple(props.get("size", ())) == (240, 180),
                  f"the focused window (red, 240x180) is shared, not the newest (blue): {props}")
            client.close(session)
            msg(kiln, "focus", str(blue_id))
            response, session, streams = share_window(client)
            _, props = one_stream(response, streams, "the window focused next")
            check(tuple(props.get("size", ())) == (200, 150),
                  f"after kiln msg focus of the blue window a new share gets it: {props}")
            client.close(session)

            # No control socket: the first output kiln announces, whichever is focused, the newest window, and one
            # line saying why each time.
            broken_now.touch()
            kiln.wait_for(lambda: full_log(kiln).count("another kiln-portal replaced this one") >= 1,
                          "the kiln-portal without a control socket to take over", timeout=20)
            shared = []
            for focused in (blue_id, red_id):
                msg(kiln, "focus", str(focused))
                response, session, streams = share_monitor(client)
                _, props = one_stream(response, streams, "without a control socket")
                shared.append(tuple(props.get("position", ())))
                check(sharing_lines(kiln)[-1].endswith("(first)"), f"the first output: {sharing_lines(kiln)[-1:]}")
                client.close(session)
            check(shared[0] == shared[1], f"without kiln's control socket the same output is shared whichever has "
                  f"focus, as before issue 31: {shared}")
            response, session, streams = share_window(client)
            _, props = one_stream(response, streams, "a window without a control socket")
            check(tuple(props.get("size", ())) == (200, 150),
                  f"without kiln's control socket the newest window (blue), not the focused (red), is shared: {props}")
            client.close(session)
            said = full_log(kiln).count("cannot learn kiln's focused")
            check(said == 3 and "no-such.sock" in full_log(kiln), f"kiln-portal says why, once per share ({said} lines)")

            # A chooser: the choices on its stdin, focused first; the second line printed is what is shared.
            chooser_now.touch()
            kiln.wait_for(lambda: full_log(kiln).count("another kiln-portal replaced this one") >= 2,
                          "the kiln-portal with a chooser to take over", timeout=20)
            response, session, streams = share_monitor(client)
            _, props = one_stream(response, streams, "the chooser's output")
            lines = choices.read_text().splitlines()
            check(lines == [f"output HEADLESS-2 ({SIZE[0]}x{SIZE[1]})", f"output HEADLESS-1 ({SIZE[0]}x{SIZE[1]})"],
                  f"the chooser reads the outputs, the focused one first: {lines}")
            check(tuple(props.get("position", ())) == first_at,
                  f"the chooser's pick (the second line, HEADLESS-1) is shared: {props}")
            check(sharing_lines(kiln)[-1].endswith("(chosen)"), f"kiln-portal logs it: {sharing_lines(kiln)[-1:]}")
            client.close(session)
            response, session, streams = share_window(client)
            _, props = one_stream(response, streams, "the chooser's window")
            lines = choices.read_text().splitlines()
            pattern = re.compile(r"window (\S+) kiln-demo: kiln-demo-shm")
            named = [m.group(1) if (m := pattern.fullmatch(line)) else None for line in lines]
            check(named == [identifiers[red_id], identifiers[blue_id]],
                  f"the chooser reads 'window IDENTIFIER APP_ID: TITLE' lines, the focused (red) first: {lines}")
            check(tuple(props.get("size", ())) == (200, 150),
                  f"the chooser's pick (the second line, the blue window) is shared: {props}")
            client.close(session)

            for mark, why in ((cancel, "exited with status 1"), (unknown, "which is none of the choices")):
                mark.touch()
                response, session, streams = share_monitor(client)
                check(response == 1 and not streams, f"a chooser that {why} cancels: Start answers {response}")
                check(why in full_log(kiln), f"kiln-portal logs that the chooser {why}")
                mark.unlink()
            check(kiln.alive(), "kiln is still running")
            response, session, streams = share_monitor(client)
            _, props = one_stream(response, streams, "after the cancelled ones")
            check(tuple(props.get("position", ())) == first_at, f"kiln-portal still shares afterwards: {props}")
            client.close(session)


if __name__ == "__main__":
    run_test(main)
