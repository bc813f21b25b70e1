#!/usr/bin/env python3
"""When kiln cannot start, the start-up's last log lines (kiln's and wlroots', debug ones too) go to
$XDG_STATE_HOME/kiln/startup-failure.log (~/.local/state/kiln without it); a start that works writes nothing."""
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import check, kiln_binary, private_env, run_test  # noqa: E402


def run(tmp, args, **env):
    return subprocess.run([kiln_binary()] + args, env=private_env(tmp, **env), capture_output=True, text=True,
                          timeout=60)


def main():
    with tempfile.TemporaryDirectory(prefix="kiln-failure-log-") as tmp:
        tmp = Path(tmp)
        config = tmp / "kiln.ini"
        config.write_text("[keyboard]\nno-such-key=1\n")
        # A nested backend with no compositor to nest in cannot start.
        result = run(tmp, ["--backend", "wayland", "--config", str(config)],
                     WAYLAND_DISPLAY="kiln-no-such-compositor", XDG_STATE_HOME=str(tmp / "state"))
        log = tmp / "state" / "kiln" / "startup-failure.log"
        check(result.returncode == 1, f"kiln cannot start the wayland backend without a compositor "
              f"(exit {result.returncode})")
        check(f"last log lines are in {log}" in result.stderr, f"kiln says where the log is ({result.stderr!r})")
        check(log.exists(), f"{log} exists")
        text = log.read_text()
        check("kiln: cannot connect to the Wayland compositor at WAYLAND_DISPLAY" in text,
              "the log ends with why kiln could not start")
        check(f"kiln: {config}:2: unknown key 'no-such-key'" in text, "it holds the config problems")
        check(any(line and not line.startswith("kiln:") for line in text.splitlines()),
              "and wlroots' own lines from the start-up")
        check(text.count("\n") <= 200, "no more than 200 lines")

        home = tmp / "home"
        result = run(tmp, ["--backend", "wayland"], WAYLAND_DISPLAY="kiln-no-such-compositor", HOME=str(home),
                     XDG_STATE_HOME="")
        check((home / ".local" / "state" / "kiln" / "startup-failure.log").exists(),
              "without XDG_STATE_HOME the log goes to ~/.local/state/kiln")

        works = tmp / "works"
        result = run(tmp, ["--backend", "headless", "--socket", "kiln-failure-log", "-s", "true",
                           "--exit-with-startup"], XDG_STATE_HOME=str(works))
        check(result.returncode == 0 and not works.exists(), f"a start that works writes no log "
              f"(exit {result.returncode}, {works} exists: {works.exists()})")


run_test(main)
