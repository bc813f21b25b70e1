#!/usr/bin/env python3
"""fcitx5 end to end: fcitx5's Wayland input method (its waylandim frontend, input-method-v2) on headless kiln with
the pinyin engine; a window with a text input typed "nihao" and space on a keyboard gets preedit "ni hao" as it goes,
then commit_string 你好 — the keys went through fcitx5's keyboard grab, never to the window as letters. The same
in a GTK 3 entry (GTK's own text-input-v3 module) when python3-gi and GTK 3's introspection data are installed, and
in a Qt 5 line edit: Qt 5 speaks no text-input-v3, so as on sway its keys go from kiln to the window and on to
fcitx5 through fcitx5's Qt plugin over a session bus (QT_IM_MODULE=fcitx)."""
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from kiln_harness import Kiln, check, need, run_test, skip  # noqa: E402
from text_input import LoggedClient, VirtualKeyboard  # noqa: E402

KEYS = {"n": 49, "i": 23, "h": 35, "a": 30, "o": 24, "space": 57, "BackSpace": 14}
# keyboard-us, then pinyin, active from the start (no Ctrl+Space needed).
PROFILE = """[Groups/0]
Name=Default
Default Layout=us
DefaultIM=pinyin

[Groups/0/Items/0]
Name=keyboard-us
Layout=

[Groups/0/Items/1]
Name=pinyin
Layout=

[GroupOrder]
0=Default
"""
# No session bus and no X11 here: only fcitx5's Wayland, input-method and engine addons.
DISABLED = "dbus,classicui,notificationitem,kimpanel,xim,xcb,dbusfrontend,ibusfrontend,fcitx4frontend"


def main():
    need("fcitx5")
    if not Path("/usr/share/fcitx5/addon/pinyin.conf").exists():
        skip("fcitx5's pinyin engine is not installed (fcitx5-pinyin)")
    if not Path("/usr/share/fcitx5/addon/waylandim.conf").exists():
        skip("fcitx5's Wayland input-method frontend (waylandim) is not installed")
    with tempfile.TemporaryDirectory(prefix="kiln-fcitx5-") as tmp, Kiln() as kiln:
        config = Path(tmp) / "config" / "fcitx5"
        config.mkdir(parents=True)
        (config / "profile").write_text(PROFILE)
        (config / "config").write_text("[Behavior]\nActiveByDefault=True\n")
        env = {"HOME": tmp, "XDG_CONFIG_HOME": str(Path(tmp) / "config"), "XDG_DATA_HOME": str(Path(tmp) / "data")}
        window = LoggedClient(kiln, "kiln-text-input-client")
        window.wait("keyboard_enter")
        log = open(Path(tmp) / "fcitx5.log", "w")
        # Its log goes to a file, not a pipe no one reads; kiln stops it with the test's other clients.
        fcitx5 = subprocess.Popen(["fcitx5", f"--disable={DISABLED}"], env=dict(kiln.client_env, **env), stdout=log,
                                  stderr=subprocess.STDOUT)
        kiln.children.append(fcitx5)
        window.wait("enter")  # kiln enters text inputs only while an input method runs
        check(True, "fcitx5 connects as the input method: the focused window's text input is entered")
        window.command("enable 你好 0 10 10 2 16")
        keys = VirtualKeyboard(kiln)

        # fcitx5 grabs the keyboard once it has started its engines, a moment after it connects: until a preedit
        # shows that it has the keys, an 'n' may still reach the window directly, which is tried again.
        def first_key_taken():
            if not any(line.startswith("preedit n ") for line in window.since(0)):
                keys.tap(KEYS["n"])
            return any(line.startswith("preedit n ") for line in window.since(0))
        kiln.wait_for(first_key_taken, "fcitx5 to take keys through its keyboard grab", timeout=30, interval=0.5)
        mark = window.mark()
        for key in ["i", "h", "a", "o"]:
            keys.tap(KEYS[key])
        window.wait("preedit ni hao 0 6", mark)
        check(True, "typing 'nihao' builds the pinyin preedit 'ni hao' in the window")
        keys.tap(KEYS["space"])
        window.wait("commit_string 你好", mark)
        got = window.since(mark)
        check(not any(line.startswith("key ") and line.endswith(" 1") for line in got),
              f"space commits 你好 and no letter key was pressed in the window ({got})")
        check(fcitx5.poll() is None and kiln.alive(), "fcitx5 and kiln are still running")
        window.quit()
        gtk3_entry(kiln)
        log.close()
    qt5_line_edit()


