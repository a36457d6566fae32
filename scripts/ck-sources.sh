#!/usr/bin/env bash
# Prepares Concurrency Kit's own sources for the C sanitizer builds
# (scripts/sanitize.sh): Debian's libck.so is not instrumented, so those builds
# compile ck_epoch.c and ck_hs.c in. Fetches the source of the installed
# libck-dev with `apt-get source` into a cache outside the repository (adding
# a deb-src entry, /etc/apt/sources.list.d/weavedi-deb-src.sources, if none is
# configured; root or sudo for that), then writes into OUT:
#   OUT/ck             the ck sources (a link into the cache)
#   OUT/ck-md/ck_md.h  Debian's ck_md.h: the configuration libck.so was built with
#   OUT/tsan-model/    generated copies for the TSan build (never the ck sources):
#     ck_pr.h, gcc/ck_pr.h   ck_pr loads acquire, stores release
#     src/ck_epoch.c         its one plain store of record->epoch atomic
#
# Usage: scripts/ck-sources.sh OUT
# Environment: WEAVEDI_CK_SRC (cache, default /tmp/weavedi-ck-src),
#              WEAVEDI_DEBIAN_MIRROR (default http://deb.debian.org/debian)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:?usage: scripts/ck-sources.sh OUT}"
CACHE="${WEAVEDI_CK_SRC:-/tmp/weavedi-ck-src}"
die() { echo "ck-sources: $*" >&2; exit 1; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

"$ROOT/scripts/ensure-deps.sh" libck-dev dpkg-dev xz-utils
VERSION="$(dpkg-query -W -f='${source:Version}' libck-dev)" # e.g. 0.7.1-10
UPSTREAM="${VERSION#*:}"
UPSTREAM="${UPSTREAM%-*}"
[ "$UPSTREAM" = "0.7.1" ] || echo "ck-sources: warning: libck-dev is $VERSION; the TSan model was written for ck 0.7.1" >&2
CK="$CACHE/ck-$UPSTREAM"

if ! [ -f "$CK/.weavedi-$VERSION" ]; then
    if ! apt-cache showsrc ck 2>/dev/null | grep -x "Version: $VERSION" >/dev/null; then
        file=/etc/apt/sources.list.d/weavedi-deb-src.sources
        echo "ck-sources: adding a deb-src entry: $file" >&2
        printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
            "${WEAVEDI_DEBIAN_MIRROR:-http://deb.debian.org/debian}" \
            "$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")" | as_root tee "$file" >/dev/null
        as_root apt-get update -q >/dev/null
    fi
    mkdir -p "$CACHE"
    fetch="$(mktemp -d "$CACHE/.fetch.XXXXXX")"
    chmod 755 "$fetch"
    (cd "$fetch" && apt-get source -q "ck=$VERSION" >apt-get-source.log 2>&1) ||
        { cat "$fetch/apt-get-source.log" >&2; die "apt-get source ck=$VERSION failed"; }
    rm -rf "$CK"
    mv "$fetch/ck-$UPSTREAM" "$CK"
    rm -rf "$fetch"
    touch "$CK/.weavedi-$VERSION"
fi

mkdir -p "$OUT/ck-md"
ln -sfn "$CK" "$OUT/ck"
cp /usr/include/ck_md.h "$OUT/ck-md/ck_md.h"

# The TSan model of ck_pr. With CK_USE_CC_BUILTINS=1 ck's atomic RMW
# operations become __sync builtins that TSan understands, but ck_pr_load_*
# and ck_pr_store_* stay volatile plain accesses and ck_pr_fence_* become
# __sync_synchronize, which TSan ignores: it would report every ck_pr
# load/store as a race (~500 reports, all inside ck_pr.h) and see none of the
# ordering the epoch protocol and ck_hs publication rely on. On x86-64 (where
# this runs, and the architecture ck 0.7.1's ordering is correct for) those
# loads and stores are single `mov`s with compiler barriers, which TSO makes
# acquire and release: the copy says so with __atomic. Plain accesses stay
# plain, so a missing grace period, a plain read of a published field or a
# free while a reader can see the memory is still reported. It does not
# validate arm64 ordering.
MODEL="$OUT/tsan-model"
rm -rf "$MODEL"
mkdir -p "$MODEL/src"
cp "$CK/include/ck_pr.h" "$MODEL/ck_pr.h"
cp -R "$CK/include/gcc" "$MODEL/gcc"
sed -i \
    -e 's|r = CK_PR_ACCESS(\*(const T \*)target);|__atomic_load((const T *)target, \&r, __ATOMIC_ACQUIRE); /* weavedi tsan model */|' \
    -e 's|CK_PR_ACCESS(\*(T \*)target) = v;|__atomic_store((T *)target, \&v, __ATOMIC_RELEASE); /* weavedi tsan model */|' \
    -e 's|r = CK_CC_DECONST_PTR(\*(volatile void \*const\*)(target));|r = CK_CC_DECONST_PTR(__atomic_load_n((void *const *)(target), __ATOMIC_ACQUIRE)); /* weavedi tsan model */|' \
    -e 's|\*(volatile void \*\*)target = CK_CC_DECONST_PTR(v);|__atomic_store_n((void **)target, CK_CC_DECONST_PTR(v), __ATOMIC_RELEASE); /* weavedi tsan model */|' \
    "$MODEL/gcc/ck_pr.h"
[ "$(grep -c 'weavedi tsan model' "$MODEL/gcc/ck_pr.h")" -eq 4 ] || die "could not model $CK/include/gcc/ck_pr.h (ck changed?)"

# The TSan model of ck_epoch.c, one line: ck_epoch_poll_deferred
# (ck_epoch.c:597), on finding every record inactive, stores its own
# record->epoch with a plain store while another thread's ck_epoch_scan loads
# it with ck_pr_load_uint. Both are one aligned `mov` on x86-64 and the record
# is inactive, so nothing reads a torn value; the copy makes the store
# ck_pr_store_uint. Narrower than a race:ck_epoch_poll_deferred suppression,
# which would also hide races in the deferred callbacks (weave_registry.c's
# value releases and table frees) that run inside that function.
sed 's|^\t\trecord->epoch = epoch;$|\t\tck_pr_store_uint(\&record->epoch, epoch); /* weavedi tsan model */|' \
    "$CK/src/ck_epoch.c" >"$MODEL/src/ck_epoch.c"
[ "$(diff "$CK/src/ck_epoch.c" "$MODEL/src/ck_epoch.c" | grep -c '^>')" -eq 1 ] || die "could not model $CK/src/ck_epoch.c (ck changed?)"
echo "ck-sources: ck $VERSION in $OUT (TSan model in $MODEL)" >&2
