#!/usr/bin/env python3
"""OBS Studio records kiln's screen with no person there, on the stack browser_share.py runs Chromium on: OBS (Qt on
Wayland, EGL on llvmpipe) starts with a prepared config dir — first-run wizard off, a profile recording through its
FFmpeg output to uncompressed BGRA frames, a scene holding one "Screen Capture (PipeWire)" source — and
`--startrecording`; the source asks xdg-desktop-portal's ScreenCast, which kiln-portal answers without a dialog. The
canvas is larger than kiln's output and transparent where no source draws, so the recording shows how big the shared
picture is (what it shows at first is OBS's own window, on kiln's screen). A window of a distinctive colour opens
once OBS records, and the test reads the recording back: the screen in it at the output's size, the window where grim
shows it and in its colour, and the recording changing when the screen does. kiln-portal's log must say it shared.
OBS then quits (SIGINT, saving the source's restore token in its scene collection) and starts again: kiln-portal
must say it restored the share.
Skips (77) where OBS Studio or the portal stack (tests/portal/screencast.py's require_stack) is missing."""
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from kiln_harness import Screenshot, check, client_binary, run_test, skip, wait_drawn  # noqa: E402
from screencast import Stack, portal_kiln, require_stack  # noqa: E402

SIZE = (480, 320)            # kiln's output
CANVAS = (560, 384)          # OBS's canvas: the output at (0, 0), transparent black around it
WINDOW = (0xcc, 0x33, 0x99)
FPS = 10                     # uncompressed frames: 10 a second keep the file near 9 MB/s

# OBS 29's settings, as its UI writes them (UI/window-basic-main.cpp, UI/obs-app.cpp): the first-run wizard
# marked done, no tray, no question before stopping a recording or quitting (SIGINT then quits as the menu does,
# saving the scene collection; with the question it opens a dialog over the screen and stays), and no preview: OBS's
# window is on the screen it records, and its preview would show the recorded window a second time.
GLOBAL_INI = """[General]
FirstRun=true
LastVersion=486539266
EnableAutoUpdates=false
ConfirmOnExit=false
[Basic]
Profile=kiln
ProfileDir=kiln
SceneCollection=kiln
SceneCollectionFile=kiln
[BasicWindow]
SysTrayEnabled=false
WarnBeforeStoppingRecord=false
ShowRecordingConfirmation=false
PreviewEnabled=false
"""

# Advanced output, recording type "Custom Output (FFmpeg)": rawvideo frames in a rawvideo file, read back without a
# decoder (neither OBS's x264 in Matroska nor utvideo has one in GStreamer's base plugins); the canvas in RGB (BGRA),
# so the pixels are the source's, with no YUV step.
PROFILE_INI = """[General]
Name=kiln
[Output]
Mode=Advanced
[AdvOut]
RecType=FFmpeg
FFOutputToFile=true
FFFilePath={dir}
FFExtension=rgb
FFFormat=rawvideo
FFFormatMimeType=
FFVEncoder=rawvideo
FFVEncoderId=13
FFVBitrate=0
FFVGOPSize=0
FFAudioMixes=0
FFAEncoder=
FFAEncoderId=0
FFFileNameWithoutSpace=true
[Video]
BaseCX={cw}
BaseCY={ch}
OutputCX={cw}
OutputCY={ch}
FPSType=1
FPSInt={fps}
ColorFormat=RGB
ColorSpace=sRGB
ColorRange=Full
ScaleType=bilinear
[Audio]
SampleRate=48000
ChannelSetup=Stereo
"""


def scene_collection():
    """One scene holding the PipeWire screen capture at the canvas's top-left corner, unscaled."""
    item = {"name": "Screen", "id": 1, "visible": True, "locked": False, "rot": 0.0,
            "pos": {"x": 0.0, "y": 0.0}, "scale": {"x": 1.0, "y": 1.0}, "align": 5,
            "bounds_type": 0, "bounds_align": 0, "bounds": {"x": 0.0, "y": 0.0},
            "crop_left": 0, "crop_top": 0, "crop_right": 0, "crop_bottom": 0}
    return {"name": "kiln", "current_scene": "Scene", "current_program_scene": "Scene",
            "scene_order": [{"name": "Scene"}], "transition_duration": 300,
            "sources": [
                {"id": "scene", "versioned_id": "scene", "name": "Scene", "enabled": True,
                 "settings": {"items": [item], "id_counter": 1}},
                {"id": "pipewire-desktop-capture-source", "versioned_id": "pipewire-desktop-capture-source",
                 "name": "Screen", "enabled": True, "settings": {"ShowCursor": False}},
            ]}


