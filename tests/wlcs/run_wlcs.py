#!/usr/bin/env python3
"""Runs Debian's wlcs against kiln_wlcs.so and holds the outcome to expected_failures.txt.

The suite fails when a test outside the list fails, when a listed test passes (the list must shrink as kiln
grows), when wlcs skips a test for a protocol the list does not name, or when a listed protocol skips no test.
It prints pass / skip / fail counts per group and the list's length by kind. wlcs runs in a few shards at once:
most of a test's time is spent waiting for frames, not computing.
"""
import argparse
import collections
import fnmatch
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

KINDS = ('wlcs-bug', 'kiln-bug', 'not-offered')
MISSING = re.compile(r'Missing extension: ([A-Za-z0-9_]+)')


class Entry:
    def __init__(self, line_no, pattern, kind, reason):
        self.line_no = line_no
        self.pattern = pattern
        self.kind = kind
        self.reason = reason
        self.matched = 0


def read_list(path):
    """Lines are `PATTERN KIND REASON`; PATTERN is a glob on Group.test, or `extension:NAME` for not-offered."""
    entries = []
    with open(path, encoding='utf-8') as f:
        for line_no, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith('#'):
                continue
            parts = line.split(None, 2)
            if len(parts) < 3 or parts[1] not in KINDS:
                sys.exit(f'{path}:{line_no}: expected "PATTERN KIND REASON" with KIND one of {", ".join(KINDS)}')
            pattern, kind, reason = parts
            if (kind == 'not-offered') != pattern.startswith('extension:'):
                sys.exit(f'{path}:{line_no}: not-offered entries name a protocol (extension:NAME), others name tests')
            if kind == 'kiln-bug' and not re.search(r'#\d+', reason):
                sys.exit(f'{path}:{line_no}: a kiln bug names its issue (#N)')
            entries.append(Entry(line_no, pattern, kind, reason))
    return entries


def run_shards(runner, module, shards, extra, workdir):
    """Starts `shards` wlcs processes on disjoint parts of the suite; returns [(xml path, log path, returncode)]."""
    procs = []
    for index in range(shards):
        xml = os.path.join(workdir, f'shard{index}.xml')
        log = os.path.join(workdir, f'shard{index}.log')
        env = dict(os.environ, GTEST_TOTAL_SHARDS=str(shards), GTEST_SHARD_INDEX=str(index))
        out = open(log, 'w', encoding='utf-8')
        procs.append((subprocess.Popen([runner, module, f'--gtest_output=xml:{xml}'] + extra, env=env,
                                       stdout=out, stderr=subprocess.STDOUT), xml, log, out))
    results = []
    for proc, xml, log, out in procs:
        proc.wait()
        out.close()
        results.append((xml, log, proc.returncode))
    return results


def read_results(xml_path):
    """{Group.test: (status, detail)} with status pass / skip / fail."""
    results = {}
    for case in ET.parse(xml_path).getroot().iter('testcase'):
        name = f"{case.get('classname')}.{case.get('name')}"
        props = {p.get('name'): p.get('value') for p in case.iter('property')}
        failures = [f.get('message') or '' for f in case.iter('failure')]
        if case.get('status') == 'notrun':
            results[name] = ('skip', 'disabled in wlcs')
        elif 'wlcs-skip-test' in props:
            results[name] = ('skip', props['wlcs-skip-test'])
        elif case.find('skipped') is not None or case.get('result') == 'skipped':
            results[name] = ('skip', 'skipped by the test')
        elif failures:
            results[name] = ('fail', ' | '.join(f.replace('\n', ' ') for f in failures))
        else:
            results[name] = ('pass', '')
    return results


