#!/usr/bin/env python3
"""The counts the README and its doc/ pages state are the counts of what exists: the hostile suite's named cases (the cases
kiln-hostile-client knows, each run by tests/hostile/hostile.py, and churn) and the LeakSanitizer suppressions in
tests/sanitizers/lsan.supp. Arguments: kiln's source root, the kiln-hostile-client binary."""
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from kiln_harness import check, run_test  # noqa: E402

NUMBERS = {"no": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
           "nine": 9, "ten": 10}


def stated(readme, pattern):
    """The one number (digits or a word) `pattern`'s group captures in the README."""
    found = re.findall(pattern, readme, flags=re.IGNORECASE)
    check(len(found) == 1, f"the README states it once ({pattern}: {found})")
    word = found[0].lower()
    return int(word) if word.isdigit() else NUMBERS[word]


def main():
    source, client = Path(sys.argv[1]), sys.argv[2]
    # The README and the pages it sends readers to, read as one text: each count is stated once in all of them.
    readme = "\n".join(p.read_text() for p in [source / "README.md", *sorted((source / "doc").glob("*.md"))])

    # The client lists its cases when asked for none.
    usage = subprocess.run([client], capture_output=True, text=True, timeout=30).stderr
    listed = next((line for line in usage.splitlines() if line.startswith("cases:")), "")
    cases = listed.split()[1:]
    check(len(cases) > 10, f"kiln-hostile-client lists its cases ({len(cases)})")
    hostile = (source / "tests" / "hostile" / "hostile.py").read_text()
    unrun = [case for case in cases if f'"{case}"' not in hostile]
    check(not unrun, f"hostile.py runs every case the client knows (not run: {unrun})")
    count = len(cases) + 1  # and churn, the client's connect/disconnect cycles
    readme_cases = stated(readme, r"(\d+) named cases")
    check(readme_cases == count, f"the README's {readme_cases} named hostile cases are the suite's {count} "
          f"({len(cases)} client cases and churn)")

    supp = (source / "tests" / "sanitizers" / "lsan.supp").read_text()
    entries = [line for line in supp.splitlines() if re.match(r"\s*(leak|malloc|interceptor_via_fun):", line)]
    readme_supp = stated(readme, r"\b(\w+) suppressions?\b")
    check(readme_supp == len(entries), f"the README's {readme_supp} LeakSanitizer suppressions are lsan.supp's "
          f"{len(entries)}")


run_test(main)
