"""PNG plots of a scenarios.py result with gnuplot: CPU per client frame against N, latency distribution, start-up."""
import shutil
import subprocess
from pathlib import Path


def _q(s):
    return s.replace('"', "'")


def plot(summary, runs, outdir):
    """Writes cpu_per_frame.png, latency.png and startup.png (and their .dat) in outdir; the paths, or why none."""
    if shutil.which("gnuplot") is None:
        return [], "gnuplot is not installed (scripts/install-deps.sh installs gnuplot-nox)"
    outdir = Path(outdir)
    script = ["set terminal pngcairo size 1000,700 noenhanced", "set key below", "set grid"]
    made = []

    series = {}
    for r in summary["windows"]:
        if r["cpu_ms_per_client_frame"]:
            series.setdefault(f"{r['compositor']} {r['client']}", []).append(
                (r["windows"], r["cpu_ms_per_client_frame"]["median"]))
    if series:
        plots = []
        for i, (name, points) in enumerate(sorted(series.items())):
            dat = outdir / f"cpu_{i}.dat"
            dat.write_text("".join(f"{n} {v}\n" for n, v in sorted(points)))
            plots.append(f"\"{dat}\" using 1:2 with linespoints title \"{_q(name)}\"")
        script += [f"set output \"{outdir / 'cpu_per_frame.png'}\"", "set logscale x 2",
                   "set xlabel \"windows (N)\"", "set ylabel \"compositor CPU ms per client frame (median)\"",
                   "set title \"Compositor CPU per client frame\"", "plot " + ", ".join(plots), "unset logscale x"]
        made.append(outdir / "cpu_per_frame.png")

    # Latency: the empirical CDF of every sample at the largest N of each compositor and client.
    largest = {}
    for r in runs:
        if "error" not in r and r.get("latency_ms"):
            key = (r["compositor"], r["client"])
            largest[key] = max(largest.get(key, 0), r["windows"])
    if largest:
        plots = []
        for i, ((comp, client), n) in enumerate(sorted(largest.items())):
            samples = sorted(v for r in runs if "error" not in r and r["compositor"] == comp and r["client"] == client
                             and r["windows"] == n for v in r.get("latency_ms") or [])
            kind = next(r["latency_kind"] for r in runs if "error" not in r and r["compositor"] == comp
                        and r.get("latency_kind"))
            dat = outdir / f"latency_{i}.dat"
            dat.write_text("".join(f"{v} {(j + 1) / len(samples)}\n" for j, v in enumerate(samples)))
            plots.append(f"\"{dat}\" using 1:2 with steps title \"{_q(f'{comp} {client} N={n} ({kind})')}\"")
        script += [f"set output \"{outdir / 'latency.png'}\"", "set xlabel \"ms\"", "set ylabel \"fraction of frames\"",
                   "set title \"Probe window latency distribution (CDF)\"", "set yrange [0:1]", "plot " + ", ".join(plots),
                   "set autoscale y"]
        made.append(outdir / "latency.png")

    bars = [(r["compositor"], r["ready_ms"]["median"]) for r in summary["startup"] if r["ready_ms"]]
    if bars:
        dat = outdir / "startup.dat"
        dat.write_text("".join(f"\"{_q(n)}\" {v}\n" for n, v in bars))
        script += [f"set output \"{outdir / 'startup.png'}\"", "set style data histograms", "set style fill solid 0.6",
                   "set boxwidth 0.8", "set xlabel \"\"", "set ylabel \"ms (median)\"", "set key off",
                   "set title \"Start-up: exec until wayland-info is answered\"", "set yrange [0:*]",
                   f"plot \"{dat}\" using 2:xtic(1)"]
        made.append(outdir / "startup.png")

    result = subprocess.run(["gnuplot"], input="\n".join(script) + "\n", text=True, capture_output=True)
    if result.returncode != 0:
        return [], f"gnuplot failed: {result.stderr.strip()[-300:]}"
    return made, None
