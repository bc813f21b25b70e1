#!/usr/bin/env python3
"""kiln warms its cache on a first start and compiles nothing on the second; kiln-cache inspects, verifies,
prunes and clears that cache, and refuses bad directories and flags."""
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import check, client_binary, kiln_binary, private_env, run_test, time_scale  # noqa: E402

TOOL = os.environ["KILN_CACHE_TOOL"]


def tool(*args):
    return subprocess.run([TOOL, *args], capture_output=True, text=True, timeout=60)


def start_kiln(cache_dir, stats, extra_env=None, extra_args=()):
    with tempfile.TemporaryDirectory(prefix="kiln-cache-run-") as runtime:
        result = subprocess.run([kiln_binary(), "--backend", "headless", "--headless-size", "320x240", "--socket", "k",
                                 "--cache-dir", str(cache_dir), "--stats", str(stats), *extra_args,
                                 "-s", f"{client_binary('kiln-demo-shm')} --frames 5 --size 100x100",
                                 "--exit-with-startup"], env=private_env(runtime, **(extra_env or {})),
                                capture_output=True, text=True, timeout=60)
    check(result.returncode == 0, f"kiln ran with --cache-dir ({result.stderr[-300:]})")
    return json.loads(Path(stats).read_text()), result.stderr


def start_kiln_until(cache_dir, stats, line, extra_env=None, extra_args=()):
    """kiln with --debug and a client that stays, stopped (SIGTERM) once its log holds `line`: for what happens after
    start-up, which --exit-with-startup could cut short on a busy machine."""
    with tempfile.TemporaryDirectory(prefix="kiln-cache-run-") as runtime:
        log_path = Path(runtime) / "kiln.log"
        with open(log_path, "w") as log:
            kiln = subprocess.Popen([kiln_binary(), "--backend", "headless", "--headless-size", "320x240", "--socket",
                                     "k", "--cache-dir", str(cache_dir), "--stats", str(stats), "--debug", *extra_args,
                                     "-s", f"{client_binary('kiln-demo-shm')} --frames 5 --size 100x100 --stay"],
                                    env=private_env(runtime, **(extra_env or {})), stdout=log,
                                    stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 60 * time_scale()
            while line not in log_path.read_text(errors="replace"):
                if kiln.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"kiln did not log {line!r} (exit status {kiln.poll()}):\n"
                                         f"{log_path.read_text(errors='replace')[-600:]}")
                time.sleep(0.1)
            kiln.terminate()
            kiln.wait(timeout=60 * time_scale())
        finally:
            if kiln.poll() is None:
                kiln.kill()
                kiln.wait()
        check(kiln.returncode == 0, f"kiln ran with --cache-dir and stopped on SIGTERM ({kiln.returncode})")
        return json.loads(Path(stats).read_text())