def write_config(root):
    """OBS's settings and scene collection under `root` (its XDG_CONFIG_HOME); each run writes its profile."""
    obs = root / "obs-studio"
    (obs / "basic" / "profiles" / "kiln").mkdir(parents=True)
    (obs / "basic" / "scenes").mkdir(parents=True)
    (obs / "global.ini").write_text(GLOBAL_INI)
    (obs / "basic" / "scenes" / "kiln.json").write_text(json.dumps(scene_collection()))


FRAME_BYTES = CANVAS[0] * CANVAS[1] * 4


def count(path):
    """How many complete frames the recording holds so far."""
    return path.stat().st_size // FRAME_BYTES if path else 0


def frame(path, index):
    """Frame `index` of the recording: (a Screenshot of its colours, the box where its alpha is opaque or None).
    OBS's canvas is transparent black where no source draws; the shared screen is opaque."""
    with open(path, "rb") as f:
        f.seek(index * FRAME_BYTES)
        bgra = f.read(FRAME_BYTES)
    rgb = bytearray(CANVAS[0] * CANVAS[1] * 3)
    rgb[0::3], rgb[1::3], rgb[2::3] = bgra[2::4], bgra[1::4], bgra[0::4]
    alpha = bgra[3::4]
    rows = [y for y in range(CANVAS[1]) if any(alpha[y * CANVAS[0]:(y + 1) * CANVAS[0]])]
    columns = [x for x in range(CANVAS[0]) if any(alpha[x::CANVAS[0]])]
    opaque = (columns[0], rows[0], columns[-1] + 1, rows[-1] + 1) if rows else None
    return Screenshot(CANVAS[0], CANVAS[1], bytes(rgb)), opaque


