#!/usr/bin/env python3
"""`meson install --destdir` puts kiln where a package would: the binaries in bindir, the session entry in
datadir/wayland-sessions (Exec=kiln), the example kiln.ini in datadir/doc/kiln, the man pages in mandir/man1 and
man5, each rendered by `man -l` without a warning; every file under DESTDIR/prefix, nothing else installed but kiln's
own programs. Where kiln-portal is built: the program in libexecdir, kiln.portal (UseIn=kiln, ScreenCast) where
xdg-desktop-portal looks for backends (ScreenCast and Screenshot), kiln-portals.conf beside it, and the D-Bus service that starts it by its full
path. Arguments: build dir, prefix, bindir, datadir, mandir, 'man' when scdoc built the pages, libexecdir, and
'portal' when kiln-portal was built."""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import check, run_test  # noqa: E402


def main():
    build, prefix, bindir, datadir, mandir, man, libexecdir, portal = sys.argv[1:9]
    with tempfile.TemporaryDirectory(prefix="kiln-install-") as staging:
        staging = Path(staging)
        result = subprocess.run(["meson", "install", "-C", build, "--no-rebuild", "--quiet", "--destdir", str(staging)],
                                capture_output=True, text=True, timeout=240)
        check(result.returncode == 0, f"meson install --destdir exits 0 ({result.stdout[-500:]}{result.stderr[-500:]})")
        root = staging / prefix.lstrip("/")
        installed = sorted(str(p.relative_to(staging)) for p in staging.rglob("*") if not p.is_dir())
        check(all((staging / p).resolve().is_relative_to(root) for p in installed),
              f"every file is under DESTDIR{prefix} ({installed})")

        def at(*parts):
            return str(Path(prefix.lstrip("/")).joinpath(*parts))

        expected = {
            at(bindir, "kiln"), at(bindir, "kiln-cache"),
            at(datadir, "wayland-sessions", "kiln.desktop"),
            at(datadir, "doc", "kiln", "kiln.ini.example"),
        }
        pages = {at(mandir, "man1", "kiln.1"), at(mandir, "man1", "kiln-msg.1"), at(mandir, "man5", "kiln.ini.5"),
                 at(mandir, "man1", "kiln-cache.1")}
        if man == "man":
            expected |= pages
        portal_files = {
            "program": at(libexecdir, "kiln-portal"),
            "portal": at(datadir, "xdg-desktop-portal", "portals", "kiln.portal"),
            "conf": at(datadir, "xdg-desktop-portal", "kiln-portals.conf"),
            "service": at(datadir, "dbus-1", "services", "org.freedesktop.impl.portal.desktop.kiln.service"),
        }
        if portal == "portal":
            expected |= set(portal_files.values())
        missing = expected - set(installed)
        check(not missing, f"installed: {sorted(expected)} (missing {sorted(missing)})")
        others = [p for p in installed if p not in expected]
        check(all(p.startswith(at(bindir, "kiln-")) for p in others),
              f"anything else is one of kiln's demo and test programs ({others})")
        for program in (at(bindir, "kiln"), at(bindir, "kiln-cache")):
            check(os.access(staging / program, os.X_OK), f"{program} is executable")
        if portal == "portal":
            check(os.access(staging / portal_files["program"], os.X_OK), f"{portal_files['program']} is executable")
            entry = (staging / portal_files["portal"]).read_text().splitlines()
            check("DBusName=org.freedesktop.impl.portal.desktop.kiln" in entry and "UseIn=kiln" in entry and
                  any(line.startswith("Interfaces=") and "org.freedesktop.impl.portal.ScreenCast;" in line and
                      "org.freedesktop.impl.portal.Screenshot;" in line for line in entry),
                  f"kiln.portal routes ScreenCast and Screenshot to kiln-portal in kiln ({entry})")
            service = (staging / portal_files["service"]).read_text().splitlines()
            check(f"Exec={Path(prefix) / libexecdir / 'kiln-portal'}" in service and
                  "Name=org.freedesktop.impl.portal.desktop.kiln" in service,
                  f"the D-Bus service starts the installed kiln-portal ({service})")
            conf = (staging / portal_files["conf"]).read_text().splitlines()
            check("org.freedesktop.impl.portal.ScreenCast=kiln" in conf,
                  f"kiln-portals.conf prefers kiln for ScreenCast ({conf})")

        desktop = (staging / at(datadir, "wayland-sessions", "kiln.desktop")).read_text().splitlines()
        check("[Desktop Entry]" == desktop[0] and "Exec=kiln" in desktop and "Type=Application" in desktop,
              "kiln.desktop is a desktop entry that runs kiln")
        version = subprocess.run([str(staging / at(bindir, "kiln")), "--version"], capture_output=True, text=True,
                                 timeout=30)
        check(version.returncode == 0 and version.stdout.startswith("kiln "),
              f"the installed kiln runs ({version.stdout.strip()})")
        example = staging / at(datadir, "doc", "kiln", "kiln.ini.example")
        checked = subprocess.run([str(staging / at(bindir, "kiln")), "--check-config", "--config", str(example)],
                                 capture_output=True, text=True, timeout=30)
        check(checked.returncode == 0, f"the installed example is a clean kiln.ini ({checked.stderr.strip()})")

        if man != "man":
            print("SKIP: scdoc is not installed: no man pages were built")
            sys.exit(77)
        if shutil.which("man") is None:
            print("SKIP: man (man-db) is not installed: the pages are installed but not rendered")
            sys.exit(77)
        for page in sorted(pages):
            rendered = subprocess.run(["man", "--warnings", "-l", str(staging / page)], capture_output=True, text=True,
                                      env=dict(os.environ, MANWIDTH="80", LC_ALL="C"), timeout=60)
            name = Path(page).name.rsplit(".", 1)[0]
            check(rendered.returncode == 0 and rendered.stderr == "" and "NAME" in rendered.stdout and
                  name in rendered.stdout and "SEE ALSO" in rendered.stdout,
                  f"man -l {Path(page).name} renders without a warning ({rendered.stderr.strip()[:300]})")


run_test(main)
