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
#      under qemu-user with bounded iterations;
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
# "held broken packages"); the cross compiler targets the same i386 ABI, and
# its programs run under qemu-i386 (an amd64 system without multilib has no
# i386 libc to run them natively).
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
#   WEAVE_STRESS_READS (stable reads per concurrent round under qemu,
#   default 100000), SWIFT_CLANG (default: the clang next to swift).
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

# TRIPLE QEMU EXTRA-FLAGS...
linux_target() {
    local triple="$1" qemu="$2" cc="$1-gcc" status=0 log="$OUT/stress-$1.log"
    shift 2
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
    step "$triple: the C stress test, built -Werror, run under $qemu"
    if ! "$cc" "${WARN[@]}" ${extra[@]+"${extra[@]}"} -O2 -pthread -DWEAVE_STRESS_HOOKS -I"$SRC/include" \
        "$SRC/weave_registry.c" "$SRC/portable_ck.c" "$STRESS_C" -o "$OUT/stress-$triple"; then
        fail "$triple: the stress test did not build"
        return
    fi
    # Bounded: emulation is 5 to 20 times slower, and the point is the
    # widths, not the count (every group still runs, thread_burst with its
    # 2,000 threads included).
    WEAVE_STRESS_READS="${WEAVE_STRESS_READS:-100000}" WEAVE_STRESS_ALLOW_SHORT=1 WEAVE_STRESS_READERS=3 \
        WEAVE_STRESS_TIMEOUT=120 timeout 600 "$qemu" -L "/usr/$triple" "$OUT/stress-$triple" >"$log" 2>&1 ||
        status=$?
    grep -E '^group .*: (ok|FAILED)|^FAIL|^total' "$log" | sed 's/^/    | /'
    if [ "$status" -ne 0 ]; then
        fail "$triple: stress test exit status $status (see $log)"
    elif ! grep -Eq '^[0-9]+ passed, 0 failed$' "$log"; then
        fail "$triple: no 'N passed, 0 failed' line (see $log)"
    fi
}

# -Wno-psabi: gcc notes that the alignment of _Atomic 64-bit fields changed
# in GCC 11.1 (a note about struct layout between compiler versions; the
# registry's structs never cross one).
linux_target i686-linux-gnu qemu-i386 -Wno-psabi
linux_target arm-linux-gnueabihf qemu-arm -Wno-psabi
linux_target aarch64-linux-gnu qemu-aarch64

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

if [ ${#FAILED[@]} -ne 0 ]; then
    step "FAILED:"
    printf '    - %s\n' "${FAILED[@]}"
    exit 1
fi
step "cross-check: all builds and runs passed"
