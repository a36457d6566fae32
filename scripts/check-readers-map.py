#!/usr/bin/env python3
"""Checks that docs/architecture.md's "Reader's map" names only what exists:
every file it names in parentheses is there, and every function, type or
property it names in backticks is declared in Sources/ or CSources/ (a
Swift func, var, let, case, init or type, or a C function). Prints each
name it cannot find and exits 1 then.

Usage: scripts/check-readers-map.py
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
doc = open(os.path.join(ROOT, "docs/architecture.md"), encoding="utf-8").read()
start = doc.index("## Reader's map")
end = doc.index("\n## ", start + 1)
section = doc[start:end]

sources = []
for base in ("Sources", "CSources"):
    for directory, _, names in os.walk(os.path.join(ROOT, base)):
        for name in names:
            if name.endswith((".swift", ".c", ".h")):
                path = os.path.join(directory, name)
                sources.append((os.path.relpath(path, ROOT), open(path, encoding="utf-8").read()))
everything = "\n".join(text for _, text in sources)

problems = []

# Files: "(API/Injection/Injected.swift)", "(Registry/TypeKey.swift)", also
# bare "Registry/InlineValue.swift" mentions; relative to the module's
# folder (Sources/WeaveDICore for the core's layers, Sources/WeaveDI for
# Compatibility).
for path in sorted(set(re.findall(r"\b((?:API|Registry|Resolution|Compatibility)/[\w/+]+\.swift)", section))):
    module = "Sources/WeaveDI" if path.startswith("Compatibility/") else "Sources/WeaveDICore"
    if not os.path.exists(os.path.join(ROOT, module, path)):
        problems.append(f"file {path} ({module}/{path}) does not exist")

def declared(name):
    if name[0].isupper():
        return re.search(rf"\b(?:class|struct|enum|protocol|actor|typealias|extension)\s+{name}\b", everything)
    return re.search(
        rf"(?:\bfunc\s+{name}\b|\b(?:var|let|case)\s+{name}\b|\b{name}\s*\()", everything
    )

for mention in sorted(set(re.findall(r"`([^`]+)`", section))):
    # "Resolver.resolve(_:key:from:keepingEntry:cacheable:kept:)" -> Resolver, resolve
    # "@Injected var s: S" and "UnifiedDI.resolve" of the headings are code, not names.
    if " " in mention or mention.startswith("@"):
        continue
    bare = re.sub(r"\(.*\)$", "", mention)
    parts = [part for part in bare.split(".") if part]
    for part in parts:
        if not re.fullmatch(r"[A-Za-z_]\w*", part):
            continue
        if not declared(part):
            problems.append(f"`{mention}`: no declaration of {part}")

for problem in problems:
    print(f"reader's map: {problem}", file=sys.stderr)
if problems:
    print(f"reader's map: {len(problems)} name(s) not found; update docs/architecture.md", file=sys.stderr)
    sys.exit(1)
print("reader's map: every file and name it gives exists")
