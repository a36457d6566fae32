#!/usr/bin/env bash
# The main job: registers a few services, resolves them, and prints ns per
# read of the C path vs the Swift baseline and of @Inject vs @Injected.
# scripts/demo.sh --graph: validates the demo's registrations, prints their
# dependency graph (Graphviz DOT and Mermaid) and times validate() on 10,000
# generated registrations.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh
# The demo uses neither the macros nor the swift-dependencies bridge, so it
# builds without those traits and never compiles swift-syntax in release;
# SystemConcurrencyKit alone: its figures are of the registry on libck.
echo "building the demo (release)" >&2
swift build -c release --traits SystemConcurrencyKit --scratch-path .build-demo --product weavedi-demo 2>&1 \
    | { grep -v "prohibited flag(s): -D__x86_64__" || true; } >&2
exec .build-demo/release/weavedi-demo "$@"
