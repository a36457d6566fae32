#!/usr/bin/env bash
# Checks that the library depends downward only: no file in a folder
# names a type declared at the top level of a folder in a higher layer.
# Layers, lowest first (a layer is a folder; its subfolders, the API's
# families, may name each other's types):
#   1 Registry      the C registry's Swift face: entries, build-once, the
#                   slot cache, lifetimes, errors, atomics and locks
#   2 Resolution    resolving a type: the resolver, overrides, request
#                   scopes, overlays, async builds
#   3 API           the public API, one folder per family: Injection,
#                   Container, Scopes, Lifecycle, Diagnostics, Macros
#   4 Compatibility upstream WeaveDI's API and the swift-dependencies bridge,
#                   written on the families
# (architecture notes: docs/architecture.md, "Layers".) A type is a name
# after class, struct, enum, protocol, actor or typealias at the start of a
# line; a mention is that name as a whole word, not after a dot (a member),
# outside comments and string literals.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - "$0" <<'PY'
import os, re, sys

# The core's layers are Sources/WeaveDICore's folders; Compatibility is the
# WeaveDI module, which the compiler already keeps from the core's
# internals (the core cannot import it at all); checked here as well so a
# folder moved between the two is still placed.
ROOTS = ["Sources/WeaveDICore", "Sources/WeaveDI"]
LAYERS = [
    ["Registry"],
    ["Resolution"],
    ["API"],
    ["Compatibility"],
]
# Upward references not yet inverted, each as (file, type) with a comment
# saying what would remove it. None is left; the check fails on any
# reference listed here that is gone, so the list can only shrink.
KNOWN = set()

layer_of = {folder: rank for rank, folders in enumerate(LAYERS) for folder in folders}

declaration = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*"
    r"(?:(?:public|internal|package|fileprivate|private|final|indirect|nonisolated|open)\s+)*"
    r"(?:class|struct|enum|protocol|actor|typealias)\s+([A-Za-z_]\w*)",
    re.M,
)

def code_of(text):
    text = re.sub(r'"""(?:.|\n)*?"""', '""', text)
    text = re.sub(r"/\*(?:.|\n)*?\*/", "", text)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
    return re.sub(r"//.*", "", text)

sources = {}
problems = []
for root in ROOTS:
    for directory, subdirectories, names in os.walk(root):
        subdirectories[:] = [d for d in subdirectories if not d.endswith(".docc")]
        for name in names:
            if not name.endswith(".swift"):
                continue
            path = os.path.join(directory, name)
            folder = os.path.relpath(path, root).split(os.sep)[0]
            if folder not in layer_of:
                problems.append(f"{path}: folder {folder} is in no layer")
                continue
            sources[path] = (folder, code_of(open(path, encoding="utf-8").read()))

declared_in = {}
for path, (folder, code) in sources.items():
    for name in declaration.findall(code):
        declared_in.setdefault(name, set()).add(folder)

for path, (folder, code) in sorted(sources.items()):
    rank = layer_of[folder]
    # A name after a dot is a member (`WeaveDI.Container`), and a name being
    # declared (a nested `typealias Container`) is no mention: neither is
    # the top-level type of that name.
    mentions = re.sub(r"\b(?:class|struct|enum|protocol|actor|typealias)\s+[A-Za-z_]\w*", "", code)
    for name in sorted(set(re.findall(r"(?<![.\w])[A-Za-z_]\w*\b", mentions))):
        above = sorted(f for f in declared_in.get(name, ()) if layer_of[f] > rank)
        if above and not any(layer_of[f] <= rank for f in declared_in[name]):
            known = (path, name)
            if known in KNOWN:
                KNOWN.discard(known)
                continue
            problems.append(f"{path}: names {name}, declared in {', '.join(above)} (a higher layer)")

for path, name in sorted(KNOWN):
    problems.append(f"{path} no longer names {name}: remove it from KNOWN in {sys.argv[0]}")
for problem in problems:
    print(problem, file=sys.stderr)
if problems:
    print(f"layers: {len(problems)} upward reference(s)", file=sys.stderr)
    sys.exit(1)
print(f"layers: {len(sources)} files in {len(layer_of)} layers; no upward reference outside the known list")
PY
