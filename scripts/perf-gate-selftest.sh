#!/usr/bin/env bash
# The performance gate must catch a small regression, and only a regression.
# In a copy of this checkout (another path, as a CI clone is), runs
# scripts/perf-gate.sh twice: first unchanged, which must pass (the counts do
# not depend on where the checkout lives), then with NOPS instructions
# (default 11, +5% of the 208 a cached @Injected(\.key) read costs) planted
# in weave_slot_peek, the read every cached @Injected goes through, which
# must fail on injected.keypath@10.
#
# Usage: scripts/perf-gate-selftest.sh [NOPS]    (KEEP=1 keeps the copy)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NOPS="${1:-11}"
COPY="$(mktemp -d "${TMPDIR:-/tmp}/weavedi-gate-selftest.XXXXXX")"
trap '[ -n "${KEEP:-}" ] || rm -rf "$COPY"' EXIT

# The tracked files as they are in the work tree (edits to them included;
# files not yet added to git are not copied).
(cd "$ROOT" && git ls-files -z | xargs -0 -I{} cp --parents {} "$COPY/") ||
    { echo "perf-gate-selftest: could not copy the checkout (a tracked file deleted?)" >&2; exit 1; }

gate_on_copy() {
    set +e
    WEAVEDI_GATE_PACKAGE="$COPY" WEAVEDI_GATE_SCRATCH="$COPY/.build-perf-gate" "$ROOT/scripts/perf-gate.sh" >"$COPY/gate.out" 2>&1
    local status=$?
    set -e
    return $status
}

echo "perf-gate-selftest: the unchanged copy in $COPY" >&2
if ! gate_on_copy; then
    cat "$COPY/gate.out" >&2
    echo "perf-gate-selftest: FAILED: the gate fails an unchanged copy (its counts depend on the checkout's path)" >&2
    exit 1
fi
grep -E '^injected\.keypath@10 ' "$COPY/gate.out" >&2 || true

FILE="$COPY/CSources/CWeaveRegistry/weave_registry.c"
perl -0pi -e 's/(void \*weave_slot_peek\(weave_slot_t \*slot\) \{\n    slot_read_begin\(\);\n)/$1    __asm__ volatile(".rept '"$NOPS"'\\n\\tnop\\n\\t.endr" ::: "memory");\n/' "$FILE"
grep -q '.rept '"$NOPS" "$FILE" || { echo "perf-gate-selftest: could not plant the regression (weave_slot_peek changed?)" >&2; exit 1; }
echo "perf-gate-selftest: the copy with $NOPS instructions planted in weave_slot_peek" >&2
if gate_on_copy; then
    cat "$COPY/gate.out" >&2
    echo "perf-gate-selftest: FAILED: the gate passed a copy with $NOPS instructions planted in every cached read" >&2
    exit 1
fi
grep -E '^injected\.keypath@10 ' "$COPY/gate.out" >&2 || true
if ! grep -q '^  instructions/op injected.keypath@10:' "$COPY/gate.out"; then
    cat "$COPY/gate.out" >&2
    echo "perf-gate-selftest: FAILED: the gate failed, but not on injected.keypath@10" >&2
    exit 1
fi
echo "perf-gate-selftest: ok, the unchanged copy passes and the planted regression fails:" >&2
sed -n '/^perf-gate: FAILED/,$p' "$COPY/gate.out" >&2
