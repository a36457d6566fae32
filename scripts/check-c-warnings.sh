#!/usr/bin/env bash
# Compiles CSources/CWeaveRegistry/weave_registry.c and portable_ck.c with gcc
# and clang, -std=c11 -Wall -Wextra -pedantic-errors -Werror, at -O0 and -O2
# (some gcc warnings only appear with optimisation), in both configurations:
# on the system's ck (-DWEAVE_SYSTEM_CK, where portable_ck.c compiles to
# nothing) and on the portable layer (no ck header at all); exits non-zero on
# any warning.
#
# Concurrency Kit's headers come from /usr/include (libck-dev), exactly as in
# the SwiftPM build, so the compilers treat them as system headers and do not
# warn inside them: ck's own code is not what this checks. (Compiled as user
# headers, gcc 12 reports -Wstringop-overflow/-Wstringop-overread inside ck's
# gcc/x86_64/ck_pr.h, ck_pr_load_64_2; clang reports nothing.) -pedantic-errors
# is kept: weave_registry.c passes it with both compilers.
#
# Usage: scripts/check-c-warnings.sh [file.c...]   (CC_LIST="gcc clang" to choose)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ $# -gt 0 ]; then
    SOURCES=("$@")
else
    SOURCES=("$ROOT/CSources/CWeaveRegistry/weave_registry.c" "$ROOT/CSources/CWeaveRegistry/portable_ck.c")
fi
INCLUDE="$ROOT/CSources/CWeaveRegistry/include"
COMPILERS=(${CC_LIST:-gcc clang})
FLAGS=(-std=c11 -Wall -Wextra -pedantic-errors -Werror -D_GNU_SOURCE)

if [ ! -f /usr/include/ck_epoch.h ]; then
    echo "check-c-warnings: ck headers missing; installing libck-dev" >&2
    if [ "$(id -u)" -eq 0 ]; then SUDO=(); else SUDO=(sudo); fi
    "${SUDO[@]}" apt-get update -q >/dev/null
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends libck-dev >/dev/null
fi

failed=0
checked=0
for compiler in "${COMPILERS[@]}"; do
    if ! command -v "$compiler" >/dev/null 2>&1; then
        echo "check-c-warnings: $compiler not found" >&2
        failed=1
        continue
    fi
    for source in "${SOURCES[@]}"; do
        for config in -DWEAVE_SYSTEM_CK ""; do
            # -DWEAVE_STRESS_HOOKS: the stress test's build (scripts/sanitize.sh).
            for level in -O0 -O2 "-O2 -DWEAVE_STRESS_HOOKS"; do
                printf '%-6s %-16s %-17s %-26s %s ... ' "$compiler" "$(basename "$source")" \
                    "${config:-(portable)}" "$level" "${FLAGS[*]}"
                # shellcheck disable=SC2086 # $level and $config are zero, one or two flags
                if output="$("$compiler" "${FLAGS[@]}" $config $level -I"$INCLUDE" -c "$source" -o /dev/null 2>&1)" &&
                    [ -z "$output" ]; then
                    echo "ok"
                else
                    echo "FAILED"
                    printf '%s\n' "$output" | sed 's/^/    /'
                    failed=1
                fi
                checked=$((checked + 1))
            done
        done
    done
done

if [ "$failed" -ne 0 ]; then
    echo "check-c-warnings: warnings in ${SOURCES[*]}" >&2
    exit 1
fi
echo "check-c-warnings: $checked builds, no warnings"