def gtk3_entry(kiln):
    """A GTK 3 entry, through GTK's own Wayland input-method module, gets 你好 from fcitx5."""
    if subprocess.run(["/usr/bin/python3", "-c", "import gi; gi.require_version('Gtk', '3.0')"],
                      capture_output=True).returncode != 0:
        print("GTK 3 part skipped: python3-gi and gir1.2-gtk-3.0 are not installed")
        return
    app = LoggedClient(kiln, "gtk3-entry", argv=["/usr/bin/python3", str(Path(__file__).parent / "gtk3_entry_app.py")],
                       env={"GDK_BACKEND": "wayland", "GTK_IM_MODULE": "wayland"})
    app.wait("ready")
    keys = VirtualKeyboard(kiln)

    def text():
        lines = [line for line in app.since(0) if line.startswith("text")]
        return lines[-1][5:] if lines else ""

    # As above: until fcitx5 has the keys, an 'n' reaches the entry as a letter; it is taken back with BackSpace.
    def first_key_taken():
        if "preedit n" in app.since(0):
            return True
        keys.tap(KEYS["BackSpace"] if text() else KEYS["n"])
        return "preedit n" in app.since(0)
    kiln.wait_for(first_key_taken, "fcitx5 to take the GTK window's keys", timeout=30, interval=0.5)
    mark = app.mark()
    for key in ["i", "h", "a", "o"]:
        keys.tap(KEYS[key])
    app.wait("preedit ni hao", mark)
    keys.tap(KEYS["space"])
    app.wait("text 你好", mark)
    check(text() == "你好", f"a GTK 3 entry shows 'ni hao' while typing and holds 你好 after space ({app.since(mark)})")
    keys.close()


QT5_PLUGIN = Path("/usr/lib/x86_64-linux-gnu/qt5/plugins/platforminputcontexts/libfcitx5platforminputcontextplugin.so")


def qt5_line_edit():
    """A Qt 5 line edit gets 你好 from fcitx5 through its D-Bus frontend, on a private session bus."""
    missing = [what for what, there in [
        ("python3-pyqt5", subprocess.run(["/usr/bin/python3", "-c", "import PyQt5.QtWidgets"],
                                         capture_output=True).returncode == 0),
        ("fcitx5-frontend-qt5", QT5_PLUGIN.exists()),
        ("qtwayland5", Path("/usr/lib/x86_64-linux-gnu/qt5/plugins/platforms/libqwayland-generic.so").exists()),
        ("dbus-daemon", shutil.which("dbus-daemon") is not None)] if not there]
    if missing:
        print(f"Qt 5 part skipped: {', '.join(missing)} not installed")
        return
    with tempfile.TemporaryDirectory(prefix="kiln-fcitx5-qt-") as tmp, Kiln() as kiln:
        config = Path(tmp) / "config" / "fcitx5"
        config.mkdir(parents=True)
        (config / "profile").write_text(PROFILE)
        (config / "config").write_text("[Behavior]\nActiveByDefault=True\n")
        bus = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, env=kiln.client_env)
        kiln.children.append(bus)
        env = {"HOME": tmp, "XDG_CONFIG_HOME": str(Path(tmp) / "config"), "XDG_DATA_HOME": str(Path(tmp) / "data"),
               "DBUS_SESSION_BUS_ADDRESS": bus.stdout.readline().strip()}
        log = open(Path(tmp) / "fcitx5.log", "w")
        fcitx5 = subprocess.Popen(["fcitx5", "--disable=classicui,notificationitem,kimpanel,xim,xcb,ibusfrontend,"
                                   "fcitx4frontend"], env=dict(kiln.client_env, **env), stdout=log,
                                  stderr=subprocess.STDOUT)
        kiln.children.append(fcitx5)
        app = LoggedClient(kiln, "qt5-line-edit",
                           argv=["/usr/bin/python3", str(Path(__file__).parent / "qt5_line_edit_app.py")],
                           env=dict(env, QT_QPA_PLATFORM="wayland", QT_IM_MODULE="fcitx"))
        app.wait("ready")
        keys = VirtualKeyboard(kiln)

        def text():
            lines = [line for line in app.since(0) if line.startswith("text")]
            return lines[-1][5:] if lines else ""

        # Until fcitx5 is on the bus and Qt's plugin has an input context there, Qt types the letters itself: then
        # they are taken back with BackSpace and the word typed again (fcitx5 starts in a few seconds).
        def typed_word():
            for _ in range(8):
                if not text():
                    break
                keys.tap(KEYS["BackSpace"])
                time.sleep(0.1)
            for key in ["n", "i", "h", "a", "o", "space"]:
                keys.tap(KEYS[key])
            deadline = time.monotonic() + 3
            while time.monotonic() < deadline and text() != "你好":
                time.sleep(0.05)
            return text() == "你好"
        kiln.wait_for(typed_word, "the Qt 5 line edit to get 你好 from fcitx5", timeout=60, interval=0)
        check(text() == "你好", f"a Qt 5 line edit holds 你好 after 'nihao' and space ({app.since(0)})")
        check(fcitx5.poll() is None and kiln.alive(), "fcitx5 and kiln are still running")
        keys.close()
        log.close()


if __name__ == "__main__":
    if shutil.which("fcitx5") is None:
        skip("fcitx5 is not installed")
    run_test(main)
