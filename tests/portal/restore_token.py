#!/usr/bin/env python3
"""Restore tokens through the portal: the same stack as screencast.py on headless kiln with two outputs and two
windows (red kiln-demo-shm, then a blue one of another title, the newest). A first kiln-portal (`--output HEADLESS-2`) answers sessions asking
persist_mode 2 (a monitor and a window) and 1 (a monitor): Start gives each a restore_token and the persist mode.
Then a second kiln-portal takes over with the default choice (the first output, HEADLESS-1), and:
- a session with no token gets HEADLESS-1 (the default differs from what was shared);
- a session with the persistent token, and one with the transient token, get HEADLESS-2 unasked, and kiln-portal
  logs that it restored it;
- a session with a token nobody issued gets the default, HEADLESS-2;
- with a newer (green) window, the usual choice for a window, the window's token still gets the blue one;
- with the blue window closed, a session with the window's token falls back to the newest window left (the red
  one, at its size), and kiln-portal says the window to restore is gone."""
import sys
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import check, client_binary, run_test, wait_drawn  # noqa: E402
from wayland_wire import Connection, Toplevel  # noqa: E402
from screencast import ScreenCastClient, Stack, portal_kiln, require_stack  # noqa: E402

SIZE = (320, 240)
# kiln lays HEADLESS-2 out at (0, 0), focused, and HEADLESS-1 right of it.
SHARED, DEFAULT = (SIZE[0], 0), (0, 0)


def share(client, types, persist_mode=0, token=None):
    """CreateSession, SelectSources, Start: (Start's response, its results, [(node, props)]); the session closed."""
    response, results = client.request("CreateSession", options={"session_handle_token": f"s{client.tokens}"})
    check(response == 0, f"CreateSession answers {response}")
    session = results["session_handle"]
    options = {"types": client.dbus.UInt32(types), "multiple": False, "cursor_mode": client.dbus.UInt32(1),
               "persist_mode": client.dbus.UInt32(persist_mode)}
    if token is not None:
        options["restore_token"] = token
    response, _ = client.request("SelectSources", session, options=options)
    check(response == 0, f"SelectSources (types {types}, persist_mode {persist_mode}) answers {response}")
    response, results = client.request("Start", session, "")
    streams = [(int(node), dict(props)) for node, props in results.get("streams", [])]
    check(response == 0 and len(streams) == 1, f"Start answers {response} with one stream: {streams}")
    client.close(session)
    return dict(results), streams[0][1]


def position(props):
    return tuple(int(v) for v in props.get("position", ()))


def main():
    portal_binary = require_stack()
    with Stack() as stack:
        second_now = Path(stack.dir) / "second-now"
        second = f"while [ ! -e {second_now} ]; do sleep 0.1; done; exec {portal_binary} --replace --output HEADLESS-2"
        with portal_kiln(stack, f"{portal_binary} --replace --output HEADLESS-1", "--outputs", "2", size=SIZE,
                         starts=[second]) as kiln:
            red = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "160x120", "--color", "cc3333",
                              "--frames", "3", "--stay"])
            wait_drawn(red)
            # A window of another title (kiln-demo-shm's are all alike): a token names a window by app_id and title.
            blue = Toplevel(Connection(kiln.client_env), title="kiln restore test")
            blue.commit()
            blue.map(100, 80, 0xff3366cc)
            kiln.placed(0x3366cc, "the blue window", width=100, height=80)
            client = ScreenCastClient(stack.env["DBUS_SESSION_BUS_ADDRESS"])
            client.wait_for_portal()

            results, props = share(client, 1, persist_mode=2)
            check(position(props) == SHARED, f"the first kiln-portal shares HEADLESS-1 at {SHARED}: {props}")
            monitor_token = str(results.get("restore_token", ""))
            # xdg-desktop-portal 1.16 hands the app the token (it keeps kiln-portal's restore_data under it), not
            # the persist_mode kiln-portal answered.
            check(monitor_token and int(results.get("persist_mode", 2)) == 2,
                  f"Start gives a restore_token (persist_mode 2): {results}")
            results, props = share(client, 2, persist_mode=2)
            check(tuple(props.get("size", ())) == (100, 80), f"the window shared is the blue one: {props}")
            window_token = str(results.get("restore_token", ""))
            check(window_token and int(results.get("persist_mode", 2)) == 2,
                  f"a window's Start gives a restore_token too: {results}")
            # xdg-desktop-portal keeps persistent restore data in the permission store's screencast table.
            store = Path(stack.env["XDG_DATA_HOME"]) / "flatpak" / "db" / "screencast"
            check(store.exists(), f"the persistent choice is kept in {store}")
            results, props = share(client, 1, persist_mode=1)
            transient_token = str(results.get("restore_token", ""))
            check(transient_token and int(results.get("persist_mode", 1)) == 1,
                  f"persist_mode 1: Start gives a restore_token: {results}")

            second_now.touch()
            kiln.wait_for(lambda: "another kiln-portal replaced this one" in kiln.logs(),
                          "the second kiln-portal to take over", timeout=20)
            _, props = share(client, 1)
            check(position(props) == DEFAULT, f"without a token the second kiln-portal shares HEADLESS-2: {props}")
            for token, kind in ((monitor_token, "persistent"), (transient_token, "transient")):
                restored = kiln.logs().count("(restored)")
                _, props = share(client, 1, persist_mode=2, token=token)
                check(position(props) == SHARED, f"with the {kind} token it shares HEADLESS-1 again: {props}")
                check(kiln.logs().count("(restored)") == restored + 1, "kiln-portal logs that it restored it")
            _, props = share(client, 1, persist_mode=2, token=str(uuid.uuid4()))
            check(position(props) == DEFAULT, f"an unknown token gets the default, HEADLESS-2: {props}")

            # A newer window (the usual choice now): the window's token still picks the blue one.
            green = Toplevel(Connection(kiln.client_env), title="kiln newer window")
            green.commit()
            green.map(60, 40, 0xff33cc66)
            kiln.placed(0x33cc66, "the green window", width=60, height=40)
            _, props = share(client, 2)
            check(tuple(props.get("size", ())) == (60, 40), f"without a token the newest window is shared: {props}")
            _, props = share(client, 2, persist_mode=2, token=window_token)
            check(tuple(props.get("size", ())) == (100, 80), f"with the window's token the blue one is: {props}")
            green.conn.close()
            blue.conn.close()
            kiln.wait_for(lambda: kiln.screenshot().count((0x33, 0x66, 0xcc), tolerance=0) == 0,
                          "the blue window to go")
            _, props = share(client, 2, persist_mode=2, token=window_token)
            check(tuple(props.get("size", ())) == (160, 120) and int(props.get("source_type", 0)) == 2,
                  f"the closed window's token falls back to the red window: {props}")
            check("the window to restore" in kiln.logs() and "is gone" in kiln.logs(),
                  "kiln-portal says the window to restore is gone")


if __name__ == "__main__":
    run_test(main)
