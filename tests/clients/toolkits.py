#!/usr/bin/env python3
"""The clients suite's toolkits on headless kiln: GTK 3's and GTK 4's widget factories drawn in full, and a Qt 5 QML
scene (scene.qml) in its magenta with its text and Qt's own title bar (clients_harness.py runs them)."""
from pathlib import Path

from clients_harness import (MAGENTA, check, colors_in, drawn_window, main, near, need_client, size_of, skip, start,
                             wait_color)

HERE = Path(__file__).resolve().parent


def gtk3_widget_factory(kiln, scratch):
    need_client("gtk3-widget-factory", "gtk-3-examples")
    start(kiln, ["gtk3-widget-factory"], env={"GDK_BACKEND": "wayland"})
    drawn_window(kiln, "gtk3-widget-factory's window of widgets", min_size=(400, 300), min_colors=30)


def gtk4_widget_factory(kiln, scratch):
    need_client("gtk4-widget-factory", "gtk-4-examples")
    start(kiln, ["gtk4-widget-factory"], env={"GDK_BACKEND": "wayland"})
    drawn_window(kiln, "gtk4-widget-factory's window of widgets", min_size=(400, 300), min_colors=30)


def qt_qml(kiln, scratch):
    need_client("qmlscene", "qmlscene")
    if not list(Path("/usr/lib").glob("*/qt5/qml/QtQuick.2/qmldir")):
        skip("the QML module QtQuick 2 is not installed (Debian package qml-module-qtquick2)")
    if not list(Path("/usr/lib").glob("*/qt5/plugins/platforms/libqwayland-*.so")):
        skip("Qt's Wayland platform plugin is not installed (Debian package qtwayland5)")
    start(kiln, ["qmlscene", str(HERE / "scene.qml")], env={"QT_QPA_PLATFORM": "wayland"})
    box = wait_color(kiln, MAGENTA, "the QML Rectangle's magenta", (280, 180), tolerance=4)
    # kiln leaves decorations to clients: Qt draws its title bar and border inside the 320x240 the scene asks for.
    check(size_of(box)[0] <= 320 and size_of(box)[1] <= 240,
          f"it fills the 320x240 window the QML file asks for, less Qt's own title bar ({size_of(box)})")
    shot = kiln.screenshot()
    check(any(near(c, (0, 0, 0), 40) for c in colors_in(shot, box, 1)), "with the black text drawn on it")


CASES = {f.__name__: f for f in (gtk3_widget_factory, gtk4_widget_factory, qt_qml)}


if __name__ == "__main__":
    main(CASES)
