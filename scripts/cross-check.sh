#!/usr/bin/env bash
# The C registry (CSources/CWeaveRegistry) on the targets this x86-64 machine
# does not run natively, all on the portable layer (portable_ck.c: there is
# no libck for them, and weave_ck.h takes the portable layer on every CPU but
# x86-64 even when WEAVE_SYSTEM_CK asks for ck):
#   1. Linux i386, 32-bit ARM (armhf) and aarch64: weave_registry.c and
#      portable_ck.c compiled with -std=c11 -Wall -Wextra -pedantic-errors
#      -Werror at -O0 and -O2, with and without -DWEAVE_SYSTEM_CK (for these
#      CPUs both must compile the portable layer: no ck header exists for
#      them here, so a build that reached for ck fails), then the C stress
#      test (IntegrationTests/Sources/RegistryStress) cross-built and run
#      with bounded iterations, natively for i386 and under qemu-user for
#      the ARM targets (see "How each binary runs" below);
#   2. watchOS (arm64_32-apple-watchos8: 32-bit pointers, 64-bit registers)
#      and iOS (arm64-apple-ios15): both files compiled (-c -O2 -Werror) with
#      Swift's clang.
# Emulation on x86 cannot show weak-memory reorderings: qemu-user runs the
# guest's threads on the host's cores, which are TSO, and translates the
# guest's barriers to host ones. What these runs catch is width and ABI
# defects (pointer and long sizes, 64-bit atomics on 32-bit CPUs, alignment,
# shifts past a word), not missing fences; those are for the models
# (scripts/model-check.sh) and real arm64 hardware.
#
# Packages (installed when missing, through scripts/ensure-deps.sh):
# gcc-i686-linux-gnu, gcc-aarch64-linux-gnu, gcc-arm-linux-gnueabihf, their
# libc6-dev-*-cross, and qemu-user. i386 is built with Debian's
# i686-linux-gnu cross compiler rather than gcc -m32: gcc-multilib cannot be
# installed next to the other cross compilers on Debian 12 (apt refuses,
# "held broken packages"); the cross compiler targets the same i386 ABI.
#
# How each binary runs: i386 natively, armhf and aarch64 under qemu-user.
# The x86-64 kernel runs i386 programs itself; the cross C library's own
# loader (/usr/i686-linux-gnu/lib/ld-linux.so.2 with --library-path) gives
# them a C library without multilib. qemu-i386 is kept only as the fallback
# for a kernel built without i386 support: on some machines of this project's
# kind (kernel 6.18, qemu 7.2) qemu-i386 spins inside glibc's pthread_create
# and never starts a thread (issue 49), and a native run tests the same
# binary on real i386 semantics. Before a stress run, a probe (one thread
# started and joined, bounded by PROBE_SECONDS) is run with each way in
# turn; a target none of them can start a thread with is reported as
# skipped, with the reason, instead of hanging the suite.
#
# Every run is bounded (timeout), and a failed, crashed or timed-out run
# names its target, the group it was in and the tail of its log; the script
# goes on through every target and lists every failure at the end.
#
# No Apple SDK exists on Linux, so the Apple builds use -nostdlibinc with
# clang's own headers (stdint.h, stdatomic.h, limits.h...) and a small stub
# directory, written below, that declares only the pthread, stdlib, time and
# sched functions the two files call. The check is of the registry's own
# code for those targets' data model and atomics (static assertions,
# widths, warnings), not of the SDK's declarations.
#
# Usage: scripts/cross-check.sh
# Environment: WEAVEDI_CROSS_BUILD (build dir, default .build-cross),
#   WEAVE_STRESS_READS (stable reads per concurrent round, default 100000),
#   SWIFT_CLANG (default: the clang next to swift), and for the self-test
#   (scripts/cross-check-selftest.sh) WEAVEDI_CROSS_TARGETS (the Linux
#   triples, default all three), WEAVEDI_CROSS_APPLE=0 (no Apple builds),
#   WEAVEDI_CROSS_PROBE_SECONDS (default 20) and WEAVEDI_CROSS_STRESS_SECONDS
#   (default 600), the bounds of a thread probe and of a stress run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${WEAVEDI_CROSS_BUILD:-$ROOT/.build-cross}"
SRC="$ROOT/CSources/CWeaveRegistry"
STRESS_C="$ROOT/IntegrationTests/Sources/RegistryStress/registry_stress.c"
WARN=(-std=c11 -Wall -Wextra -pedantic-errors -Werror -D_GNU_SOURCE)
START=$SECONDS
step() { printf '\n==> [%dm%02ds] %s\n' $(((SECONDS - START) / 60)) $(((SECONDS - START) % 60)) "$*"; }
FAILED=()
fail() { echo "    FAILED: $*" >&2; FAILED+=("$*"); }

