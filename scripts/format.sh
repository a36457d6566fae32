#!/usr/bin/env bash
# Formats every tracked Swift file with the toolchain's swift-format and
# .swift-format. With --check (CI), changes nothing and fails if a file is
# not formatted, printing the diff.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--check" ]; then
    unformatted=0
    while IFS= read -r -d '' file; do
        # A symlinked source (one file compiled by two test targets) is
        # checked through the file it points to; swift-format skips links.
        [ -L "$file" ] && continue
        if ! diff -u "$file" <(swift format format "$file") >/tmp/weavedi-format.diff; then
            cat /tmp/weavedi-format.diff
            unformatted=$((unformatted + 1))
        fi
    done < <(git ls-files -z '*.swift')
    if [ "$unformatted" -ne 0 ]; then
        echo "format: $unformatted file(s) not formatted; run scripts/format.sh" >&2
        exit 1
    fi
    echo "format: every Swift file is formatted"
else
    git ls-files -z '*.swift' | while IFS= read -r -d '' file; do [ -L "$file" ] || printf '%s\0' "$file"; done |
        xargs -0 swift format format --parallel --in-place
fi
