#!/usr/bin/env bash
# Builds the server examples and runs their tests against a real PostgreSQL:
# a debug `swift build --build-tests`, `swift test --skip-build`, then the
# database faults against the built server (scripts/example-faults.py: the
# database down at start, restarted under load, a query held past the
# request budget, SIGTERM under load), in each example package
# (Examples/HummingbirdServer, Examples/VaporServer), each its own SwiftPM
# package with its own .build, depending on WeaveDI by path. One throwaway
# PostgreSQL server (scripts/postgres.sh) serves both, a database each, and
# is removed on exit. Called by scripts/test.sh, hence by CI, so the
# examples cannot rot unnoticed.
#
#   scripts/test-examples.sh                     # both
#   scripts/test-examples.sh VaporServer         # one
#
# WEAVEDI_SKIP_EXAMPLES=1 skips them (for local runs; CI runs them).
# EXAMPLE_TIMEOUT (default 1800 s) bounds each build and each test run, so a
# hung or runaway build fails the step instead of eating CI's 90 minutes. A
# clean debug build of Vapor and its dependencies is the slowest thing in the
# repository (see docs/load-test.md, "The examples in CI", for the times).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${WEAVEDI_SKIP_EXAMPLES:-0}" = "1" ]; then
    echo "examples: skipped (WEAVEDI_SKIP_EXAMPLES=1)"
    exit 0
fi

EXAMPLE_TIMEOUT=${EXAMPLE_TIMEOUT:-1800}
if [ $# -gt 0 ]; then examples=("$@"); else examples=(HummingbirdServer VaporServer); fi

step() { printf '\n== %s (%s)\n' "$1" "$(date +%H:%M:%S)" >&2; }
# SwiftPM repeats this clang note for every C file of a dependency; it says nothing.
quiet() { grep -v "prohibited flag(s): -D__x86_64__" || true; }

# The services and bodies are one package both examples depend on
# (Examples/TodoServices). Two test files use each example's own TodoAPI
# module, so each example has a copy; this keeps the copies from drifting
# apart.
for shared in Tests/TodoAPITests/InjectedLifetimeTests.swift Tests/TodoAPITests/TestDatabase.swift; do
    if ! cmp -s "Examples/HummingbirdServer/$shared" "Examples/VaporServer/$shared"; then
        echo "examples: $shared differs between HummingbirdServer and VaporServer; keep the copies identical" >&2
        diff -u "Examples/HummingbirdServer/$shared" "Examples/VaporServer/$shared" >&2 || true
        exit 1
    fi
done

# The examples link WeaveDI, hence Concurrency Kit; their tests need a
# PostgreSQL server.
scripts/ensure-deps.sh postgresql

POSTGRES_DIR=${WEAVEDI_POSTGRES_DIR:-/tmp/weavedi-postgres-examples}
POSTGRES_PORT=${WEAVEDI_POSTGRES_PORT:-54339}
step "PostgreSQL: a throwaway server on 127.0.0.1:$POSTGRES_PORT ($POSTGRES_DIR)"
trap 'scripts/postgres.sh remove "$POSTGRES_DIR"' EXIT
eval "$(scripts/postgres.sh start "$POSTGRES_DIR" "$POSTGRES_PORT" todos_hummingbird todos_vapor)"
echo "PostgreSQL at $WEAVEDI_POSTGRES_URL"

summary=()
all_start=$(date +%s)
for example in "${examples[@]}"; do
    pkg="Examples/$example"
    [ -f "$pkg/Package.swift" ] || { echo "examples: no package at $pkg" >&2; exit 1; }

    step "$example: swift build --build-tests (debug)"
    start=$(date +%s)
    status=0
    timeout "$EXAMPLE_TIMEOUT" swift build --build-tests --package-path "$pkg" 2>&1 | quiet || status=$?
    build_s=$(($(date +%s) - start))
    if [ "$status" -ne 0 ]; then
        [ "$status" -eq 124 ] && echo "examples: $example build exceeded ${EXAMPLE_TIMEOUT} s" >&2
        echo "examples: $example build failed (exit $status) after ${build_s} s" >&2
        exit 1
    fi
    echo "$example: built in ${build_s} s"

    case "$example" in
    HummingbirdServer) database=todos_hummingbird binary=hummingbird-server ;;
    VaporServer) database=todos_vapor binary=vapor-server ;;
    *) database=todos_hummingbird binary="" ;;
    esac

    step "$example: swift test (PostgreSQL database $database)"
    start=$(date +%s)
    status=0
    WEAVEDI_POSTGRES_DATABASE=$database timeout "$EXAMPLE_TIMEOUT" \
        swift test --skip-build --package-path "$pkg" 2>&1 | quiet || status=$?
    test_s=$(($(date +%s) - start))
    if [ "$status" -ne 0 ]; then
        echo "examples: $example tests failed (exit $status) after ${test_s} s" >&2
        exit 1
    fi

    faults_s=0
    if [ -n "$binary" ]; then
        step "$example: database faults against the server (scripts/example-faults.py)"
        start=$(date +%s)
        status=0
        WEAVEDI_POSTGRES_DATABASE=$database timeout 600 \
            python3 scripts/example-faults.py "$pkg/.build/debug/$binary" || status=$?
        faults_s=$(($(date +%s) - start))
        if [ "$status" -ne 0 ]; then
            echo "examples: $example database faults failed (exit $status)" >&2
            exit 1
        fi
    fi
    summary+=("$(printf '%-18s build %5d s   test %4d s   faults %3d s' "$example" "$build_s" "$test_s" "$faults_s")")
done

step "examples: summary"
printf '%s\n' "${summary[@]}"
echo "examples total: $(($(date +%s) - all_start)) s"