step "packages: cross compilers, their C libraries, qemu-user"
"$ROOT/scripts/ensure-deps.sh" gcc-i686-linux-gnu libc6-dev-i386-cross gcc-aarch64-linux-gnu libc6-dev-arm64-cross \
    gcc-arm-linux-gnueabihf libc6-dev-armhf-cross qemu-user
mkdir -p "$OUT"

PROBE_SECONDS="${WEAVEDI_CROSS_PROBE_SECONDS:-20}"
STRESS_SECONDS="${WEAVEDI_CROSS_STRESS_SECONDS:-600}"
SKIPPED=()

# Writes and cross-builds the thread probe for TRIPLE; prints its path.
thread_probe() {
    local triple="$1" source="$OUT/thread-probe.c" binary="$OUT/thread-probe-$1"
    cat >"$source" <<'EOF'
#include <pthread.h>
#include <stdio.h>
static void *run(void *argument) { return argument; }
int main(void) {
    pthread_t thread;
    if (pthread_create(&thread, NULL, run, NULL) != 0) return 2;
    if (pthread_join(thread, NULL) != 0) return 3;
    puts("thread started and joined");
    return 0;
}
EOF
    "$triple-gcc" -std=c11 -O0 -pthread "$source" -o "$binary" && printf '%s\n' "$binary"
}

# The ways to run a TRIPLE binary, best first, one a line: "native" (i386
# only, through the cross C library's loader) or a qemu-user command.
runners_for() {
    case "$1" in
    i686-linux-gnu) printf '%s\n' native qemu-i386 ;;
    arm-linux-gnueabihf) echo qemu-arm ;;
    aarch64-linux-gnu) echo qemu-aarch64 ;;
    esac
}

# run_prefix RUNNER TRIPLE: sets RUN to the command that runs a TRIPLE
# binary that way (the binary's path follows it). A plain command, not a
# function, so that timeout signals the process that runs the binary.
run_prefix() {
    if [ "$1" = native ]; then
        RUN=("/usr/$2/lib/ld-linux.so.2" --library-path "/usr/$2/lib")
    else
        RUN=("$1" -L "/usr/$2")
    fi
}

# The first runner of TRIPLE under which the probe starts and joins a thread
# within PROBE_SECONDS; prints it, or nothing (each refusal said on stderr).
working_runner() {
    local triple="$1" probe runner output status
    probe="$(thread_probe "$triple")" || { echo "    the thread probe did not build for $triple" >&2; return 0; }
    while read -r runner; do
        status=0
        run_prefix "$runner" "$triple"
        output="$(timeout -k 5 "$PROBE_SECONDS" "${RUN[@]}" "$probe" 2>&1 </dev/null)" || status=$?
        if [ "$status" -eq 0 ] && [ "$output" = "thread started and joined" ]; then
            printf '%s\n' "$runner"
            return 0
        fi
        if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
            echo "    thread probe under $runner: no thread started and joined within ${PROBE_SECONDS}s; not using $runner for $triple" >&2
        else
            echo "    thread probe under $runner: exit status $status (${output:-no output}); not using $runner for $triple" >&2
        fi
    done < <(runners_for "$triple")
}

