#!/usr/bin/env python3
"""compositor/'s folders as floors: includes run one way only (issue 30).

Reads every `#include "compositor/..."` line under compositor/ and fails, naming the file lines, on:
- a folder circle: folder -> folder include edges that lead back to where they started. compositor/'s top-level
  utilities (wlr, listener, log, indexed_list, stats, teardown, region) are the ground floor "(ground)", the composition roots
  (server, desktop_rooms, embedded, main) the top "(roots)", the other top-level files (core.hpp, core_objects,
  scene_layers) the floor "(core)";
- the ground floor including anything above it, or a file outside the roots including a root;
- shell/ including the concrete input/seat.hpp (shell rooms see input/seat_focus.hpp's SeatFocus);
- a file outside compositor/protocols/ (roots excepted) including a header under compositor/protocols/ (lower floors
  get narrow callbacks or interfaces from desktop_rooms instead; shared machinery is in compositor/protocol_kit/);
- core.hpp including shell/, or a session/ header while a session/ file includes core.hpp.
"""
import collections
import os
import re
import sys

GROUND = {'wlr.hpp', 'listener.hpp', 'log.hpp', 'log.cpp', 'indexed_list.hpp', 'stats.hpp', 'stats.cpp', 'teardown.hpp',
          'region.hpp'}
ROOTS = re.compile(r'^(server\.(cpp|hpp)|desktop_rooms\.(cpp|hpp)|embedded\.(cpp|hpp)|main\.cpp)$')
# Edges left alone, each with its reason. None: the bridge stopped including output/ (issue 30 item 1).
KNOWN = set()
INCLUDE = re.compile(r'\s*#\s*include\s*"compositor/([^"]+)"')


def floor(path):
    """The folder a path under compositor/ belongs to."""
    parts = path.split('/')
    if len(parts) == 1:
        if parts[0] in GROUND:
            return '(ground)'
        return '(roots)' if ROOTS.match(parts[0]) else '(core)'
    return parts[0]


def includes(root):
    """(file, line number, included path) for every compositor include, files relative to compositor/."""
    base = os.path.join(root, 'compositor')
    for directory, _, names in sorted(os.walk(base)):
        for name in sorted(names):
            if not name.endswith(('.cpp', '.hpp')):
                continue
            path = os.path.join(directory, name)
            rel = os.path.relpath(path, base)
            with open(path, encoding='utf-8') as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if m:
                        yield rel, number, m.group(1)


def circles(edges):
    """Strongly connected sets of folders (Tarjan), each of more than one folder."""
    graph = collections.defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            members = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                members.add(w)
                if w == v:
                    break
            if len(members) > 1:
                found.append(members)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def shortest_path(edges, start, goal):
    """The folders from `start` to `goal` along `edges` (breadth first), both included."""
    previous = {start: None}
    queue = collections.deque([start])
    while queue:
        v = queue.popleft()
        if v == goal:
            break
        for (a, b) in sorted(edges):
            if a == v and b not in previous:
                previous[b] = v
                queue.append(b)
    path = [goal]
    while previous[path[-1]] is not None:
        path.append(previous[path[-1]])
    return path[::-1]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    problems = []
    edges = collections.defaultdict(list)
    core_includes = []
    session_includes_core = []
    for rel, number, target in includes(root):
        where = f'compositor/{rel}:{number}: #include "compositor/{target}"'
        a, b = floor(rel), floor(target)
        if a == 'shell' and target == 'input/seat.hpp':
            problems.append(f'shell/ includes the concrete seat (use input/seat_focus.hpp): {where}')
        if target.startswith('protocols/') and a not in ('protocols', '(roots)'):
            problems.append(f'a protocol implementation header included outside protocols/ and the roots: {where}')
        if a == '(ground)' and b != '(ground)':
            problems.append(f'the ground floor includes a floor above it: {where}')
        if b == '(roots)' and a != '(roots)':
            problems.append(f'a composition root included from a room: {where}')
        if rel == 'core.hpp':
            core_includes.append((target, where))
        if a == 'session' and target == 'core.hpp':
            session_includes_core.append(where)
        if a != b and (a, b) not in KNOWN:
            edges[(a, b)].append(where)
    for target, where in core_includes:
        if target.startswith('shell/'):
            problems.append(f'core.hpp includes shell/: {where}')
        if target.startswith('session/') and session_includes_core:
            problems.append(f'core.hpp includes session/ while session/ includes core.hpp: {where}; '
                            + '; '.join(session_includes_core))
    for members in circles(edges):
        # Each edge inside the set closes one circle with the shortest way back; each circle is shown once.
        inside = {e: w for e, w in edges.items() if e[0] in members and e[1] in members}
        seen = set()
        for (a, b) in sorted(inside):
            path = shortest_path(inside, b, a)
            circle = [a] + path
            key = frozenset(zip(circle, circle[1:]))
            if key in seen:
                continue
            seen.add(key)
            lines = [f'a circle between compositor/ folders: {" -> ".join(circle)}, made by:']
            for x, y in zip(circle, circle[1:]):
                lines += [f'    {w}' for w in inside[(x, y)]]
            problems.append('\n'.join(lines))
    if problems:
        print('\n'.join(problems))
        return 1
    print(f'compositor/ folders: {len({a for a, _ in edges} | {b for _, b in edges})} floors, '
          f'{len(edges)} folder edges, no circle (known exceptions: {sorted(KNOWN)})')
    return 0


if __name__ == '__main__':
    sys.exit(main())
