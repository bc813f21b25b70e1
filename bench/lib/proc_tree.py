"""CPU time and peak memory of a process and every process it started, read from /proc."""
import os
from pathlib import Path

CLK_TCK = os.sysconf("SC_CLK_TCK")


def _stat_fields(pid):
    # Fields after the command name, which may itself hold spaces or parentheses.
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def cpu_seconds(pid):
    """User + system CPU time of one process (all its threads), children excluded; nan when it is gone."""
    try:
        fields = _stat_fields(pid)
        return (int(fields[11]) + int(fields[12])) / CLK_TCK
    except (OSError, IndexError, ValueError):
        return float("nan")


def descendants(pid):
    """pid and every live process below it (from /proc/PID/task/*/children)."""
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        try:
            for task in Path(f"/proc/{p}/task").iterdir():
                todo.extend(int(c) for c in (task / "children").read_text().split())
        except OSError:
            pass
    return found


def tree_cpu_seconds(pid):
    """utime + stime of pid's tree, every thread, plus cutime + cstime of the children they have already reaped."""
    total = 0.0
    for p in descendants(pid):
        try:
            f = _stat_fields(p)
            total += sum(int(f[i]) for i in (11, 12, 13, 14)) / CLK_TCK
        except (OSError, IndexError, ValueError):
            pass
    return total


def tree_task_cpu_seconds(pid):
    """utime + stime summed thread by thread (/proc/P/task/T/stat) over pid's live tree: what an outside observer
    adding up every thread sees (threads and children that already exited are not in it)."""
    total = 0
    for p in descendants(pid):
        try:
            tasks = list(Path(f"/proc/{p}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            try:
                f = task.joinpath("stat").read_text().rsplit(")", 1)[1].split()
                total += int(f[11]) + int(f[12])
            except (OSError, IndexError, ValueError):
                pass
    return total / CLK_TCK


def tree_peak_rss_kib(pid):
    """Sum of VmHWM (peak resident set) over pid's live tree, in KiB: an upper bound of the tree's joint peak."""
    total = 0
    for p in descendants(pid):
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    total += int(line.split()[1])
        except (OSError, ValueError, IndexError):
            pass
    return total
