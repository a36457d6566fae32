#!/usr/bin/env bash
# Builds the DocC documentation of the four library products with
# swift-docc-plugin and fails on any documentation warning (a broken symbol
# link, an undocumented parameter name, a topic that does not resolve).
# Output: .build/plugins/Swift-DocC/outputs/<Target>.doccarchive
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
swift package generate-documentation \
    --target WeaveDICore --target WeaveDI --target WeaveDITesting --target WeaveDIServiceLifecycle \
    --warnings-as-errors 2>&1 | grep -v "prohibited flag(s): -D__x86_64__" | tee "$log" || status=$?
if [ "$status" -ne 0 ] || grep -q "warning:" "$log"; then
    echo "docs: the documentation build failed or warned (see above)" >&2
    exit 1
fi
echo "docs: built with no warnings"
