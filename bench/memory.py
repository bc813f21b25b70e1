#!/usr/bin/env python3
"""Where a compositor's resident memory goes: N client windows on each compositor (headless 1920x1080), then its
process tree's /proc/PID/smaps summed by what each mapping holds (LLVM, the Mesa driver, other libraries, the malloc
heap, anonymous mappings, mapped client buffers, stacks). Prints a markdown table, MiB resident (Rss) per row.

The run is bench/scenarios.py's (same compositors, clients, placement); this only reads memory, after the windows
have drawn for a few seconds. Peak RSS (VmHWM), what scenarios.py reports, is the last row.
"""
import argparse
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lib import compositors, proc_tree, workload  # noqa: E402

CATEGORIES = [
    ("llvm", "libLLVM (llvmpipe's JIT compiler)"),
    ("mesa", "Mesa's driver and EGL/GLES (libgallium, libEGL_mesa, libglapi, glvnd)"),
    ("libraries", "other libraries and the executable"),
    ("heap", "malloc heap ([heap])"),
    ("anonymous", "anonymous mappings (large mallocs: GL textures and render buffers, JIT code, arenas)"),
    ("client_buffers", "mapped client and output buffers (wl_shm, memfd, /dev/shm)"),
    ("dmabuf", "mapped dma-bufs"),
    ("stacks", "thread stacks"),
    ("other", "other ([vvar], [vdso], device files)"),
]
MESA = ("libgallium", "libEGL_mesa", "libglapi", "libEGL.so", "libGLESv2", "libGLdispatch", "libgbm", "dri/")


def category(name):
    if not name:
        return "anonymous"
    if name == "[heap]":
        return "heap"
    if name.startswith("[stack"):
        return "stacks"
    if "libLLVM" in name:
        return "llvm"
    if any(m in name for m in MESA):
        return "mesa"
    if name.startswith("/memfd:") or name.startswith("/dev/shm/"):
        return "client_buffers"
    if name.startswith("/dmabuf:") or "dmabuf" in name:
        return "dmabuf"
    if name.startswith("/dev/") or name.startswith("["):
        return "other"
    if name.startswith("/"):
        return "libraries"
    return "other"


def smaps_kib(pid):
    """Rss in KiB by category for one process; empty when it is gone."""
    totals = {}
    current = None
    try:
        text = Path(f"/proc/{pid}/smaps").read_text()
    except OSError:
        return totals
    for line in text.splitlines():
        fields = line.split()
        if not fields:
            continue
        if "-" in fields[0] and not fields[0].endswith(":"):  # a mapping's header: range perms offset dev inode [name]
            name = " ".join(fields[5:]) if len(fields) > 5 else ""
            current = category(name.replace(" (deleted)", ""))
        elif fields[0] == "Rss:" and current:
            totals[current] = totals.get(current, 0) + int(fields[1])
    return totals


def tree_smaps_kib(pid):
    totals = {}
    for p in proc_tree.descendants(pid):
        for k, v in smaps_kib(p).items():
            totals[k] = totals.get(k, 0) + v
    return totals


def measure(spec, build, kind, windows, settle, extra, cache_home):
    """The compositor's memory by category with `windows` clients drawing; a dict, or one with "error"."""
    with compositors.Running(spec, extra, cache_home=cache_home) as running:
        if not running.start():
            return {"error": f"start-up failed: {running.error}\n{running.log_tail()}"}
        if kind == "dmabuf-memfd" and not running.offers("zwp_linux_dmabuf_v1"):
            return {"error": "offers no zwp_linux_dmabuf_v1"}
        clients = workload.Clients(running, build)
        try:
            for i in range(windows):
                error = clients.start_window(workload.client_argv(kind, build), i)
                if error:
                    return {"error": error}
            time.sleep(settle)
            if not running.alive():
                return {"error": f"exited with status {running.proc.returncode}\n{running.log_tail()}"}
            result = tree_smaps_kib(running.proc.pid)
            result["peak"] = proc_tree.tree_peak_rss_kib(running.proc.pid)
            return result
        finally:
            clients.stop()


def main():
    here = Path(__file__).resolve().parent
    p = argparse.ArgumentParser(prog="bench/memory.py", description=__doc__.splitlines()[0])
    p.add_argument("--only", default="kiln,weston-gl", metavar="NAME[,NAME]",
                   help="compositors (kiln, weston-gl, weston-pixman, sway; default: kiln,weston-gl)")
    p.add_argument("--clients", default="dmabuf-memfd", choices=["simple-egl", "dmabuf-memfd"],
                   help="client kind (default: dmabuf-memfd: linear dma-bufs, which kiln reads without EGL where GL "
                        "is software; before 2026-11-26 they started EGL)")
    p.add_argument("--windows", type=int, default=16, help="window count, 1..64 (default: 16)")
    p.add_argument("--settle", type=float, default=3.0, help="seconds the windows draw before memory is read")
    p.add_argument("--build", default=str(here.parent / "build"), help="kiln build directory (default: ./build)")
    args = p.parse_args()
    if not 1 <= args.windows <= 64 or args.settle < 0:
        p.error("--windows must be 1..64 and --settle >= 0")
    build = Path(args.build).resolve()
    all_specs = compositors.specs(str(build / "compositor" / "kiln"))
    names = [n for n in args.only.split(",") if n]
    for n in names:
        if n not in all_specs:
            p.error(f"--only: unknown compositor {n!r} (known: {', '.join(all_specs)})")
    compositors.make_reachable(build)
    columns = {}
    scratch, peer_cache = compositors.scratch_with_peer_cache("kiln-bench-memory-")
    try:
        for name in names:
            spec = all_specs[name]
            if not spec.installed():
                print(f"- skipped {name}: {spec.argv[0]} is not installed", file=sys.stderr)
                continue
            # Warm caches, as on a machine used before (scenarios.py does the same): one unmeasured start first.
            extra = ["--cache-dir", str(scratch / "kiln-cache")] if name == "kiln" else []
            with compositors.Running(spec, extra, cache_home=peer_cache) as warm_up:
                warm_up.start()
            columns[name] = measure(spec, build, args.clients, args.windows, args.settle, extra, peer_cache)
            if "error" in columns[name]:
                print(f"- {name} failed: {columns[name]['error']}", file=sys.stderr)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    ok = {n: c for n, c in columns.items() if "error" not in c}
    if not ok:
        sys.exit("bench/memory.py: no compositor was measured")
    mib = lambda kib: f"{kib / 1024:.1f}"  # noqa: E731
    print(f"Resident memory (MiB, Rss from smaps over the process tree), {args.windows} {args.clients} windows, "
          "headless 1920x1080:\n")
    print("| what | " + " | ".join(ok) + " |")
    print("|---|" + "---|" * len(ok))
    for key, label in CATEGORIES:
        print(f"| {label} | " + " | ".join(mib(c.get(key, 0)) for c in ok.values()) + " |")
    print("| **total resident now** | " + " | ".join(
        mib(sum(v for k, v in c.items() if k != "peak")) for c in ok.values()) + " |")
    print("| peak (VmHWM, as bench/scenarios.py reports) | " + " | ".join(mib(c["peak"]) for c in ok.values()) + " |")


if __name__ == "__main__":
    main()
