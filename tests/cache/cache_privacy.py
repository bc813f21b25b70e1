#!/usr/bin/env python3
"""kiln's cache stays where --cache-dir says (Mesa's and NVIDIA's shader caches included, placed only where the user
chose nothing, and only for kiln itself, not its children), is 0700/0600 whatever the umask, is never read or written
through planted symbolic links (kiln, kiln-cache list/verify/clear), and a save that fails leaves no temporary file
and one warning naming the cause."""
import errno
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import check, client_binary, kiln_binary, run_test  # noqa: E402

TOOL = os.environ["KILN_CACHE_TOOL"]
PROBE = os.environ["KILN_EGL_ENV_PROBE"]
# Every variable through which kiln places a driver's shader cache, and those a user may set to choose otherwise.
DRIVER_CACHE_VARIABLES = ("MESA_SHADER_CACHE_DIR", "MESA_GLSL_CACHE_DIR", "MESA_SHADER_CACHE_DISABLE",
                          "MESA_SHADER_CACHE_MAX_SIZE", "MESA_DISK_CACHE_MULTI_FILE", "MESA_DISK_CACHE_SINGLE_FILE",
                          "MESA_DISK_CACHE_DATABASE", "__GL_SHADER_DISK_CACHE", "__GL_SHADER_DISK_CACHE_PATH",
                          "__GL_SHADER_DISK_CACHE_SIZE", "KILN_DRIVER_CACHE_VARIABLES")


def tool(*args):
    return subprocess.run([TOOL, *args], capture_output=True, text=True, timeout=60)


def read_environment(path):
    lines = Path(path).read_text().splitlines() if Path(path).exists() else []
    return dict(line.split("=", 1) for line in lines if "=" in line)


class Run:
    """One kiln start: its log, its --stats, the environment EGL was initialised with (the probe preloaded into
    kiln), and the environment a startup command of kiln's got."""

    def __init__(self, env, cache, umask=0o022):
        self.cache = Path(cache)
        scratch = Path(tempfile.mkdtemp(prefix="run-", dir=self.cache.parent))
        egl_env, child_env, stats = scratch / "egl.env", scratch / "child.env", scratch / "stats.json"
        # GL composition: with CPU composition a warm start would not start EGL, so it would not touch the program
        # cache this test plants links in (lazy EGL; its own test is tests/protocol/lazy_egl.py).
        result = subprocess.run([kiln_binary(), "--backend", "headless", "--headless-size", "320x240", "--socket", "k",
                                 "--cache-dir", str(cache), "--composition", "gl", "--stats", str(stats),
                                 "-s", f"{client_binary('kiln-demo-shm')} --frames 5 --size 100x100",
                                 "-s", f"env > {child_env}", "--exit-with-startup"],
                                env=dict(env, LD_PRELOAD=PROBE, KILN_EGL_ENV_FILE=str(egl_env)),
                                capture_output=True, text=True, timeout=60, umask=umask)
        check(result.returncode == 0, f"kiln ran with --cache-dir ({result.stderr[-300:]})")
        self.log = result.stderr
        self.egl = read_environment(egl_env)
        check(self.egl, "the probe saw eglInitialize")
        self.child = read_environment(child_env)
        check(self.child, "the startup command wrote its environment")
        self.stats = json.loads(stats.read_text())
        shutil.rmtree(scratch)


def run_kiln(env, cache, umask=0o022):
    run = Run(env, cache, umask)
    # Whatever kiln set for itself, its children get the driver cache variables as the user gave them.
    wrong = [f"{n}={run.child.get(n)}" for n in DRIVER_CACHE_VARIABLES if run.child.get(n) != env.get(n)]
    check(not wrong, f"kiln's child gets the driver cache variables as the user gave them ({wrong})")
    return run


def tree_bytes(root):
    return sum(p.stat().st_size for p in Path(root).rglob("*") if p.is_file() and not p.is_symlink())


