#!/usr/bin/env bash
# Checks that scripts/cross-check.sh ends, names and reports its failures
# instead of hanging or stopping at the first (issue 49): qemu-user is
# replaced, through PATH, by stand-ins that hang, hang only in the stress
# test, or crash it, and the script's output and exit status are read.
#   1. an emulator that never starts the probe's thread: the target is
#      skipped with the reason, the script exits 0 within the probe's bound;
#   2. a stress run past its bound on one target and a crash in a named group
#      on another: exit 1, each names its target, group and cause, and both
#      are listed at the end (the second target ran after the first failed).
# Only the ARM targets are used (their runner is qemu, which PATH can
# replace); the Apple builds are off.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
FAILURES=0
check() { # DESCRIPTION PATTERN FILE
    if grep -Eq -- "$2" "$3"; then
        echo "    ok: $1"
    else
        echo "    FAILED: $1 (no line matching '$2' in the output below)"
        sed 's/^/      | /' "$3"
        FAILURES=$((FAILURES + 1))
    fi
}

mkdir -p "$WORK/hang" "$WORK/faulty"
# Never starts anything: stands for qemu-i386 spinning in pthread_create.
for emulator in qemu-arm qemu-aarch64; do
    printf '#!/bin/sh\nexec sleep 1000\n' >"$WORK/hang/$emulator"
done
# Runs the probe; the stress test runs for real (and past a short bound)
# under qemu-aarch64 and crashes in its first group under qemu-arm.
printf '#!/bin/sh\nexec /usr/bin/qemu-aarch64 "$@"\n' >"$WORK/faulty/qemu-aarch64"
cat >"$WORK/faulty/qemu-arm" <<'EOF'
#!/bin/sh
case "$3" in
*/thread-probe-*) exec /usr/bin/qemu-arm "$@" ;;
esac
echo "group basic ..."
kill -SEGV $$
EOF
chmod +x "$WORK"/hang/* "$WORK"/faulty/*

echo "==> cross-check with an emulator that cannot start a thread"
start=$SECONDS
status=0
PATH="$WORK/hang:$PATH" WEAVEDI_CROSS_BUILD="$WORK/build" WEAVEDI_CROSS_TARGETS="aarch64-linux-gnu" \
    WEAVEDI_CROSS_APPLE=0 WEAVEDI_CROSS_PROBE_SECONDS=2 \
    timeout 300 "$ROOT/scripts/cross-check.sh" >"$WORK/hang.log" 2>&1 || status=$?
[ "$status" -eq 0 ] && echo "    ok: exit status 0" ||
    { echo "    FAILED: exit status $status, not 0"; FAILURES=$((FAILURES + 1)); }
check "the probe's bound is named" "no thread started and joined within 2s; not using qemu-aarch64" "$WORK/hang.log"
check "the target is reported as skipped" "^    - aarch64-linux-gnu: the stress test \(no runner could start a thread\)" "$WORK/hang.log"
echo "    took $((SECONDS - start))s"

echo "==> cross-check with a stress run past its bound and a crash"
status=0
PATH="$WORK/faulty:$PATH" WEAVEDI_CROSS_BUILD="$WORK/build" \
    WEAVEDI_CROSS_TARGETS="aarch64-linux-gnu arm-linux-gnueabihf" WEAVEDI_CROSS_APPLE=0 \
    WEAVEDI_CROSS_STRESS_SECONDS=6 timeout 300 "$ROOT/scripts/cross-check.sh" >"$WORK/faulty.log" 2>&1 || status=$?
[ "$status" -eq 1 ] && echo "    ok: exit status 1" ||
    { echo "    FAILED: exit status $status, not 1"; FAILURES=$((FAILURES + 1)); }
check "the timeout names target, runner and group" \
    "FAILED: aarch64-linux-gnu \(qemu-aarch64\): timed out after 6s in group [a-z_0-9]+$" "$WORK/faulty.log"
check "the crash names target, runner, group and signal" \
    "FAILED: arm-linux-gnueabihf \(qemu-arm\): exit status 139 in group basic \(signal 11\)" "$WORK/faulty.log"
check "the tail of the log is shown" "tail of .*stress-arm-linux-gnueabihf.log" "$WORK/faulty.log"
check "both failures are listed at the end" "^    - arm-linux-gnueabihf \(qemu-arm\)" "$WORK/faulty.log"
check "the first failure is listed at the end" "^    - aarch64-linux-gnu \(qemu-aarch64\)" "$WORK/faulty.log"

if [ "$FAILURES" -ne 0 ]; then
    echo "cross-check self-test: $FAILURES check(s) failed" >&2
    exit 1
fi
echo "cross-check self-test: every check passed"
