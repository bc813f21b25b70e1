#!/usr/bin/python3
"""A Qt 5 window with one line edit, for text_input_fcitx5.py: prints "ready" once the edit has keyboard focus,
then "text TEXT" as it changes. Qt 5 on Wayland speaks no text-input-v3: its input method goes through the
platform input context plugin QT_IM_MODULE names (fcitx5's over D-Bus), fed by the keys kiln sends the window."""
import sys

from PyQt5.QtWidgets import QApplication, QLineEdit

app = QApplication(sys.argv)
edit = QLineEdit()
edit.setWindowTitle("kiln qt5 line edit")
edit.textChanged.connect(lambda text: print("text", text, flush=True))
app.focusChanged.connect(lambda old, new: print("ready", flush=True) if new is edit else None)
edit.show()
edit.setFocus()
sys.exit(app.exec_())