# TRIPLE EXTRA-FLAGS...
linux_target() {
    local triple="$1" cc="$1-gcc" status=0 log="$OUT/stress-$1.log" runner group
    shift
    local extra=("$@")
    step "$triple: -Werror builds of the registry"
    for source in weave_registry.c portable_ck.c; do
        for config in "" -DWEAVE_SYSTEM_CK; do
            for level in -O0 -O2; do
                printf '    %-24s %-16s %-17s %s ... ' "$cc" "$source" "${config:-(portable)}" "$level"
                # shellcheck disable=SC2086 # $config and $level are zero or one flag
                if output="$("$cc" "${WARN[@]}" ${extra[@]+"${extra[@]}"} $config $level -I"$SRC/include" \
                    -c "$SRC/$source" -o /dev/null 2>&1)" && [ -z "$output" ]; then
                    echo ok
                else
                    echo FAILED
                    printf '%s\n' "$output" | sed 's/^/      /'
                    fail "$triple: $source $config $level"
                fi
            done
        done
    done
    step "$triple: the thread probe (how the stress test can run here)"
    runner="$(working_runner "$triple")"
    if [ -z "$runner" ]; then
        echo "    SKIPPED: no way to run $triple binaries that starts a thread on this machine (see above); the builds above still count"
        SKIPPED+=("$triple: the stress test (no runner could start a thread)")
        return
    fi
    echo "    $triple binaries run: $runner"
    step "$triple: the C stress test, built -Werror, run $([ "$runner" = native ] && echo natively || echo "under $runner")"
    if ! "$cc" "${WARN[@]}" ${extra[@]+"${extra[@]}"} -O2 -pthread -DWEAVE_STRESS_HOOKS -I"$SRC/include" \
        "$SRC/weave_registry.c" "$SRC/portable_ck.c" "$STRESS_C" -o "$OUT/stress-$triple"; then
        fail "$triple: the stress test did not build"
        return
    fi
    # Bounded: emulation is 5 to 20 times slower, and the point is the
    # widths, not the count (every group still runs, thread_burst with its
    # 2,000 threads included).
    run_prefix "$runner" "$triple"
    WEAVE_STRESS_READS="${WEAVE_STRESS_READS:-100000}" WEAVE_STRESS_ALLOW_SHORT=1 WEAVE_STRESS_READERS=3 \
        WEAVE_STRESS_TIMEOUT=120 timeout -k 10 "$STRESS_SECONDS" "${RUN[@]}" "$OUT/stress-$triple" \
        >"$log" 2>&1 </dev/null || status=$?
    grep -E '^group .*: (ok|FAILED)|^FAIL|^total' "$log" | sed 's/^/    | /' || true
    if [ "$status" -eq 0 ] && grep -Eq '^[0-9]+ passed, 0 failed$' "$log"; then
        return
    fi
    # The group that was running: the last "group NAME ..." without its result.
    group="$(sed -n 's/^group \(.*\) \.\.\.$/\1/p' "$log" | tail -n 1)"
    if [ -n "$group" ] && grep -Eq "^group $group: (ok|FAILED)" "$log"; then
        group="(between groups)"
    fi
    case "$status" in
    0) fail "$triple ($runner): exit 0 without an 'N passed, 0 failed' line, last group ${group:-none}" ;;
    124 | 137) fail "$triple ($runner): timed out after ${STRESS_SECONDS}s in group ${group:-none}" ;;
    *) fail "$triple ($runner): exit status $status in group ${group:-none}$([ "$status" -gt 128 ] && echo " (signal $((status - 128)))")" ;;
    esac
    echo "    tail of $log:"
    tail -n 15 "$log" | sed 's/^/      /'
}

# -Wno-psabi: gcc notes that the alignment of _Atomic 64-bit fields changed
# in GCC 11.1 (a note about struct layout between compiler versions; the
# registry's structs never cross one).
for triple in ${WEAVEDI_CROSS_TARGETS:-i686-linux-gnu arm-linux-gnueabihf aarch64-linux-gnu}; do
    case "$triple" in
    i686-linux-gnu | arm-linux-gnueabihf) linux_target "$triple" -Wno-psabi ;;
    aarch64-linux-gnu) linux_target "$triple" ;;
    *) fail "unknown target $triple in WEAVEDI_CROSS_TARGETS" ;;
    esac
