#!/usr/bin/env python3
"""No type in compositor/bridge/ grows into a hub again (issue 30): each class or struct declared with a public:
section has at most 20 public members (distinct names: functions with their overloads, data, nested types).
RenderBridge had 51 before it was split by job. Usage: bridge_type_size.py SOURCE_ROOT [HEADER...]"""
import pathlib
import re
import sys

LIMIT = 20


def public_members(text):
    for match in re.finditer(r"\n(?:class|struct) (\w+)(?: final)?(?: : [^{]*)? \{\npublic:\n(.*?)\n(?:private:|protected:|\};)",
                             text, re.S):
        names = set()
        for line in match.group(2).split("\n"):
            # Members sit at one level of indentation; deeper lines are bodies and continuations.
            if not line.startswith("    ") or line.startswith("     ") or line.strip().startswith("//"):
                continue
            code = line.strip()
            found = (re.match(r"(?:struct|class|enum class|using)\s+(\w+)", code)
                     or re.search(r"(~?\w+|operator\S+)\s*\(", code)
                     or re.search(r"(\w+)\s*(?:=[^;]*)?;$", code))
            if found:
                names.add(found.group(1))
        yield match.group(1), len(names)


def main():
    root = pathlib.Path(sys.argv[1])
    headers = [pathlib.Path(p) for p in sys.argv[2:]] or sorted((root / "compositor" / "bridge").glob("*.hpp"))
    too_big = []
    for header in headers:
        for name, count in public_members(header.read_text()):
            print(f"{header.name}: {name} has {count} public members")
            if count > LIMIT:
                too_big.append(f"{header}: {name} ({count})")
    if too_big:
        print(f"types in bridge/ with more than {LIMIT} public members (split them by job):")
        print("\n".join(too_big))
        return 1
    return 0


sys.exit(main())
