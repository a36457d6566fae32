#!/usr/bin/env bash
# Measures what a write to the C registry costs (a benchmark, not a test):
# builds IntegrationTests/Sources/WriteLatency/write_latency.c against weave_registry.c at -O2
# with Debian's libck (as the Swift build links it, -DWEAVE_SYSTEM_CK) and runs it. Prints the
# command, the load average before and after (other builds on the machine
# inflate the tail; say so when quoting figures) and the figures.
#
# Usage: scripts/write-latency.sh [--rev REV] [--pin] burst [THREADS]
#        scripts/write-latency.sh [--rev REV] [--pin] latency [READERS...]
#   burst      register cost before and after THREADS (default 2000) threads
#              existed at once
#   latency    p50/p99/p99.9/max of register while READERS threads resolve in
#              a loop, one run per count given (default: 2 then 1)
#   --rev REV  build against weave_registry.c and its header at git revision
#              REV instead of the work tree (e.g. --rev 67d7edc)
#   --pin      every thread on CPU 0 (WRITE_LATENCY_PIN=1)
# Environment: WRITE_LATENCY_WRITES (latency mode, default 200000), CC.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

REV=""
PIN=0
while [ $# -gt 0 ]; do
    case "$1" in
    --rev) REV="$2"; shift 2 ;;
    --pin) PIN=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) break ;;
    esac
done
MODE="${1:-latency}"
shift || true

scripts/ensure-deps.sh >/dev/null
WORK="$(mktemp -d "${TMPDIR:-/tmp}/weavedi-write-latency.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
if [ -n "$REV" ]; then
    mkdir -p "$WORK/src/include"
    git show "$REV:CSources/CWeaveRegistry/weave_registry.c" >"$WORK/src/weave_registry.c"
    git show "$REV:CSources/CWeaveRegistry/include/weave_registry.h" >"$WORK/src/include/weave_registry.h"
    # Revisions since the portable layer include the ck headers through it.
    git show "$REV:CSources/CWeaveRegistry/weave_ck.h" >"$WORK/src/weave_ck.h" 2>/dev/null || rm -f "$WORK/src/weave_ck.h"
    SRC="$WORK/src"
    LABEL="$(git rev-parse --short "$REV")"
else
    SRC="$ROOT/CSources/CWeaveRegistry"
    LABEL="work tree $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- CSources || echo '+changes')"
fi
"${CC:-cc}" -std=c11 -O2 -pthread -D_GNU_SOURCE -DWEAVE_SYSTEM_CK -I"$SRC/include" \
    IntegrationTests/Sources/WriteLatency/write_latency.c "$SRC/weave_registry.c" -lck -o "$WORK/write_latency"

run() {
    echo "\$ $([ "$PIN" -eq 1 ] && echo "WRITE_LATENCY_PIN=1 ")write_latency $*   # weave_registry.c: $LABEL"
    echo "loadavg before: $(cat /proc/loadavg)"
    if [ "$PIN" -eq 1 ]; then
        WRITE_LATENCY_PIN=1 "$WORK/write_latency" "$@"
    else
        "$WORK/write_latency" "$@"
    fi
    echo "loadavg after:  $(cat /proc/loadavg)"
}

case "$MODE" in
burst) run burst "${1:-2000}" ;;
latency)
    [ $# -gt 0 ] || set -- 2 1
    for readers in "$@"; do run latency "$readers"; done
    ;;
*) echo "write-latency.sh: unknown mode $MODE (burst or latency)" >&2; exit 2 ;;
esac