def last_started(log_path):
    started = None
    with open(log_path, encoding='utf-8', errors='replace') as f:
        for line in f:
            if line.startswith('[ RUN      ] '):
                started = line[13:].strip()
    return started


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--runner')
    parser.add_argument('--module')
    parser.add_argument('--expected')
    parser.add_argument('--shards', type=int, default=int(os.environ.get('KILN_WLCS_SHARDS', '4')))
    parser.add_argument('--missing', help='skip (77) with this reason')
    parser.add_argument('--keep', help='leave the shards\' XML and logs in this directory')
    parser.add_argument('--verbose', action='store_true', help='print every failure')
    parser.add_argument('gtest', nargs='*', help='extra options for wlcs (e.g. --gtest_filter=...)')
    args = parser.parse_args()
    if args.missing:
        print(f'SKIP: {args.missing}')
        return 77
    if not os.access(args.runner, os.X_OK):
        print(f'SKIP: wlcs runner {args.runner} is not installed (apt-get install wlcs)')
        return 77

    entries = read_list(args.expected)
    with tempfile.TemporaryDirectory(prefix='kiln-wlcs-') as scratch:
        workdir = args.keep or scratch
        os.makedirs(workdir, exist_ok=True)
        env_cache = os.path.join(scratch, 'cache')
        os.environ.setdefault('KILN_WLCS_CACHE_DIR', env_cache)  # kiln's program cache stays out of $HOME
        shards = run_shards(args.runner, args.module, max(1, args.shards), args.gtest, workdir)
        results = {}
        broken = []
        for xml, log, code in shards:
            if not os.path.exists(xml):
                with open(log, encoding='utf-8', errors='replace') as f:
                    tail = f.read()[-3000:]
                broken.append(f'a wlcs shard ended ({code}) without results; last test started: '
                              f'{last_started(log)}\n{tail}')
                continue
            results.update(read_results(xml))

    problems = list(broken)
    groups = collections.defaultdict(collections.Counter)
    expected_fail_by_kind = collections.Counter()
    missing_seen = collections.Counter()
    offered = {e.pattern.split(':', 1)[1]: e for e in entries if e.kind == 'not-offered'}
    test_entries = [e for e in entries if e.kind != 'not-offered']
    for name, (status, detail) in sorted(results.items()):
        group = name.rsplit('.', 1)[0]
        groups[group][status] += 1
        entry = next((e for e in test_entries if fnmatch.fnmatchcase(name, e.pattern)), None)
        if entry:
            entry.matched += 1
        if status == 'skip':
            missing = MISSING.search(detail)
            if missing:
                missing_seen[missing.group(1)] += 1
                if missing.group(1) not in offered:
                    problems.append(f'{name}: skipped for {missing.group(1)}, which the list does not name')
        elif status == 'fail':
            if entry:
                groups[group]['expected'] += 1
                expected_fail_by_kind[entry.kind] += 1
            else:
                problems.append(f'{name}: FAILED and is not in the list\n    {detail[:600]}')
        elif status == 'pass' and entry:
            problems.append(f'{name}: passes now; take it off the list (line {entry.line_no}, {entry.kind})')

    print(f'{"group":62} {"pass":>5} {"skip":>5} {"fail":>5} {"listed":>6}')
    totals = collections.Counter()
    for group, counts in sorted(groups.items()):
        totals.update(counts)
        print(f'{group:62} {counts["pass"]:5} {counts["skip"]:5} {counts["fail"]:5} {counts["expected"]:6}')
    print(f'{"total":62} {totals["pass"]:5} {totals["skip"]:5} {totals["fail"]:5} {totals["expected"]:6}')
    print()
    by_kind = collections.Counter(e.kind for e in entries)
    print('list: ' + ', '.join(f'{by_kind[k]} {k} lines' for k in KINDS) +
          f' ({len(entries)} in all); failures they cover: ' +
          ', '.join(f'{expected_fail_by_kind[k]} {k}' for k in KINDS if k != 'not-offered') +
          '; skips for protocols kiln does not offer: ' + str(sum(missing_seen.values())))
    if results and not broken and not args.gtest:
        # Only a whole run can tell that an entry has nothing left to cover.
        for entry in test_entries:
            if entry.matched == 0:
                problems.append(f'line {entry.line_no}: {entry.pattern} matches no test')
        for name, entry in offered.items():
            if missing_seen[name] == 0:
                problems.append(f'line {entry.line_no}: no test skips for {name} now; take it off the list')
    if not results:
        problems.append('wlcs reported no results')
    if problems:
        print(f'\n{len(problems)} problem(s):')
        for problem in problems if args.verbose or len(problems) <= 60 else problems[:60]:
            print(problem)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
