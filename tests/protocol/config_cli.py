#!/usr/bin/env python3
"""kiln --check-config: 0 for a clean kiln.ini, 1 with one "kiln: FILE:LINE: reason" per problem, 2 for a bad flag;
a bad kiln.ini still lets kiln start, its good lines applied ([startup] runs), found by the XDG lookup too."""
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import check, kiln_binary, private_env, run_test  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[2] / "kiln.ini.example"
SECTIONS = ["keyboard", "output X", "input", "input X", "bindings", "startup", "background", "cache", "security", "bell"]

CLEAN = """# every section once
[keyboard]
keymap_layout=de
repeat-rate=30
[output HEADLESS-1]
mode=800x600@60
scale=1
transform=normal
position=0,0
enabled=true
[startup]
command=true
[background]
color=0x336699
[cache]
precompile=fast
[security]
restrict=screencopy
"""

# Each bad line, and the words its report must hold.
BAD = [
    ("[colours]", "unknown section [colours]"),
    ("[keyboard]", None),
    ("keymap_layuot=de", "unknown key 'keymap_layuot' in [keyboard]"),
    ("repeat-rate=fast", "bad value 'fast' for repeat-rate in [keyboard]: expected"),
    ("repeat-delay=100", None),
    ("repeat-delay=200", "duplicate key 'repeat-delay' in [keyboard] (first set on line 5"),
    ("just words", "neither a [section] nor key=value"),
    ("[output X]", None),
    ("scale=12.5", "bad value '12.5' for scale in [output X]: expected a number from 0.25 to 10"),
]


def run(args, runtime, env=None, timeout=30):
    return subprocess.run([kiln_binary()] + args, env=private_env(runtime, **(env or {})), capture_output=True,
                          text=True, timeout=timeout)


def main():
    with tempfile.TemporaryDirectory(prefix="kiln-config-cli-") as tmp:
        clean = Path(tmp) / "clean.ini"
        clean.write_text(CLEAN)
        result = run(["--check-config", "--config", str(clean)], tmp)
        check(result.returncode == 0 and result.stderr == "",
              f"a clean file: exit 0, nothing on stderr (got {result.returncode}: {result.stderr!r})")

        bad = Path(tmp) / "bad.ini"
        bad.write_text("\n".join(line for line, _ in BAD) + "\n")
        result = run(["--check-config", f"--config={bad}"], tmp)
        check(result.returncode == 1, f"a file with mistakes: exit 1 (got {result.returncode})")
        reports = result.stderr.splitlines()
        expected = [(n + 1, words) for n, (_, words) in enumerate(BAD) if words]
        check(len(reports) == len(expected), f"one report per bad line ({len(reports)} of {len(expected)}):\n"
              + result.stderr)
        for report, (line, words) in zip(reports, expected):
            check(report.startswith(f"kiln: {bad}:{line}: ") and words in report, f"line {line}: {report!r}")

        result = run(["--check-config", "--config", str(EXAMPLE)], tmp)
        check(result.returncode == 0 and result.stderr == "", f"kiln.ini.example is clean ({result.stderr!r})")
        # kiln names a section's keys when one is unknown: each of them must be set in the example.
        example_keys = {line.split("=", 1)[0].strip() for line in EXAMPLE.read_text().splitlines()
                        if "=" in line and not line.lstrip().startswith("#")}
        probe = Path(tmp) / "probe.ini"
        probe.write_text("".join(f"[{section}]\nno-such-key=1\n" for section in SECTIONS))
        result = run(["--check-config", "--config", str(probe)], tmp)
        named = set()
        for report in result.stderr.splitlines():
            named |= {key.strip() for key in report.rsplit("(", 1)[1].rstrip(")").split(",")}
        check(len(result.stderr.splitlines()) == len(SECTIONS) and named <= example_keys,
              f"kiln.ini.example sets every key kiln knows ({sorted(named)}; missing {sorted(named - example_keys)})")

        layout = Path(tmp) / "layout.ini"
        layout.write_text("[keyboard]\nkeymap_layout=no-such-layout\n")
        result = run(["--check-config", "--config", str(layout)], tmp)
        check(result.returncode == 1 and result.stderr.startswith(f"kiln: {layout}: xkbcommon cannot make a keymap")
              and len(result.stderr.splitlines()) == 1,
              f"a layout xkbcommon lacks: exit 1, one line ({result.stderr.strip()!r})")

        missing = Path(tmp) / "absent.ini"
        result = run(["--check-config", "--config", str(missing)], tmp)
        check(result.returncode == 1 and result.stderr == f"kiln: {missing}: cannot read: No such file or directory\n",
              f"an unreadable file: exit 1, {result.stderr.strip()!r}")
        result = run(["--check-config", "--config", tmp], tmp)
        check(result.returncode == 1 and result.stderr == f"kiln: {tmp}: is a directory, not a file\n",
              f"a directory: exit 1, {result.stderr.strip()!r}")
        result = run(["--check-config", "--no-such-flag"], tmp)
        check(result.returncode == 2 and "Usage:" in result.stderr, "a bad flag: exit 2 with usage")
        result = run(["--check-config"], tmp)
        check(result.returncode == 0 and "no kiln.ini found" in result.stdout,
              f"no kiln.ini anywhere: exit 0 ({result.stdout.strip()!r})")

        # The XDG lookup: $XDG_CONFIG_HOME/kiln/kiln.ini before each $XDG_CONFIG_DIRS entry's.
        system = Path(tmp) / "xdg" / "kiln" / "kiln.ini"
        system.parent.mkdir(parents=True)
        system.write_text("[startup]\ncommand=exit 4\n[nonsense]\n")
        result = run(["--check-config"], tmp)
        check(result.returncode == 1 and f"kiln: {system}:3: unknown section [nonsense]" in result.stderr,
              f"$XDG_CONFIG_DIRS/kiln/kiln.ini is read when it is the only one ({result.stderr.strip()!r})")
        user = Path(tmp) / "config" / "kiln" / "kiln.ini"
        user.parent.mkdir(parents=True)
        user.write_text(CLEAN)
        result = run(["--check-config"], tmp)
        check(result.returncode == 0 and str(user) in result.stdout,
              f"$XDG_CONFIG_HOME/kiln/kiln.ini wins over $XDG_CONFIG_DIRS ({result.stdout.strip()!r})")
        user.unlink()

        # kiln starts with a bad file: the problems once on stderr, the good lines applied. [startup] command=exit 4
        # from the system file is the exit status: the file's commands run, and -s adds to them.
        result = run(["--backend", "headless", "--socket", "kiln-config-cli", "--exit-with-startup"], tmp)
        check(result.returncode == 4, f"[startup] command=exit 4 ran and --exit-with-startup returned it "
              f"(got {result.returncode}):\n{result.stderr}")
        check(result.stderr.count("unknown section [nonsense]") == 1, "the problem is reported once at start-up")
        flag = Path(tmp) / "flag-ran"
        result = run(["--backend", "headless", "--socket", "kiln-config-cli", "-s", f"touch {flag}",
                      "--exit-with-startup"], tmp)
        check(result.returncode == 4 and flag.exists(),
              f"-s adds to the file's [startup]: both ran (status {result.returncode}, flag {flag.exists()})")

run_test(main)
