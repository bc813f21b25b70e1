#!/usr/bin/env python3
"""scripts/meson-test-retry and scripts/test-summary on a throwaway meson project: a test that fails and then passes
makes the run pass and is named flaky; one that fails and then skips, or fails twice, fails the run and is named on
the retry's line and in the closing line. Argument: kiln's source root."""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import check, need, run_test  # noqa: E402

# A test that fails the first time it runs (leaving a mark in the state folder) and exits SECOND after that.
FLIP = """import sys
from pathlib import Path
mark = Path(sys.argv[1]) / sys.argv[2]
if not mark.exists():
    mark.touch()
    sys.exit(1)
sys.exit(int(sys.argv[3]))
"""

PROJECT = """project('retry_check')
python = find_program('python3')
state = '{state}'
test('steady', python, args: ['-c', 'pass'])
test('fail_then_pass', python, args: [files('flip.py'), state, 'fail_then_pass', '0'])
test('fail_then_skip', python, args: [files('flip.py'), state, 'fail_then_skip', '77'])
test('always_fail', python, args: ['-c', 'raise SystemExit(1)'])
"""


def main():
    need("meson")
    need("ninja")
    source = Path(sys.argv[1])
    retry, summary = source / "scripts" / "meson-test-retry", source / "scripts" / "test-summary"
    with tempfile.TemporaryDirectory(prefix="kiln-retry-check-") as scratch:
        scratch = Path(scratch)
        state = scratch / "state"
        project = scratch / "project"
        state.mkdir()
        project.mkdir()
        (project / "flip.py").write_text(FLIP)
        (project / "meson.build").write_text(PROJECT.format(state=state))
        build = scratch / "build"
        setup = subprocess.run(["meson", "setup", str(build), str(project)], capture_output=True, text=True,
                               timeout=120)
        check(setup.returncode == 0, f"the throwaway project configures ({setup.stdout[-300:]}{setup.stderr[-300:]})")

        def run(*tests):
            """Runs meson-test-retry on `tests` from a clean state; its exit status, its output, the merged log
            ({test: entry}) and the closing line scripts/test would print."""
            for mark in state.iterdir():
                mark.unlink()
            result = subprocess.run(["bash", str(retry), str(build), *tests], capture_output=True, text=True,
                                    timeout=120)
            log = build / "meson-logs" / "testlog.json"
            entries = {json.loads(line)["name"].split(" / ")[-1]: json.loads(line)
                       for line in log.read_text().splitlines() if line.strip()}
            closing = subprocess.run([sys.executable, str(summary), "0", str(log)], capture_output=True, text=True,
                                     timeout=60).stdout.strip()
            return result.returncode, result.stdout + result.stderr, entries, closing

        rc, out, log, closing = run("steady", "fail_then_pass")
        check(rc == 0, f"a test that fails and then passes: the run passes (exit {rc})")
        check("kiln: flaky: fail_then_pass" in out, "and the retry names it flaky")
        check(log["fail_then_pass"].get("retried") and log["fail_then_pass"]["result"] == "OK",
              f"the merged log has its second result, marked retried")
        check(closing == "kiln: 2 passed (1 on a second run: fail_then_pass), 0 failed, 0 skipped",
              f"the closing line names it ({closing!r})")

        rc, out, log, closing = run("steady", "fail_then_skip")
        check(rc != 0, f"a test that fails and then skips: the run fails (exit {rc})")
        check("a retried test must pass): fail_then_skip (SKIP)" in out,
              f"and the retry names it ({out.strip().splitlines()[-1]!r})")
        check(log["fail_then_skip"]["result"] == "FAIL" and log["fail_then_skip"].get("second_result") == "SKIP",
              f"the merged log keeps it failed, with its skip")
        check(closing == "kiln: 1 passed, 1 failed (fail_then_skip: SKIP on the second run), 0 skipped",
              f"the closing line names it ({closing!r})")

        rc, out, log, closing = run("steady", "always_fail")
        check(rc != 0, f"a test that fails twice: the run fails (exit {rc})")
        check("fail_then" not in out and "always_fail (FAIL)" in out, "and the retry names it, and only it")
        check(closing == "kiln: 1 passed, 1 failed (always_fail: FAIL on the second run), 0 skipped",
              f"the closing line names it ({closing!r})")

        rc, out, log, closing = run()
        check(rc != 0 and "kiln: flaky: fail_then_pass" not in out,
              f"all three failing at once: the run fails, no flaky line (exit {rc})")
        check(log["fail_then_pass"]["result"] == "OK" and log["fail_then_skip"]["result"] == "FAIL"
              and log["always_fail"]["result"] == "FAIL", "the first passes on its second run, the other two do not")
        check(closing.startswith("kiln: 2 passed (1 on a second run: fail_then_pass), 2 failed (")
              and "fail_then_skip: SKIP" in closing and "always_fail: FAIL" in closing,
              f"the closing line names each ({closing!r})")


run_test(main)
