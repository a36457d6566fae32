#!/usr/bin/env bash
# Load test of a server example, Examples/HummingbirdServer (the default) or
# Examples/VaporServer: the same JSON API with its services wired through
# WeaveDI (--wiring di) and by hand (--wiring manual), driven by wrk on
# loopback, and the DI cost per request. Both frameworks are measured by the
# same method, below.
#
#   scripts/loadtest.sh                         # Hummingbird, 3 rounds x 2 wirings x 15 s
#   scripts/loadtest.sh --framework vapor
#   DURATION=30s ROUNDS=5 scripts/loadtest.sh --framework hummingbird
#
# Settings (environment): DURATION (15s), WARMUP (3s), THREADS (2),
# CONNECTIONS (32), ROUNDS (3), PORT (18080), ENDPOINT (/todos/1),
# PIN (1: server on CPU 0, wrk on CPU 1, when there are 2+ CPUs),
# SKIP_BUILD (0), BUILD_TIMEOUT (3600 s), SCRATCH (the package's .build),
# SEPARATE (0: one server for both wirings; 1: a fresh server per run).
#
# Method. One server process serves both wirings (`--wiring both`: the DI
# routes under /di, the hand-wired ones under /manual), so both are measured
# in the same warm process with the same heap and code layout; two separately
# started servers differed by up to 15 us of CPU per request between starts,
# more than the difference being measured (SEPARATE=1 keeps that method: a
# fresh server per run). Each round runs both wirings back to back,
# alternating which goes first: WARMUP of load (discarded), then DURATION
# measured with `wrk --latency`. Per run it records requests/s, mean,
# p50 and p99 latency from wrk, and the server's CPU time (utime+stime of the
# whole process, all threads, from /proc/PID/stat, 10 ms ticks) over the
# measured part, divided by the requests wrk completed: CPU us per request.
# The DI cost per request is reported three ways, each as the median over
# rounds of (di - manual) within a round:
#   - server user CPU us per request (utime only): what the DI wiring costs
#     the server's own code for one request (withTaskScope, the
#     @Injected/UnifiedDI lookups, the factories). The wiring makes no system
#     call, and a quarter of the server's CPU is kernel time for the sockets,
#     which moves with how many requests each wakeup batches, not with the
#     wiring: a perf profile of the two wirings in one process put WeaveDI's
#     own frames near 1 us per request while user + kernel differed by -7 to
#     +8 us between runs;
#   - server CPU us per request (utime + stime): the same with the kernel's
#     part. Least disturbed by other load on the machine, since it counts
#     only time the server actually ran, but it moves with cache, frequency
#     and batching effects and whatever else shares the cores;
#   - mean latency (us): what a client waits longer. With wrk's closed loop
#     (CONNECTIONS requests always in flight) it is about CONNECTIONS / rps,
#     so it also carries wrk's own cost and every scheduling delay, and is the
#     noisier of the two on a shared machine.
# The min..max of the per-round differences is printed next to each median:
# when that range straddles zero, the difference is within the noise.
# The database: both wirings keep their data in PostgreSQL (the examples'
# DatabasePool, postgres-nio). Unless DATABASE_URL is set, the script starts
# a throwaway server (scripts/postgres.sh, on PGPORT, default 54349, pinned
# with the server on CPU 0 when PIN=1, so that wrk keeps CPU 1 to itself)
# and removes it on exit. Its CPU is not the server's: the CPU per request
# above is the server process's alone, and the database's work is the same
# for both wirings (the same queries through a pool of the same size).
# Everything stays on 127.0.0.1; every run is bounded by `timeout`; the server
# and the database are stopped on exit, whatever the exit.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

FRAMEWORK=hummingbird
while [ $# -gt 0 ]; do
    case "$1" in
    --framework)
        [ $# -ge 2 ] || { echo "loadtest: --framework takes hummingbird or vapor" >&2; exit 2; }
        FRAMEWORK=$2
        shift 2
        ;;
    --framework=*)
        FRAMEWORK=${1#--framework=}
        shift
        ;;
    -h | --help)
        echo "usage: scripts/loadtest.sh [--framework hummingbird|vapor]  (settings in the environment; see the script's header)"
        exit 0
        ;;
    *)
        echo "loadtest: unknown argument $1" >&2
        exit 2
        ;;
    esac
