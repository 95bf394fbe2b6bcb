#!/usr/bin/env python3
"""The layering rules of docs/architecture.md, checked on every #include of the source folders.

Each folder may include its own headers and those of the folders its row names; anything else is an
arrow the architecture forbids (a report writer that reaches a CUDA header, a format parser that reaches
the property runner). Exit 0 when every include is allowed, 1 naming each file, line and include that is
not, 2 on usage errors.

Usage: check-layering.py [REPO_ROOT]
"""
import os
import re
import sys

# folder -> the folders it may include from (besides itself). "include" is the public C ABI (ordo/...).
ALLOWED = {
    "core": set(),
    "include": set(),
    "protocol": {"core"},
    "oracle": {"core"},
    "kernels": {"core"},
    "reports": {"core", "protocol"},
    "subjects": {"core", "kernels", "oracle", "protocol", "include"},
    "properties": {"core", "oracle", "protocol", "subjects", "include"},
    "campaign": {"core", "protocol", "properties"},
    "fuzz": {"core", "protocol", "reports"},
    "api": {"core", "oracle", "protocol", "subjects", "properties", "reports", "include"},
}
# Folders above every layer (they may include anything): the command line, tests, benchmarks, examples.
UNRESTRICTED = {"tools", "tests", "bench", "examples"}
SOURCE = re.compile(r"\.(h|hpp|c|cc|cpp|cu|cuh)$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def folder_of(include):
    """The top folder a quoted include names ("ordo/subject.h" is the public ABI under include/)."""
    first = include.split("/", 1)[0]
    if first == "ordo":
        return "include"
    return first if "/" in include else None


def violations(root):
    found = []
    for top in sorted(ALLOWED):
        base = os.path.join(root, top)
        for dirpath, _, files in os.walk(base):
            for name in sorted(files):
                if not SOURCE.search(name):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        target = folder_of(m.group(1))
                        if target is None or target == top or target in ALLOWED[top]:
                            continue
                        if target not in ALLOWED and target not in UNRESTRICTED:
                            continue  # a header of a third-party or generated path
                        found.append(f"{os.path.relpath(path, root)}:{number}: {top}/ may not include "
                                     f"\"{m.group(1)}\" ({target}/); allowed: "
                                     f"{', '.join(sorted(ALLOWED[top])) or 'nothing outside ' + top + '/'}")
    return found


def main(argv):
    if len(argv) > 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[1] if len(argv) == 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    bad = violations(root)
    for v in bad:
        print(v)
    if bad:
        print(f"check-layering: FAIL: {len(bad)} include(s) against docs/architecture.md's layers")
        return 1
    print(f"check-layering: PASS: every include of {', '.join(sorted(ALLOWED))} follows the layers")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
