"""Summaries of repeated runs (min and median) and the markdown tables scenarios.py prints."""
import statistics


def summarize(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"min": min(values), "median": statistics.median(values), "n": len(values)}


def fmt(summary, digits=2):
    if summary is None:
        return "-"
    return f"{summary['min']:.{digits}f} / {summary['median']:.{digits}f}"


def window_rows(runs):
    """Groups window runs by (client, windows, compositor) and summarizes each column; failures are counted."""
    groups = {}
    for r in runs:
        groups.setdefault((r["client"], r["windows"], r["compositor"]), []).append(r)
    rows = []
    for (client, windows, comp), rs in groups.items():
        ok = [r for r in rs if "error" not in r]
        row = {"client": client, "windows": windows, "compositor": comp, "runs": len(ok), "failed": len(rs) - len(ok),
               "errors": [r["error"] for r in rs if "error" in r],
               "latency_kind": next((r["latency_kind"] for r in ok if r.get("latency_kind")), None)}
        for key in ("cpu_ms_per_client_frame", "client_fps_per_window", "refresh_hz", "latency_p50_ms",
                    "latency_p99_ms", "peak_rss_mib", "compositor_cpu_percent", "kiln_stats_fps"):
            row[key] = summarize([r.get(key) for r in ok])
        rows.append(row)
    return rows


def startup_rows(runs):
    groups = {}
    for r in runs:
        groups.setdefault(r["compositor"], []).append(r)
    return [{"compositor": c, "ready_ms": summarize([r.get("ready_ms") for r in rs if "error" not in r]),
             "failed": sum("error" in r for r in rs), "errors": [r["error"] for r in rs if "error" in r]}
            for c, rs in groups.items()]


def markdown(summary):
    """The tables as markdown text: windows, start-up, shader readiness. Cells are min / median of the repetitions."""
    out = ["Cells: min / median over the repetitions (start-up: over every start, interleaved, counted in its "
           "last column).", "",
           "| client | N | compositor | CPU ms / client frame | client fps / window | output Hz | latency p50 ms "
           "| latency p99 ms | latency measured | peak RSS MiB | runs (failed) |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(summary["windows"], key=lambda r: (r["client"], r["windows"])):
        out.append(f"| {r['client']} | {r['windows']} | {r['compositor']} | {fmt(r['cpu_ms_per_client_frame'], 3)} "
                   f"| {fmt(r['client_fps_per_window'], 1)} | {fmt(r['refresh_hz'], 1)} "
                   f"| {fmt(r['latency_p50_ms'])} | {fmt(r['latency_p99_ms'])} | {r['latency_kind'] or '-'} "
                   f"| {fmt(r['peak_rss_mib'], 1)} | {r['runs']} ({r['failed']}) |")
    out += ["", "| compositor | exec → wayland-info answered (ms) | runs (failed) |", "|---|---|---|"]
    for r in summary["startup"]:
        out.append(f"| {r['compositor']} | {fmt(r['ready_ms'], 1)} | {(r['ready_ms'] or {}).get('n', 0)} ({r['failed']}) |")
    if summary.get("shader_readiness"):
        s = summary["shader_readiness"]
        out += ["", "| kiln shader readiness (Mesa cache off) | cold ms | warm ms | warm ÷ cold (medians) |",
                "|---|---|---|---|"]
        for suffix, label in (("", "all programs fetched and drawn once"),
                              ("_fetch", "programs fetched: compiled and linked, or read from kiln's cache and loaded"),
                              ("_first_draw", "first draws: the driver's JIT (llvmpipe)")):
            cold, warm = s.get(f"cold{suffix}_ms"), s.get(f"warm{suffix}_ms")
            ratio = f"{100 * warm['median'] / cold['median']:.1f} %" if cold and warm and cold["median"] else "-"
            out.append(f"| {label} | {fmt(cold, 1)} | {fmt(warm, 1)} | {ratio} |")
    failures = [(r.get("client", "start-up"), r.get("windows", ""), r["compositor"], e)
                for r in summary["windows"] + summary["startup"] for e in r["errors"]]
    if failures:
        out += ["", "Failed runs:"]
        out += [f"- {c} {n} {comp}: {e.splitlines()[0] if e else ''}" for c, n, comp, e in failures]
    return "\n".join(out)