def everything(root):
    return sorted(str(p.relative_to(root)) for p in Path(root).rglob("*"))


def wrong_modes(root):
    """Paths under the cache whose mode is not what the README says: kiln's directories (the drivers' top ones,
    mesa/ and nvidia/, included) 0700, kiln's files 0600; inside the drivers' directories, what the driver writes
    with its own modes: directories 0700 or 0755, files 0600 or 0644."""
    wrong = []
    for p in [Path(root), *Path(root).rglob("*")]:
        parts = p.relative_to(root).parts
        st = p.lstat()
        mode = stat.S_IMODE(st.st_mode)
        drivers = len(parts) > 1 and parts[0] in ("mesa", "nvidia")
        if stat.S_ISDIR(st.st_mode):
            ok = mode == 0o700 or (drivers and mode == 0o755)
        elif drivers:
            ok = stat.S_ISREG(st.st_mode) and mode in (0o600, 0o644)
        else:
            ok = stat.S_ISREG(st.st_mode) and mode == 0o600
        if not ok:
            wrong.append(f"{p.relative_to(root)} {oct(mode)}")
    return wrong


def open_to_others(root):
    """What `find ROOT -perm /077` lists: paths whose mode lets group or others in at all."""
    result = subprocess.run(["find", str(root), "-perm", "/077"], capture_output=True, text=True, timeout=60)
    check(result.returncode == 0, f"find -perm runs ({result.stderr.strip()})")
    return [Path(line) for line in result.stdout.splitlines()]


def lines_with(text, what):
    return [line for line in text.splitlines() if what in line]


