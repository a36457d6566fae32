#!/usr/bin/env bash
# The main job: registers a few services, resolves them, and prints ns per
# read of the C path vs the Swift baseline and of @Inject vs @Injected.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-deps.sh
echo "building the demo (release; the first build compiles swift-syntax for the macros and takes a few minutes)" >&2
swift build -c release --product weavedi-demo 2>&1 | { grep -v "prohibited flag(s): -D__x86_64__" || true; } >&2
exec .build/release/weavedi-demo "$@"
