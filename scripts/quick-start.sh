#!/usr/bin/env bash
# README's quick start is Examples/QuickStart: checks the two are the same
# code, then builds and runs it and compares its output with what README's
# comments promise.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh

readme_code=$(awk '/^## Quick start/ { section = 1 } section && /^```swift/ { inside = 1; next } inside && /^```/ { exit } inside' README.md)
if [ "$readme_code" != "$(cat Examples/QuickStart/Sources/QuickStart/main.swift)" ]; then
    echo "quick start: README.md and Examples/QuickStart/Sources/QuickStart/main.swift differ" >&2
    diff <(echo "$readme_code") Examples/QuickStart/Sources/QuickStart/main.swift >&2 || true
    exit 1
fi

output=$(swift run --package-path Examples/QuickStart 2> >(grep -v "prohibited flag(s): -D__x86_64__" >&2))
expected=$'Hello, Ada\ntrue\nHELLO, ADA'
if [ "$output" != "$expected" ]; then
    printf 'quick start: printed\n%s\nexpected\n%s\n' "$output" "$expected" >&2
    exit 1
fi
echo "quick start: README's code builds and prints what it says"