class Obs:
    """One run of OBS on kiln, recording from the start; its log and its recording under `root`."""

    def __init__(self, binary, kiln, env, root, name):
        self.kiln, self.recordings = kiln, root / f"recordings-{name}"
        self.recordings.mkdir()
        config = root / "obs-config" / "obs-studio" / "basic" / "profiles" / "kiln" / "basic.ini"
        config.write_text(PROFILE_INI.format(dir=self.recordings, cw=CANVAS[0], ch=CANVAS[1], fps=FPS))
        self.log_path = root / f"obs-{name}.log"
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen([binary, "--multi", "--startrecording", "--disable-missing-files-check"],
                                         env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                                         cwd=env["HOME"])

    def log(self):
        return self.log_path.read_text(errors="replace")

    def says(self):
        wanted = [line for line in self.log().splitlines() if any(
            word in line.lower() for word in ("pipewire", "error", "record", "ffmpeg"))]
        return "\n".join(wanted[-25:])

    def recording(self):
        files = list(self.recordings.glob("*"))
        return files[0] if files else None

    def frames(self):
        if self.proc.poll() is not None:
            raise AssertionError(f"OBS exited with {self.proc.returncode}")
        return count(self.recording())

    def screen_recorded(self):
        """The newest frame shows kiln's screen; fails at once when the source says the portal refused it (a
        denial, a cancelled request) or offers no ScreenCast."""
        said = self.log()
        if "[pipewire] Failed" in said or "[pipewire] No captures available" in said:
            raise AssertionError("OBS's screen capture failed")
        # The first frames may come before the portal's stream does: the screen is then not yet drawn.
        return self.frames() >= 1 and frame(self.recording(), count(self.recording()) - 1)[1]

    def wait_for(self, predicate, what, timeout):
        try:
            return self.kiln.wait_for(predicate, what, timeout=timeout)
        except AssertionError as error:
            raise AssertionError(f"{error}; OBS's log:\n{self.says()}") from None

    def stop(self):
        """Quits OBS as its menu does (SIGINT, no question asked): the recording stops and the scene collection is
        saved. The exit status, or None where OBS had to be killed."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)
            try:
                # Generous: on a loaded machine OBS still writes out the frames it has queued before it goes.
                return self.proc.wait(120)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
                print(f"OBS did not quit; the end of its log:\n{chr(10).join(self.log().splitlines()[-30:])}")
                return None
        return self.proc.returncode


def main():
    portal_binary = require_stack()
    obs_binary = shutil.which("obs")
    if obs_binary is None:
        skip("OBS Studio is not installed (Debian packages obs-studio and obs-plugins)")
    if not list(Path("/usr/lib").glob("*/obs-plugins/linux-pipewire.so")):
        skip("OBS's linux-pipewire plugin is not installed (Debian package obs-plugins)")
    with Stack() as stack:
        with portal_kiln(stack, f"{portal_binary} --replace", size=SIZE) as kiln:
            root = Path(stack.dir)
            write_config(root / "obs-config")
            home = root / "home"
            home.mkdir()
            # Qt on Wayland (kiln's socket); OBS's EGL then runs on Mesa's llvmpipe.
            env = dict(kiln.client_env, HOME=str(home), XDG_CONFIG_HOME=str(root / "obs-config"),
                       XDG_SESSION_TYPE="wayland", QT_QPA_PLATFORM="wayland")
            # meson test's MALLOC_PERTURB_ is for kiln's memory, not OBS's: with some values (145) OBS 29 never
            # finishes quitting on SIGINT (seen 3 times in 3 runs).
            env.pop("MALLOC_PERTURB_", None)
            # OBS asks the portal which captures it offers once, at start ("No captures available" otherwise): it
            # starts once our xdg-desktop-portal holds its name, not one the bus would start itself.
            subprocess.run(["gdbus", "wait", "--session", "--timeout", "30", "org.freedesktop.portal.Desktop"],
                           env=stack.env, check=True, timeout=40)

            obs = Obs(obs_binary, kiln, env, root, "first")
            try:
                obs.wait_for(lambda: obs.frames() >= 1, "OBS records (a frame in its recording)", timeout=90)
                obs.wait_for(obs.screen_recorded, "the recording shows kiln's screen", timeout=60)
                check("kiln-portal: sharing HEADLESS-1" in kiln.logs(), "kiln-portal's log says it shares the output")
                said = obs.log()
                for words in ("Platform: Wayland", "Using EGL/Wayland", f"[pipewire]     Size: {SIZE[0]}x{SIZE[1]}"):
                    check(words in said, f"OBS's log says '{words}'")
                before = obs.frames()
                window = kiln.spawn([client_binary("kiln-demo-shm"), "--size", "160x100", "--color",
                                     "%02x%02x%02x" % WINDOW, "--frames", "3", "--stay"])
                wait_drawn(window)
                box = kiln.wait_for(lambda: kiln.screenshot().bounding_box(WINDOW, tolerance=0),
                                    "the coloured window on screen (grim)")
                after = obs.frames()
                obs.wait_for(lambda: obs.frames() >= after + 2 * FPS, "OBS records two seconds more", timeout=60)
            finally:
                status = obs.stop()
            check(status == 0, f"OBS quits on SIGINT with status {status}")
            check("Output 'adv_ffmpeg_output': stopping" in obs.log(), "OBS's log says the recording stopped")
            path = obs.recording()
            total = count(path)
            check(total > after, f"the recording holds {total} frames of {CANVAS[0]}x{CANVAS[1]}")
            early, screen = frame(path, before - 1)
            check(screen == (0, 0, SIZE[0], SIZE[1]), f"the recorded screen covers {screen}: the output's size")
            check(early.bounding_box(WINDOW, tolerance=0) is None,
                  "a frame recorded before the window opened does not show it")
            last, screen = frame(path, total - 1)
            check(screen == (0, 0, SIZE[0], SIZE[1]), f"the last frame's screen covers {screen}")
            seen = last.bounding_box(WINDOW, tolerance=0)
            check(seen == box, f"the recording shows the window at {seen}, grim at {box}")
            centre = last.at((box[0] + box[2]) // 2, (box[1] + box[3]) // 2)
            check(centre == WINDOW, f"in its colour {WINDOW}: {centre}")
            diff = sum(1 for i in range(0, len(last.pixels), 3) if last.pixels[i:i + 3] != early.pixels[i:i + 3])
            check(diff >= 160 * 100, f"the recording changes when the screen does ({diff} pixels)")

            # The source keeps the portal's restore token in the scene collection OBS saved as it quit; a second
            # start shares with it, and kiln-portal says it restored the choice.
            scenes = json.loads((root / "obs-config" / "obs-studio" / "basic" / "scenes" / "kiln.json").read_text())
            token = [source["settings"].get("RestoreToken") for source in scenes["sources"]
                     if source["id"] == "pipewire-desktop-capture-source"]
            check(token and token[0], f"OBS saved the source's restore token: {token}")
            # persist_mode 2: xdg-desktop-portal keeps such a token in its permission store (mode 1: in memory).
            check((root / "data" / "flatpak" / "db" / "screencast").exists(),
                  "xdg-desktop-portal keeps the token in its permission store (persist_mode 2)")
            obs = Obs(obs_binary, kiln, env, root, "second")
            try:
                obs.wait_for(obs.screen_recorded, "the second recording shows kiln's screen", timeout=90)
                # The whole log: kiln.logs() is its tail.
                shares = [line for line in kiln.log_path.read_text(errors="replace").splitlines()
                          if "kiln-portal: sharing HEADLESS-1" in line]
                check(len(shares) == 2 and not shares[0].endswith("(restored)") and shares[1].endswith("(restored)"),
                      f"kiln-portal's log says it restored the share for OBS's token: {shares}")
            finally:
                obs.stop()


if __name__ == "__main__":
    run_test(main)
