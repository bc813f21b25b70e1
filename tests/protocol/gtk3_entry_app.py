#!/usr/bin/python3
"""A GTK 3 window with one text entry, for text_input_fcitx5.py: prints "ready", then "preedit TEXT" and "text TEXT"
as GTK's own input-method module (text-input-v3 on Wayland) changes them."""
import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402

window = Gtk.Window(title="kiln gtk3 entry")
entry = Gtk.Entry()
window.add(entry)
entry.connect("changed", lambda e: print("text", e.get_text(), flush=True))
entry.connect("preedit-changed", lambda e, preedit: print("preedit", preedit, flush=True))
window.connect("destroy", Gtk.main_quit)
window.show_all()
entry.grab_focus()
print("ready", flush=True)
Gtk.main()
