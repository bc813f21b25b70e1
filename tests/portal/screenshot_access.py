#!/usr/bin/env python3
"""Screenshot through xdg-desktop-portal 1.16 itself, as an application asks for it: org.freedesktop.portal.Screenshot
without a dialog (interactive false). 1.16 offers that portal only where an Access backend answers its permission
question, and keeps the answer in xdg-permission-store; kiln-portal is that backend (no dialog: --deny and --allow).
- kiln-portal with --deny '*': the portal answers 2 (refused), kiln-portal says why, and xdg-permission-store holds
  "no" for the unsandboxed app (the id "");
- that answer removed from the store and a kiln-portal without --deny in its place (kiln-portal --replace; asked
  through a fresh xdg-desktop-portal, whose proxies bind to the new owner at once): the portal answers 0 with a PNG
  equal to grim's screenshot of the output, and the store holds "yes";
- PickColor (Screenshot version 2, which is what makes 1.16 ask Access at all) answers the colour under the pointer:
  the window's over the window, the background's over the background.
Skips (77) where the portal stack is not installed, as tests/portal/screencast.py does."""
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import Kiln, check, client_binary, run_test, wait_drawn  # noqa: E402
from virtual_input import VirtualPointer  # noqa: E402
from wayland_wire import Connection  # noqa: E402
from screencast import SIZE, ScreenCastClient, Stack, differing, read_png, require_stack, xdp_command  # noqa: E402


def stored(client):
    """What xdg-permission-store holds for the screenshot permission: {app id: [values]}."""
    proxy = client.bus.get_object("org.freedesktop.impl.portal.PermissionStore",
                                  "/org/freedesktop/impl/portal/PermissionStore")
    store = client.dbus.Interface(proxy, "org.freedesktop.impl.portal.PermissionStore")
    try:
        permissions, _ = store.Lookup("screenshot", "screenshot")
    except client.dbus.DBusException:
        return {}
    return {str(app): [str(v) for v in values] for app, values in permissions.items()}


def forget(client):
    proxy = client.bus.get_object("org.freedesktop.impl.portal.PermissionStore",
                                  "/org/freedesktop/impl/portal/PermissionStore")
    client.dbus.Interface(proxy, "org.freedesktop.impl.portal.PermissionStore").Delete("screenshot", "screenshot")


def restart_portal(kiln, client, stack, portals_dir):
    """A second xdg-desktop-portal --replace; its Screenshot interface once it owns the portal's name."""
    name = "org.freedesktop.portal.Desktop"
    before = client.bus.get_name_owner(name)
    # The environment kiln gives its -s commands, as the first one had (XDG_CURRENT_DESKTOP picks kiln.portal).
    stack.start("xdg-desktop-portal-2", ["sh", "-c", xdp_command(portals_dir)],
                env=dict(kiln.client_env, XDG_CURRENT_DESKTOP="kiln:wlroots", XDG_SESSION_TYPE="wayland"))

    def moved():
        try:
            return client.bus.get_name_owner(name) != before
        except client.dbus.DBusException:
            return False
    kiln.wait_for(moved, "a fresh xdg-desktop-portal to take its name", timeout=20)
    proxy = client.bus.get_object(name, "/org/freedesktop/portal/desktop")
    return client.dbus.Interface(proxy, "org.freedesktop.portal.Screenshot")