def main():
    with tempfile.TemporaryDirectory(prefix="kiln-cache-privacy-") as tmp:
        work = Path(tmp)
        home, xdg, runtime, cache = work / "home", work / "xdg-cache", work / "runtime", work / "cache"
        for d in (home, xdg, runtime):
            d.mkdir(mode=0o700)
        env = dict(os.environ, HOME=str(home), XDG_CACHE_HOME=str(xdg), XDG_RUNTIME_DIR=str(runtime))
        for name in ("WAYLAND_DISPLAY", "DISPLAY", "LD_PRELOAD", *DRIVER_CACHE_VARIABLES):
            env.pop(name, None)

        # Everything kiln's start-up writes lands in --cache-dir, private even under umask 000.
        first = run_kiln(env, cache, umask=0)
        # The drivers read their cache settings from the environment EGL is initialised with: kiln's directories
        # there, with kiln's byte budget; kiln's own children get none of it (a game started from kiln keeps its
        # shader cache where the user's environment says, not under kiln's budget or kiln-cache clear).
        check(first.egl.get("MESA_SHADER_CACHE_DIR") == str(cache / "mesa"),
              f"EGL sees Mesa's cache in kiln's directory ({first.egl.get('MESA_SHADER_CACHE_DIR')})")
        check(first.egl.get("__GL_SHADER_DISK_CACHE_PATH") == str(cache / "nvidia"),
              f"EGL sees NVIDIA's cache in kiln's directory ({first.egl.get('__GL_SHADER_DISK_CACHE_PATH')})")
        check(first.egl.get("__GL_SHADER_DISK_CACHE_SIZE") == str(64 << 20) and
              first.egl.get("MESA_SHADER_CACHE_MAX_SIZE") == "64M",
              "and both drivers are told kiln's byte budget")
        check("__GL_SHADER_DISK_CACHE" not in first.egl, "NVIDIA's cache is not turned off")
        # NVIDIA's driver uses only a directory that exists; kiln makes it, private.
        nvidia = cache / "nvidia"
        check(nvidia.is_dir() and not nvidia.is_symlink() and stat.S_IMODE(nvidia.stat().st_mode) == 0o700,
              "kiln made the 0700 directory NVIDIA's cache goes in")
        check(not [n for n in DRIVER_CACHE_VARIABLES if n in first.child],
              f"kiln's child gets none of the cache variables kiln set for itself "
              f"({[n for n in DRIVER_CACHE_VARIABLES if n in first.child]})")
        caches = first.stats["driver_caches"]
        check(caches["mesa"]["bytes"] == tree_bytes(cache / "mesa") > 0 and caches["nvidia"]["bytes"] == 0,
              f"--stats reports the drivers' caches' sizes ({caches}, mesa/ holds {tree_bytes(cache / 'mesa')})")
        check(everything(home) == [], f"nothing is written under $HOME ({everything(home)[:5]})")
        check(everything(xdg) == [], f"nothing is written under $XDG_CACHE_HOME ({everything(xdg)[:5]})")
        mesa = [p for p in (cache / "mesa").rglob("*") if p.is_file()]
        check(mesa, "Mesa's shader cache is inside the cache directory")
        # One file per entry: Mesa's default database creates all of its 50 parts on a cold start (tens of ms).
        check((cache / "mesa" / "mesa_shader_cache").is_dir() and not (cache / "mesa" / "mesa_shader_cache_db").exists(),
              f"Mesa's cache keeps one file per entry, not its database ({sorted(p.name for p in (cache / 'mesa').iterdir())})")
        wrong = wrong_modes(cache)
        check(not wrong, f"under umask 000 every directory is 0700, every kiln file 0600, Mesa's 0600 or 0644 "
              f"({wrong[:6]})")
        # Mesa writes its files 0644 whatever the umask; kiln's 0700 directories above them keep them private.
        opened = open_to_others(cache)
        check(all(p.is_file() and p.relative_to(cache).parts[0] == "mesa" for p in opened),
              f"find -perm /077 lists only Mesa's shader cache files under mesa/ ({[str(p) for p in opened[:4]]})")
        above = {cache / d for p in opened for d in p.relative_to(cache).parents}
        check(opened and all(stat.S_IMODE(d.stat().st_mode) == 0o700 for d in above),
              "and every directory above each of them, the cache's own included, is 0700")

        # A place the user chose for Mesa's cache is kept.
        chosen = work / "chosen-mesa"
        run = run_kiln(dict(env, MESA_SHADER_CACHE_DIR=str(chosen)), work / "cache-2")
        check([p for p in chosen.rglob("*") if p.is_file()], "MESA_SHADER_CACHE_DIR set by the user is respected")
        check(not (work / "cache-2" / "mesa").exists(), "and kiln then makes no mesa/ of its own")
        check(run.egl.get("__GL_SHADER_DISK_CACHE_PATH") == str(work / "cache-2" / "nvidia"),
              "while NVIDIA's, which the user did not place, still goes in kiln's directory")
        # So is NVIDIA's: the user's place and size stand for EGL and for kiln's children alike; turned off, it
        # stays off and kiln makes no directory for it.
        chosen_nvidia = work / "chosen-nvidia"
        chosen_nvidia.mkdir()
        run = run_kiln(dict(env, __GL_SHADER_DISK_CACHE_PATH=str(chosen_nvidia), __GL_SHADER_DISK_CACHE_SIZE="1000"),
                       work / "cache-4")
        check(run.egl.get("__GL_SHADER_DISK_CACHE_PATH") == str(chosen_nvidia) and
              run.egl.get("__GL_SHADER_DISK_CACHE_SIZE") == "1000",
              f"__GL_SHADER_DISK_CACHE_PATH and _SIZE set by the user are what EGL sees "
              f"({run.egl.get('__GL_SHADER_DISK_CACHE_PATH')}, {run.egl.get('__GL_SHADER_DISK_CACHE_SIZE')})")
        check(not (work / "cache-4" / "nvidia").exists(), "and kiln then makes no nvidia/ of its own")
        check(run.egl.get("MESA_SHADER_CACHE_DIR") == str(work / "cache-4" / "mesa"),
              "while Mesa's still goes in kiln's directory")
        run = run_kiln(dict(env, __GL_SHADER_DISK_CACHE="0"), work / "cache-5")
        check(run.egl.get("__GL_SHADER_DISK_CACHE") == "0" and "__GL_SHADER_DISK_CACHE_PATH" not in run.egl,
              "__GL_SHADER_DISK_CACHE=0 set by the user leaves NVIDIA's cache off")
        check(not (work / "cache-5" / "nvidia").exists(), "and kiln makes no nvidia/ for it")
        # A link planted where NVIDIA's directory goes: kiln gives the driver no place rather than one behind a link
        # (the driver would otherwise write to ~/.cache/nvidia, outside --cache-dir).
        elsewhere = work / "elsewhere"
        elsewhere.mkdir()
        (work / "cache-6").mkdir(mode=0o700)
        (work / "cache-6" / "nvidia").symlink_to(elsewhere)
        run = run_kiln(env, work / "cache-6")
        check(run.egl.get("__GL_SHADER_DISK_CACHE") == "0" and "__GL_SHADER_DISK_CACHE_PATH" not in run.egl,
              f"a linked nvidia/ turns NVIDIA's cache off for EGL ({run.egl.get('__GL_SHADER_DISK_CACHE')})")
        check("__GL_SHADER_DISK_CACHE" not in run.child, "and only for kiln, not its children")
        # So is a layout the user chose.
        # So are a layout and sizes the user chose, with the caches still in kiln's directory.
        run = run_kiln(dict(env, MESA_DISK_CACHE_MULTI_FILE="0", MESA_SHADER_CACHE_MAX_SIZE="2G",
                            __GL_SHADER_DISK_CACHE_SIZE="5000"), work / "cache-3")
        check((work / "cache-3" / "mesa" / "mesa_shader_cache_db").is_dir(),
              "MESA_DISK_CACHE_MULTI_FILE set by the user is respected (Mesa's database)")
        check(run.egl.get("MESA_SHADER_CACHE_MAX_SIZE") == "2G" and run.egl.get("__GL_SHADER_DISK_CACHE_SIZE") == "5000"
              and run.egl.get("__GL_SHADER_DISK_CACHE_PATH") == str(work / "cache-3" / "nvidia"),
              f"sizes set by the user stand, in kiln's directories ({run.egl.get('MESA_SHADER_CACHE_MAX_SIZE')}, "
              f"{run.egl.get('__GL_SHADER_DISK_CACHE_SIZE')})")

        driver = next(p for p in (cache / "v1").iterdir() if p.name != "displays")
        check([p.name for p in (cache / "v1" / "displays").iterdir()] != [], "the display profile is stored too")
        entries = sorted((driver / "programs").glob("*.entry"))
        check(len(entries) >= 5, f"a first start stores programs ({len(entries)})")

        # Planted links: at an entry and at the precompile list. kiln neither reads nor writes through them, says so
        # once for each, and replaces the links with its own files.
        victim = work / "victim"
        victim.write_text("precious")
        linked_entry = entries[0]
        linked_entry.unlink()
        linked_entry.symlink_to(victim)
        precompile_list = driver / "precompile.list"
        precompile_list.unlink()
        precompile_list.symlink_to(victim)
        log = run_kiln(env, cache).log
        check(victim.read_text() == "precious", "nothing is written through the planted links")
        check(len(lines_with(log, f"{linked_entry} is a symbolic link")) == 1,
              f"the linked entry is reported once ({lines_with(log, 'symbolic link')})")
        check(len(lines_with(log, f"{precompile_list}: is a symbolic link")) == 1,
              f"the linked precompile list is reported once ({lines_with(log, 'precompile')})")
        check(not linked_entry.is_symlink() and not precompile_list.is_symlink(), "both links were replaced")

        # A save that fails: the list's name is taken by a directory. One warning with the cause, no temp file.
        precompile_list.unlink()
        (precompile_list / "occupied").mkdir(parents=True)
        log = run_kiln(env, cache).log
        warnings = lines_with(log, "cannot save")
        check(len(warnings) == 1 and os.strerror(errno.EISDIR) in warnings[0],
              f"a failed save is reported once, with its cause ({warnings})")
        litter = [p.name for p in cache.rglob(".precompile-*")] + [p.name for p in cache.rglob(".tmp-*")]
        check(not litter, f"a failed save leaves no temporary file ({litter})")
        shutil.rmtree(precompile_list)

        # kiln-cache follows no link: an entry linked to a real entry elsewhere is neither listed nor verified, a
        # driver directory linked elsewhere is skipped, and clear removes the links, never what they point to.
        outside = work / "outside"
        (outside / "programs").mkdir(parents=True)
        for e in entries[1:3]:
            shutil.copy(e, outside / "programs" / e.name)
        listed_before = len([e for e in (driver / "programs").glob("*.entry")])
        foreign_entry = driver / "programs" / ("f" * 40 + ".entry")
        foreign_entry.symlink_to(outside / "programs" / entries[1].name)
        fake_driver = cache / "v1" / ("0" * 40)
        fake_driver.symlink_to(outside)
        (driver / "dictionaries" / "1.dict").symlink_to(victim)

        listing = tool("--cache-dir", str(cache), "--json", "list")
        check(listing.returncode == 0, f"list runs ({listing.stderr.strip()})")
        files = [e["file"] for e in json.loads(listing.stdout)]
        check(foreign_entry.name not in files, "list does not follow a linked entry")
        check(len([e for e in json.loads(listing.stdout) if e["kind"] == "program"]) == listed_before,
              f"list shows only the real program entries ({listed_before})")
        check("0" * 40 in listing.stderr and "symbolic link" in listing.stderr,
              f"list skips a linked driver directory and says so ({listing.stderr.strip()})")
        verify = tool("--cache-dir", str(cache), "--json", "verify")
        verified = json.loads(verify.stdout)
        check(verify.returncode == 0 and verified["bad"] == 0, f"verify passes ({verified})")
        real_entries = len([p for p in driver.glob("*/*.entry") if not p.is_symlink()])
        check(verified["entries"] == real_entries, f"verify reads only real entries ({verified['entries']})")

        # What NVIDIA's driver leaves (GLCache/<hash>/...): kiln-cache counts it, verify refuses a link in it, and
        # clear removes it.
        glcache = cache / "nvidia" / "GLCache" / "0123abcd"
        glcache.mkdir(parents=True)
        (glcache / "entry.bin").write_bytes(b"n" * 3000)
        (glcache / "entry.toc").write_bytes(b"t" * 100)
        stats = json.loads(tool("--cache-dir", str(cache), "--json", "stats").stdout)["driver_shader_caches"]
        check(stats["nvidia"] == {"files": 2, "bytes": 3100} and stats["mesa"]["bytes"] == tree_bytes(cache / "mesa"),
              f"kiln-cache stats counts the drivers' caches ({stats})")
        (cache / "nvidia" / "GLCache" / "planted").symlink_to(victim)
        verify = tool("--cache-dir", str(cache), "--json", "verify")
        verified = json.loads(verify.stdout)
        check(verify.returncode == 1 and verified["bad"] == 1 and "planted is a symbolic link" in verified["problems"][0],
              f"verify reports a link in NVIDIA's cache ({verified})")

        result = tool("--cache-dir", str(cache), "clear")
        check(result.returncode == 0, f"clear succeeds ({result.stderr.strip()})")
        check(everything(cache) == [],
              f"clear empties the cache, Mesa's and NVIDIA's included ({everything(cache)[:5]})")
        check(victim.read_text() == "precious", "clear leaves a link's target alone")
        check(sorted(p.name for p in (outside / "programs").iterdir()) == sorted(e.name for e in entries[1:3]),
              "clear does not empty a directory a link points to")


run_test(main)