done

if [ "${WEAVEDI_CROSS_APPLE:-1}" = 1 ]; then
step "Apple targets with Swift's clang (stub SDK headers, see the header)"
clang="${SWIFT_CLANG:-}"
if [ -z "$clang" ] && command -v swift >/dev/null 2>&1; then
    clang="$(dirname "$(readlink -f "$(command -v swift)")")/clang"
fi
[ -x "$clang" ] || clang=/opt/swift/usr/bin/clang
STUBS="$OUT/apple-stubs"
mkdir -p "$STUBS"
cat >"$STUBS/pthread.h" <<'EOF'
/* Stand-in for the SDK's pthread.h: what CWeaveRegistry calls, nothing else. */
#ifndef WEAVE_STUB_PTHREAD_H
#define WEAVE_STUB_PTHREAD_H
typedef struct { long sig; char opaque[56]; } pthread_mutex_t;
typedef struct { long sig; char opaque[8]; } pthread_mutexattr_t;
typedef struct { long sig; char opaque[8]; } pthread_once_t;
typedef unsigned long pthread_key_t;
#define PTHREAD_MUTEX_INITIALIZER {0x32AAABA7, {0}}
#define PTHREAD_ONCE_INIT {0x30B1BCBA, {0}}
int pthread_once(pthread_once_t *, void (*)(void));
int pthread_key_create(pthread_key_t *, void (*)(void *));
int pthread_setspecific(pthread_key_t, const void *);
int pthread_mutex_init(pthread_mutex_t *, const pthread_mutexattr_t *);
int pthread_mutex_destroy(pthread_mutex_t *);
int pthread_mutex_lock(pthread_mutex_t *);
int pthread_mutex_trylock(pthread_mutex_t *);
int pthread_mutex_unlock(pthread_mutex_t *);
#endif
EOF
cat >"$STUBS/stdlib.h" <<'EOF'
#ifndef WEAVE_STUB_STDLIB_H
#define WEAVE_STUB_STDLIB_H
#include <stddef.h>
void *malloc(size_t);
void *calloc(size_t, size_t);
void *realloc(void *, size_t);
void free(void *);
_Noreturn void abort(void);
char *getenv(const char *);
#endif
EOF
cat >"$STUBS/time.h" <<'EOF'
#ifndef WEAVE_STUB_TIME_H
#define WEAVE_STUB_TIME_H
typedef long time_t;
struct timespec { time_t tv_sec; long tv_nsec; };
typedef enum { CLOCK_REALTIME = 0, CLOCK_MONOTONIC = 6 } clockid_t;
int clock_gettime(clockid_t, struct timespec *);
int nanosleep(const struct timespec *, struct timespec *);
#endif
EOF
cat >"$STUBS/sched.h" <<'EOF'
#ifndef WEAVE_STUB_SCHED_H
#define WEAVE_STUB_SCHED_H
int sched_yield(void);
#endif
EOF
echo "    $clang ($("$clang" --version | head -n1))"
for target in arm64_32-apple-watchos8 arm64-apple-ios15; do
    for source in weave_registry.c portable_ck.c; do
        printf '    %-26s %-16s -c -O2 ... ' "$target" "$source"
        if output="$("$clang" --target="$target" "${WARN[@]}" -O2 -nostdlibinc -isystem "$STUBS" -I"$SRC/include" \
            -c "$SRC/$source" -o "$OUT/$target-${source%.c}.o" 2>&1)" && [ -z "$output" ]; then
            echo ok
        else
            echo FAILED
            printf '%s\n' "$output" | sed 's/^/      /'
            fail "$target: $source"
        fi
    done
done

fi

if [ ${#SKIPPED[@]} -ne 0 ]; then
    step "skipped (the machine cannot run them; not failures):"
    printf '    - %s\n' "${SKIPPED[@]}"
fi
if [ ${#FAILED[@]} -ne 0 ]; then
    step "FAILED:"
    printf '    - %s\n' "${FAILED[@]}"
    exit 1
fi
step "cross-check: all builds and runs passed"