def main():
    portal_binary = require_stack()
    source_portals = Path(__file__).resolve().parents[2] / "portal"
    with Stack() as stack:
        portals_dir = Path(stack.dir) / "portals"
        portals_dir.mkdir()
        shutil.copy(source_portals / "kiln.portal", portals_dir / "kiln.portal")
        kiln_env = {k: v for k, v in stack.env.items() if k.startswith(("DBUS_", "PIPEWIRE_"))}
        grant_now = Path(stack.dir) / "grant-now"
        granting = f"while [ ! -e {grant_now} ]; do sleep 0.1; done; exec {portal_binary} --replace"
        with Kiln("--restrict", "image-copy-capture", "-s", f"{portal_binary} --replace --deny '*'",
                  "-s", xdp_command(portals_dir), "-s", granting,
                  size=f"{SIZE[0]}x{SIZE[1]}", env=kiln_env, runtime_dir=stack.dir,
                  socket="wayland-portal-shot") as kiln:
            window = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "200x150", "--color", "cc6633",
                                 "--frames", "3", "--stay"])
            wait_drawn(window)
            client = ScreenCastClient(stack.env["DBUS_SESSION_BUS_ADDRESS"])
            client.wait_for_portal()
            proxy = client.bus.get_object("org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop")
            props = client.dbus.Interface(proxy, "org.freedesktop.DBus.Properties")
            try:
                version = int(props.Get("org.freedesktop.portal.Screenshot", "version"))
            except client.dbus.DBusException as e:
                raise AssertionError(f"xdg-desktop-portal offers no Screenshot portal (no Access backend?): {e}")
            check(version >= 1, f"xdg-desktop-portal offers the Screenshot portal (version {version})")
            client.portal = client.dbus.Interface(proxy, "org.freedesktop.portal.Screenshot")

            response, results = client.request("Screenshot", "", options={"interactive": False})
            check(response == 2 and "uri" not in results, f"with --deny '*' the portal refuses (response {response})")
            kiln.wait_for(lambda: "denied by --deny" in kiln.logs(), "kiln-portal to say why it refused")
            check(stored(client).get("") == ["no"], f"the store keeps the refusal: {stored(client)}")

            forget(client)
            grant_now.touch()
            kiln.wait_for(lambda: "another kiln-portal replaced this one" in kiln.logs(), "the denying kiln-portal "
                          "to leave when the granting one takes its name", timeout=20)
            # xdg-desktop-portal follows kiln-portal's name only once it has read the new owner's properties: a
            # question put in between goes to the one that left (which refuses it), and nothing outside can see when
            # its proxies have moved. A fresh xdg-desktop-portal binds to the owner of now.
            client.portal = restart_portal(kiln, client, stack, portals_dir)
            response, results = client.request("Screenshot", "", options={"interactive": False})
            uri = str(results.get("uri", ""))
            check(response == 0 and uri.startswith("file://"), f"the portal answers {response} with {dict(results)}")
            picture = read_png(uri[len("file://"):])
            shot = kiln.screenshot()
            diff = differing(picture, shot) if (picture.width, picture.height) == SIZE else -1
            check(diff == 0, f"the portal's screenshot ({picture.width}x{picture.height}) equals grim's ({diff} "
                  f"pixels differ; window {picture.at(100, 75)}, grim {shot.at(100, 75)})")
            check(stored(client).get("") == ["yes"], f"the store keeps the grant: {stored(client)}")

            # PickColor: the pixel under the pointer, read by kiln-portal from a capture without the cursor.
            window_at = picture.bounding_box((0xcc, 0x66, 0x33), tolerance=0)
            check(window_at is not None, "the window is on screen")
            x0, y0, x1, y1 = window_at
            pointer = VirtualPointer(Connection(kiln.client_env), SIZE)
            for where, spot, want in (("the window", ((x0 + x1) // 2, (y0 + y1) // 2), (0xcc, 0x66, 0x33)),
                                      ("the background", (4, 4) if x0 > 8 or y0 > 8 else (SIZE[0] - 4, SIZE[1] - 4),
                                       shot.at(4, 4) if x0 > 8 or y0 > 8 else shot.at(SIZE[0] - 4, SIZE[1] - 4))):
                pointer.move(*spot)
                time.sleep(0.3)
                response, results = client.request("PickColor", "")
                colour = tuple(round(float(c) * 255) for c in results.get("color", ()))
                check(response == 0 and colour == tuple(want),
                      f"PickColor over {where} at {spot} answers {response} with {colour} (want {tuple(want)})")


if __name__ == "__main__":
    run_test(main)