done
case "$FRAMEWORK" in
hummingbird) PKG="$ROOT/Examples/HummingbirdServer" PRODUCT=hummingbird-server ;;
vapor) PKG="$ROOT/Examples/VaporServer" PRODUCT=vapor-server ;;
*)
    echo "loadtest: --framework takes hummingbird or vapor, not $FRAMEWORK" >&2
    exit 2
    ;;
esac
RESULTS="$PKG/results"

DURATION=${DURATION:-15s}
WARMUP=${WARMUP:-3s}
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-32}
ROUNDS=${ROUNDS:-3}
PORT=${PORT:-18080}
ENDPOINT=${ENDPOINT:-/todos/1}
PIN=${PIN:-1}
SKIP_BUILD=${SKIP_BUILD:-0}
BUILD_TIMEOUT=${BUILD_TIMEOUT:-3600}
SCRATCH=${SCRATCH:-$PKG/.build}
SEPARATE=${SEPARATE:-0}
HOST=127.0.0.1
url_of() { # wiring
    if [ "$SEPARATE" = "1" ]; then echo "http://$HOST:$PORT$ENDPOINT"; else echo "http://$HOST:$PORT/$1$ENDPOINT"; fi
}

seconds() { # 15s / 2m / 15 -> seconds
    case "$1" in
    *m) echo $((${1%m} * 60)) ;;
    *s) echo "${1%s}" ;;
    *) echo "$1" ;;
    esac
}
log() { printf '== %s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

server_pid=""
stop_server() {
    [ -n "$server_pid" ] || return 0
    if kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid" 2>/dev/null || true
        for _ in $(seq 1 50); do
            kill -0 "$server_pid" 2>/dev/null || break
            sleep 0.2
        done
        kill -KILL "$server_pid" 2>/dev/null || true
    fi
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
}
PG_DIR=""
stop_all() {
    stop_server
    [ -z "$PG_DIR" ] || scripts/postgres.sh remove "$PG_DIR"
}
trap stop_all EXIT
trap 'exit 130' INT TERM

# --- dependencies: libck-dev (the library), wrk and curl (the load) ---------
scripts/ensure-deps.sh wrk curl

# --- build --------------------------------------------------------------------
if [ "$SKIP_BUILD" != "1" ]; then
    log "building $PRODUCT (release)"
    start=$(date +%s)
    timeout "$BUILD_TIMEOUT" swift build -c release --package-path "$PKG" --scratch-path "$SCRATCH" \
        --product "$PRODUCT" 2>&1 | { grep -v "prohibited flag(s): -D__x86_64__" || true; }
    log "build took $(($(date +%s) - start)) s"
fi
BIN="$(swift build -c release --package-path "$PKG" --scratch-path "$SCRATCH" --show-bin-path)/$PRODUCT"
[ -x "$BIN" ] || { echo "loadtest: $BIN not built" >&2; exit 1; }

if [ -z "${DATABASE_URL:-}" ]; then
    PG_DIR=/tmp/weavedi-postgres-loadtest
    PGPORT=${PGPORT:-54349}
    eval "$(scripts/postgres.sh start "$PG_DIR" "$PGPORT" todos)"
    DATABASE_URL="$WEAVEDI_POSTGRES_URL/todos"
    if [ "${PIN:-1}" = "1" ] && [ "$(nproc)" -ge 2 ]; then
        # The postmaster and every backend it forks stay with the server, on CPU 0.
        taskset -a -p -c 0 "$(head -1 "$PG_DIR/data/postmaster.pid")" >/dev/null
    fi
    log "PostgreSQL at $DATABASE_URL"
fi

if (exec 3<>"/dev/tcp/$HOST/$PORT") 2>/dev/null; then
    echo "loadtest: something already listens on $HOST:$PORT; set PORT" >&2
    exit 1
fi

server_cpu=""
wrk_cpu=""
if [ "$PIN" = "1" ] && [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
    server_cpu="taskset -c 0"
    wrk_cpu="taskset -c 1"
fi

mkdir -p "$RESULTS"
stamp=$(date +%Y%m%d-%H%M%S)
summary="$RESULTS/summary-$stamp.txt"
rows="$RESULTS/rows-$stamp.tsv"
printf 'round\twiring\trps\tavg_us\tp50_us\tp99_us\trequests\tcpu_s\tcpu_us_per_req\tnon2xx\tuser_us_per_req\n' >"$rows"

cpu_ticks() { # "utime stime" of the whole process
    awk '{ print $14, $15 }' "/proc/$1/stat"
}

start_server() { # wiring round (wiring "both": one server for every run)
    local wiring=$1 round=$2 health=/health
    [ "$wiring" = both ] && health=/di/health
    $server_cpu "$BIN" --wiring "$wiring" --port "$PORT" --database-url "$DATABASE_URL" \
        >"$RESULTS/server-$wiring-r$round-$stamp.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 1 300); do
        if curl -fsS --max-time 1 "http://$HOST:$PORT$health" >/dev/null 2>&1; then
            return 0
        fi
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.2
    done
    echo "loadtest: the $wiring server did not answer on $HOST:$PORT" >&2
    cat "$RESULTS/server-$wiring-r$round-$stamp.log" >&2 || true
    exit 1
}

# wrk's numbers in microseconds
parse_wrk() { # file -> rps avg p50 p99 requests errors (non-2xx + socket errors)
    awk '
        function us(v) {
            if (v ~ /us$/) return v + 0
            if (v ~ /ms$/) return (v + 0) * 1000
            if (v ~ /m$/) return (v + 0) * 60000000
            if (v ~ /s$/) return (v + 0) * 1000000
            return v + 0
        }
        $1 == "Latency" && avg == "" { avg = us($2) }
        $1 == "50%" { p50 = us($2) }
        $1 == "99%" { p99 = us($2) }
        /requests in/ { requests = $1 }
        /^Requests\/sec:/ { rps = $2 }
        /Non-2xx/ { non2xx += $NF }
        /Socket errors/ { gsub(",", ""); non2xx += $4 + $6 + $8 + $10 }
        END { printf "%s %.1f %.1f %.1f %s %s\n", rps, avg, p50, p99, requests, (non2xx == "" ? 0 : non2xx) }
    ' "$1"
}

run_one() { # wiring round
    local wiring=$1 round=$2 out url
    out="$RESULTS/wrk-$wiring-r$round-$stamp.txt"
    url=$(url_of "$wiring")
    [ "$SEPARATE" = "1" ] && start_server "$wiring" "$round"
    # Same answer from both wirings is checked by the example's tests; here
    # only that this one answers the endpoint.
    curl -fsS --max-time 2 "$url" >"$RESULTS/sample-$wiring-$stamp.json"
    timeout $(($(seconds "$WARMUP") + 30)) $wrk_cpu wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" "$url" >/dev/null
    local before after user_before user_after
    read -r user_before before < <(cpu_ticks "$server_pid")
    before=$((before + user_before))
    timeout $(($(seconds "$DURATION") + 30)) $wrk_cpu wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$url" \
        >"$out"
    read -r user_after after < <(cpu_ticks "$server_pid")
    after=$((after + user_after))
    [ "$SEPARATE" = "1" ] && stop_server
    read -r rps avg p50 p99 requests non2xx < <(parse_wrk "$out")
    local hz cpu_s per_req
    hz=$(getconf CLK_TCK)
    cpu_s=$(awk -v t=$((after - before)) -v hz="$hz" 'BEGIN { printf "%.2f", t / hz }')
    per_req=$(awk -v c="$cpu_s" -v n="$requests" 'BEGIN { printf "%.2f", (n > 0 ? c * 1000000 / n : 0) }')
    user_per_req=$(awk -v t=$((user_after - user_before)) -v hz="$hz" -v n="$requests" \
        'BEGIN { printf "%.2f", (n > 0 ? t / hz * 1000000 / n : 0) }')
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
        "$round" "$wiring" "$rps" "$avg" "$p50" "$p99" "$requests" "$cpu_s" "$per_req" "$non2xx" "$user_per_req" >>"$rows"
    log "$wiring r$round: $rps req/s, mean ${avg} us, p50 ${p50} us, p99 ${p99} us, server CPU ${per_req} us/req (user ${user_per_req})"
}

{
    echo "load test $stamp ($FRAMEWORK, $PRODUCT): GET $(url_of di) and $(url_of manual), wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency (after $WARMUP warm-up), $ROUNDS rounds, $([ "$SEPARATE" = 1 ] && echo "a fresh server per run" || echo "one server for both wirings")"
    echo "pinning: ${server_cpu:-none} (server), ${wrk_cpu:-none} (wrk); machine: $(nproc) CPUs; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$summary"

[ "$SEPARATE" = "1" ] || start_server both 0
for round in $(seq 1 "$ROUNDS"); do
    if [ $((round % 2)) -eq 1 ]; then order="di manual"; else order="manual di"; fi
    for wiring in $order; do
        run_one "$wiring" "$round"
    done
done

stop_server
if ! cmp -s "$RESULTS/sample-di-$stamp.json" "$RESULTS/sample-manual-$stamp.json"; then
    # Only the unit-of-work serials may differ (they count the process's requests).
    echo "note: sample bodies differ: $(cat "$RESULTS/sample-di-$stamp.json") vs $(cat "$RESULTS/sample-manual-$stamp.json")" | tee -a "$summary"
fi

awk -F'\t' -v rounds="$ROUNDS" '
    function median(a, n,    i, j, t) {
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
        return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    function minmax(a, n,    i, lo, hi) {
        lo = a[1]; hi = a[1]
        for (i = 2; i <= n; i++) { if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i] }
        return sprintf("%.2f..%.2f", lo, hi)
    }
    NR > 1 {
        r = $1; w = $2
        rps[w, r] = $3; avg[w, r] = $4; p50[w, r] = $5; p99[w, r] = $6; cpu[w, r] = $9; bad[w] += $10; user[w, r] = $11
    }
    END {
        printf "\n%-8s %12s %12s %10s %10s %14s %14s\n", "wiring", "req/s", "mean (us)", "p50 (us)", "p99 (us)", "CPU us/req", "user us/req"
        split("di manual", ws, " ")
        for (k = 1; k <= 2; k++) {
            w = ws[k]
            for (r = 1; r <= rounds; r++) { a1[r] = rps[w, r]; a2[r] = avg[w, r]; a3[r] = p50[w, r]; a4[r] = p99[w, r]; a5[r] = cpu[w, r]; a6[r] = user[w, r] }
            printf "%-8s %12.0f %12.1f %10.1f %10.1f %14.2f %14.2f   (medians of %d runs)\n", w,
                median(a1, rounds), median(a2, rounds), median(a3, rounds), median(a4, rounds), median(a5, rounds), median(a6, rounds), rounds
        }
        for (r = 1; r <= rounds; r++) {
            du[r] = user["di", r] - user["manual", r]; du2[r] = du[r]
            dc[r] = cpu["di", r] - cpu["manual", r]; dc2[r] = dc[r]
            dl[r] = avg["di", r] - avg["manual", r]; dl2[r] = dl[r]
            dr[r] = (1000000 / rps["di", r]) - (1000000 / rps["manual", r]); dr2[r] = dr[r]
        }
        printf "\nDI cost per request (median of per-round di - manual; min..max over rounds):\n"
        printf "  server user CPU time: %+.2f us   (%s)  the process'"'"'s own code, where the wiring runs\n", median(du, rounds), minmax(du2, rounds)
        printf "  server CPU time:      %+.2f us   (%s)  user + kernel\n", median(dc, rounds), minmax(dc2, rounds)
        printf "  mean latency:         %+.2f us   (%s)\n", median(dl, rounds), minmax(dl2, rounds)
        printf "  1/throughput:         %+.2f us   (%s)  wall time per request of the whole loop\n", median(dr, rounds), minmax(dr2, rounds)
        if (bad["di"] + bad["manual"] > 0) printf "  WARNING: non-2xx responses or socket errors: di %d, manual %d\n", bad["di"], bad["manual"]
    }
' "$rows" | tee -a "$summary"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$summary"
echo "raw wrk output, per-run rows and server logs: ${RESULTS#"$ROOT"/}/*-$stamp.*" | tee -a "$summary"
