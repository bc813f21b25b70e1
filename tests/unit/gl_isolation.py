#!/usr/bin/env python3
"""GL and EGL stay behind the renderer seam: no compositor/ source outside bridge/ reaches a GL, GLES or EGL header,
directly or through the headers it includes, and no renderer/ source reaches a wayland or wlroots one.

What a source reaches is what its compiler saw: the headers ninja recorded for each object file (`ninja -t deps`,
from the compiler's -MD output) in the build tree, for every source compile_commands.json lists. A compositor/
header is followed through the project headers it includes to one that includes GL.

Usage: gl_isolation.py SOURCE_ROOT BUILD_ROOT
"""
import functools
import json
import os
import re
import shutil
import subprocess
import sys

GL_HEADER = re.compile(r'/(GL|GLES[0-9]*|EGL|KHR)/[^/]+\.h$')
WAYLAND_HEADER = re.compile(r'/(wlr/.*|wayland-[^/]*\.h|xkbcommon/.*)$')
DIRECT_GL = re.compile(r'#include\s*<(GLES[0-9]*|EGL|GL|KHR)/[^>]*>')


def skip(reason):
    print(f"SKIP: {reason}")
    sys.exit(77)


def deps_by_output(build):
    """Each object file's headers, in the order the preprocessor read them."""
    ninja = shutil.which("ninja") or shutil.which("samu")
    if not ninja:
        skip("no ninja to read the build's header dependencies from")
    text = subprocess.run([ninja, "-C", build, "-t", "deps"], capture_output=True, text=True, check=True).stdout
    deps, current = {}, None
    for line in text.splitlines():
        if line and not line.startswith(" "):
            current = line.split(":", 1)[0]
            deps[current] = []
        elif line.strip() and current is not None:
            deps[current].append(line.strip())
    return deps


@functools.lru_cache(maxsize=None)
def project_path(path, root, build):
    """`path` (as ninja wrote it, relative to the build tree) relative to the source root, or None outside it."""
    full = os.path.realpath(os.path.join(build, path))
    rel = os.path.relpath(full, root)
    return None if rel.startswith("..") else rel


def first_reach(headers, pattern, root, build):
    """The first header matching `pattern`, and the last project header read before it (what included it)."""
    through = None
    for header in headers:
        rel = project_path(header, root, build)
        if pattern.search(header) and (rel is None or rel.startswith("build")):
            return header, through
        if rel is not None and not rel.startswith("build"):
            through = rel
    return None, None


QUOTED_INCLUDE = re.compile(r'#include\s*"([^"]+)"')


def header_chain(root, rel, memo, stack=()):
    """The project headers from `rel` to one that includes GL directly (the GL header last), or None."""
    if rel in memo:
        return memo[rel]
    memo[rel] = None  # cycles end here
    try:
        text = open(os.path.join(root, rel), errors="replace").read()
    except OSError:
        return None
    direct = DIRECT_GL.search(text)
    if direct:
        line = text[direct.start():].split("\n", 1)[0]
        memo[rel] = [rel, line[len("#include"):].strip()]
        return memo[rel]
    for included in QUOTED_INCLUDE.findall(text):
        if os.path.exists(os.path.join(root, included)):
            chain = header_chain(root, included, memo)
            if chain:
                memo[rel] = [rel] + chain
                return memo[rel]
    return None


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    root, build = os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2])
    commands = os.path.join(build, "compile_commands.json")
    if not os.path.exists(commands):
        skip(f"{commands} is missing")
    deps = deps_by_output(build)

    failures, checked, unbuilt = {}, set(), []
    for entry in json.load(open(commands)):
        source = project_path(os.path.join(entry["directory"], entry["file"]), root, build)
        if source is None:
            continue
        if source.startswith("compositor/") and not source.startswith("compositor/bridge/"):
            pattern, what = GL_HEADER, "GL/EGL"
        elif source.startswith("renderer/"):
            pattern, what = WAYLAND_HEADER, "wayland/wlroots"
        else:
            continue
        headers = deps.get(entry["output"])
        if not headers:
            unbuilt.append(entry["output"])
            continue
        checked.add(source)
        reached, through = first_reach(headers[1:], pattern, root, build)
        if reached and source not in failures:
            failures[source] = f"{source} reaches {what} header {reached} through {through or source}"

    # Headers: what they include, followed through the project's own headers ("..." includes) to one that includes
    # GL directly (a header is compiled only inside the sources above, so its own reach is read from the text).
    for folder, _, names in os.walk(os.path.join(root, "compositor")):
        if os.path.relpath(folder, root).startswith("compositor/bridge"):
            continue
        for name in sorted(names):
            rel = os.path.relpath(os.path.join(folder, name), root)
            if name.endswith((".hpp", ".h")) and rel not in failures:
                chain = header_chain(root, rel, {})
                if chain:
                    failures[rel] = f"{rel} reaches GL/EGL through " + " -> ".join(chain[1:])

    if not checked:
        skip("the build tree has no header dependencies recorded (not built yet?)")
    if unbuilt:
        print(f"note: {len(unbuilt)} object(s) not built, not checked: {' '.join(sorted(unbuilt)[:5])}")
    if failures:
        gl = sorted(s for s in failures if s.startswith("compositor/"))
        wl = sorted(s for s in failures if s.startswith("renderer/"))
        if gl:
            print(f"{len(gl)} compositor/ file(s) outside bridge/ reach GL or EGL headers:")
            print("\n".join("  " + failures[s] for s in gl))
        if wl:
            print(f"{len(wl)} renderer/ file(s) reach wayland or wlroots headers:")
            print("\n".join("  " + failures[s] for s in wl))
        return 1
    print(f"{len(checked)} sources checked: compositor/ reaches GL and EGL headers only in bridge/, "
          "renderer/ reaches no wayland or wlroots header")
    return 0


if __name__ == "__main__":
    sys.exit(main())
