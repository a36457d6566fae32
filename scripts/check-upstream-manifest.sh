#!/usr/bin/env bash
# Loads the package graph of Tests/Fixtures/UpstreamManifest, an app manifest
# naming the products upstream WeaveDI 3.4 users name (WeaveDI,
# WeaveDIMacros) and WeaveDICore: SwiftPM fails on a product the package
# does not have, and warns on a product name two products share. Then the
# same manifest with one product renamed must fail, so the check can.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

load() {
    swift package --package-path "$1" --scratch-path "$work/build" show-dependencies >"$work/log" 2>&1
}

if ! load Tests/Fixtures/UpstreamManifest; then
    cat "$work/log" >&2
    echo "upstream manifest: the package graph did not load" >&2
    exit 1
fi
if grep -E "warning|error" "$work/log" >&2; then
    echo "upstream manifest: loading the package graph warned" >&2
    exit 1
fi

mkdir -p "$work/renamed/Sources/UpstreamApp"
sed -e 's/name: "WeaveDIMacros"/name: "WeaveDIMacrosRenamed"/' -e "s#path: \"../../..\"#path: \"$root\"#" \
    Tests/Fixtures/UpstreamManifest/Package.swift >"$work/renamed/Package.swift"
cp Tests/Fixtures/UpstreamManifest/Sources/UpstreamApp/main.swift "$work/renamed/Sources/UpstreamApp/"
if load "$work/renamed" || ! grep -q "product 'WeaveDIMacrosRenamed'.*not found" "$work/log"; then
    cat "$work/log" >&2
    echo "upstream manifest: a manifest naming a missing product loaded; the check cannot fail" >&2
    exit 1
fi
echo "upstream manifest: WeaveDI, WeaveDIMacros and WeaveDICore resolve; a renamed product is refused"
