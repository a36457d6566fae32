#!/usr/bin/env bash
# Installs what building WeaveDI needs and is missing: Concurrency Kit
# (libck-dev, found through pkg-config) on Debian/Ubuntu, concurrencykit via
# Homebrew on macOS. Extra Debian packages can be named as arguments.
set -euo pipefail

need=()
if ! pkg-config --exists ck 2>/dev/null; then
    need+=(libck-dev)
fi
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
for extra in "$@"; do
    dpkg -s "$extra" >/dev/null 2>&1 || need+=("$extra")
done
[ ${#need[@]} -eq 0 ] && exit 0

case "$(uname -s)" in
Linux)
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "ensure-deps: install ${need[*]} with your package manager" >&2
        exit 1
    fi
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "ensure-deps: installing ${need[*]}" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
    ;;
Darwin)
    echo "ensure-deps: installing concurrencykit with Homebrew" >&2
    brew install concurrencykit pkg-config
    ;;
*)
    echo "ensure-deps: install Concurrency Kit (pkg-config name 'ck') for $(uname -s)" >&2
    exit 1
    ;;
esac
