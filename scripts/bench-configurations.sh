#!/usr/bin/env bash
# The registry's configurations side by side: weavedi-bench built three ways
# (release, without the peers) and timed one after the other, each row as
# nanoseconds per operation and as a ratio to the system-ck build:
#   ck                the default: the registry on the system's Concurrency Kit
#   portable          SystemConcurrencyKit off (`traits: []`): portable_ck.c,
#                     Synchronization atomics (Linux without libck)
#   portable+atomics  also PortableAtomics: swift-atomics' ManagedAtomic, the
#                     configuration Apple platforms get
# Prints a Markdown table and writes Benchmarks/results/configurations.{md,json}.
#
# Usage: scripts/bench-configurations.sh [weavedi-bench options]
#   default options: --sizes 10 --threads 1,2 --iterations 300000 --rounds 5
# Time it on an idle machine: the three builds run first, then the timings.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
RESULTS="$ROOT/Benchmarks/results"
mkdir -p "$RESULTS"
OPTIONS=("$@")
[ ${#OPTIONS[@]} -gt 0 ] || OPTIONS=(--sizes 10 --threads 1,2 --iterations 300000 --rounds 5)

NAMES=(ck portable portable+atomics)
TRAITS=(SystemCK "" PortableAtomics)
SCRATCHES=(.build-bench-ck .build-bench-portable .build-bench-portable-atomics)
BINS=()
for i in 0 1 2; do
    if [ -n "${TRAITS[$i]}" ]; then selection=(--traits "${TRAITS[$i]}"); else selection=(--disable-default-traits); fi
    build=(swift build -c release --package-path Benchmarks --scratch-path "Benchmarks/${SCRATCHES[$i]}" "${selection[@]}")
    echo "bench-configurations: building ${NAMES[$i]} (${selection[*]})" >&2
    "${build[@]}" --product weavedi-bench 2>&1 | { grep -v "prohibited flag(s): -D__x86_64__" || true; } >&2
    BINS+=("$("${build[@]}" --show-bin-path)/weavedi-bench")
done
if ldd "${BINS[1]}" | grep -q 'libck\.so' || ldd "${BINS[2]}" | grep -q 'libck\.so'; then
    echo "bench-configurations: a portable build links libck" >&2
    exit 1
fi

JSONS=()
for i in 0 1 2; do
    echo "bench-configurations: timing ${NAMES[$i]} (${OPTIONS[*]})" >&2
    json="$RESULTS/configuration-$i.json"
    "${BINS[$i]}" "${OPTIONS[@]}" --json "$json" >/dev/null
    JSONS+=("$json")
done

python3 - "$RESULTS" "${JSONS[@]}" <<'EOF'
import json, sys
results, paths = sys.argv[1], sys.argv[2:]
names = ["ck", "portable", "portable+atomics"]
runs = [{(r["id"], r["table_size"], r["threads"]): r for r in json.load(open(p))["results"]} for p in paths]
keys = [k for k in runs[0] if all(k in run for run in runs[1:])]
lines = [
    "| path | size | threads | ck ns | portable ns | x ck | portable+atomics ns | x ck |",
    "|---|---|---|---|---|---|---|---|",
]
rows = []
for key in keys:
    ck = runs[0][key]["ns_per_op"]
    values = [run[key]["ns_per_op"] for run in runs]
    rows.append({"id": key[0], "table_size": key[1], "threads": key[2],
                 **{name + "_ns": value for name, value in zip(names, values)}})
    lines.append(
        f"| {runs[0][key]['label']} | {key[1]} | {key[2]} | {ck:.1f} | {values[1]:.1f} | {values[1] / ck:.2f} "
        f"| {values[2]:.1f} | {values[2] / ck:.2f} |")
table = "\n".join(lines) + "\n"
open(f"{results}/configurations.md", "w").write(table)
json.dump(rows, open(f"{results}/configurations.json", "w"), indent=1)
print(table)
EOF