def main():
    with tempfile.TemporaryDirectory(prefix="kiln-cache-tool-") as tmp:
        work = Path(tmp)
        cache = work / "cache"
        fast = ("--precompile", "fast")
        cold, cold_log = start_kiln(cache, work / "cold.json", {"MESA_SHADER_CACHE_DISABLE": "true"}, fast)
        warm, warm_log = start_kiln(cache, work / "warm.json", {"MESA_SHADER_CACHE_DISABLE": "true"}, fast)
        check(cold["programs"]["linked_from_source"] >= 5, f"a cold start links programs "
              f"({cold['programs']['linked_from_source']})")
        check("new program encountered" in cold_log, "a cold start logs new programs")
        check(warm["programs"]["linked_from_source"] == 0, "a warm start compiles nothing")
        check(warm["programs"]["loaded_from_disk"] >= 5, f"a warm start loads programs from disk "
              f"({warm['programs']['loaded_from_disk']})")
        check("new program encountered" not in warm_log, "a warm start meets no new program")
        if warm["programs"]["blob_cache_installed"]:
            check(warm["programs"]["blob_hits"] > 0, f"the driver blob cache hits ({warm['programs']['blob_hits']})")
        check(warm["programs"]["disk_load_ms"] >= 0, "the disk load time is reported")

        # The other precompile modes: off compiles on first use (nothing before the first frame); background
        # prepares after the first frame.
        # GL composition: frames composed on the CPU (kiln's default on llvmpipe) use no program at all.
        off, _ = start_kiln(work / "cache-off", work / "off.json", {"MESA_SHADER_CACHE_DISABLE": "true"},
                            ("--precompile", "off", "--composition", "gl"))
        check("programs_prepare_ms" not in off["startup"], "--precompile off prepares nothing at start-up")
        check(1 <= off["programs"]["linked_from_source"] < cold["programs"]["linked_from_source"],
              f"--precompile off links only what frames used ({off['programs']['linked_from_source']})")
        # (GL composition: with CPU composition on a warm cache EGL, and so every program, waits for a client that
        # needs GL; see tests/protocol/lazy_egl.py.)
        # kiln stops once the background precompile is done: --exit-with-startup could end it first on a busy
        # machine, and then programs_ready_ms is (rightly) absent.
        background = start_kiln_until(cache, work / "background.json", "background precompile done",
                                      {"MESA_SHADER_CACHE_DISABLE": "true"},
                                      ("--precompile", "background", "--composition", "gl"))
        check(background["startup"]["programs_ready_ms"] >= background["startup"]["first_frame_ms"],
              "--precompile background finishes after the first frame")
        check(background["programs"]["linked_from_source"] == 0, "and, warm, still compiles nothing")
        # The default, auto: frames composed on the CPU (llvmpipe here) wait for no program, so they come first.
        auto, _ = start_kiln(cache, work / "auto.json", {"MESA_SHADER_CACHE_DISABLE": "true"})
        # On this warm cache EGL does not even start for the shm demo, so no program is prepared at all.
        if auto["renderer"]["composition"] != "gl":
            check("programs_prepare_ms" not in auto["startup"] and
                  (auto["renderer"]["egl_display"] == "not started" or
                   # absent: not done when kiln exited, which is after the first frame too
                   auto["startup"].get("programs_ready_ms", float("inf")) >= auto["startup"]["first_frame_ms"]),
                  f"--precompile auto with CPU composition prepares programs after the first frame, if at all "
                  f"({auto['startup']}, EGL {auto['renderer']['egl_display']})")

        stats = json.loads(tool("--cache-dir", str(cache), "--json", "stats").stdout)
        driver = stats["drivers"][0]
        check(driver["programs"] >= 5 and driver["precompile_list"] >= 5,
              f"stats: {driver['programs']} programs, {driver['precompile_list']} in the precompile list")
        listing = json.loads(tool("--cache-dir", str(cache), "--json", "list").stdout)
        names = {e["name"] for e in listing if e["kind"] == "program"}
        check({"solid", "texture_rgbx"} <= names, f"list names the programs ({sorted(names)})")
        result = tool("--cache-dir", str(cache), "verify")
        check(result.returncode == 0 and " 0 bad" in result.stdout, f"verify passes: {result.stdout.strip()}")

        # Program entries cut in half (a writer killed mid-write, a copy truncated): a start that reads none of them
        # (programs compiled on first use, most never used) still finds them torn by their headers and removes them,
        # so verify passes after one start instead of failing run after run.
        torn = sorted(cache.rglob("programs/*.entry"))
        for entry in torn:
            data = entry.read_bytes()
            entry.write_bytes(data[:len(data) // 2])
        result = tool("--cache-dir", str(cache), "--json", "verify")
        check(result.returncode == 1 and json.loads(result.stdout)["bad"] == len(torn),
              f"verify finds the {len(torn)} torn program entries")
        lazy, lazy_log = start_kiln(cache, work / "torn.json", {"MESA_SHADER_CACHE_DISABLE": "true"},
                                    ("--precompile", "off", "--composition", "gl"))
        # (The program the frames use may be met torn by its read and by the header check at once: named twice.)
        discarded = {line.split("discarding cache entry ")[1].split(":")[0] for line in lazy_log.splitlines()
                     if "discarding cache entry" in line}
        check(discarded == {str(entry) for entry in torn} and
              lazy["programs"]["disk_entries_discarded"] >= len(torn),
              f"one start removes every torn entry and names it ({len(discarded)} named, "
              f"{lazy['programs']['disk_entries_discarded']} counted, of {len(torn)})")
        check(lazy["programs"]["linked_from_source"] < len(torn),
              f"though it linked only {lazy['programs']['linked_from_source']} of the {len(torn)} programs")
        result = tool("--cache-dir", str(cache), "verify")
        check(result.returncode == 0 and " 0 bad" in result.stdout, f"verify passes again: {result.stdout.strip()}")

        victim = next(cache.rglob("*.entry"))
        data = bytearray(victim.read_bytes())
        data[len(data) // 2] ^= 0xff
        victim.write_bytes(bytes(data))
        result = tool("--cache-dir", str(cache), "--json", "verify")
        check(result.returncode == 1 and json.loads(result.stdout)["bad"] == 1, "verify finds the damaged entry")

        result = tool("--cache-dir", str(cache), "--json", "prune", "--max-bytes", "4000")
        pruned = json.loads(result.stdout)
        check(result.returncode == 0 and pruned["bytes_after"] <= 4000 + 2000,
              f"prune trims to the byte cap ({pruned})")
        result = tool("--cache-dir", str(cache), "clear")
        check(result.returncode == 0, "clear succeeds")
        check(not list(cache.rglob("*.entry")), "clear removes every entry")

        # A cache directory kiln cannot use costs only the cache: kiln runs and says why once.
        blocker = work / "a-file"
        blocker.write_text("")
        unusable, log = start_kiln(blocker / "cache", work / "unusable.json")
        check(log.count("no user tier") == 1, "an unusable cache directory is reported once")
        check(unusable["frames"]["rendered"] > 0, "and kiln still renders")

        result = tool("--cache-dir", str(work / "missing"), "stats")
        check(result.returncode == 1 and "no cache at" in result.stderr, "a missing directory is a clear error")
        foreign = work / "foreign"
        foreign.mkdir()
        (foreign / "something").write_text("not a cache")
        result = tool("--cache-dir", str(foreign), "stats")
        check(result.returncode == 1 and "not a kiln program cache" in result.stderr, "a foreign directory is refused")
        if os.geteuid() == 0:
            other = work / "other-user"
            other.mkdir()
            os.chown(other, 65534, 65534)
            result = tool("--cache-dir", str(other), "stats")
            check(result.returncode == 1 and "owned by uid" in result.stderr, "another user's directory is refused")
        for bad in (["--bogus"], [], ["frobnicate"], ["stats", "--older-than", "3"], ["prune", "--max-bytes", "x"]):
            result = tool(*bad)
            check(result.returncode == 2 and "Usage:" in result.stderr, f"{bad} prints usage and exits 2")


run_test(main)
