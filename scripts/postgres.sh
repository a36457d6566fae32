#!/usr/bin/env bash
# A throwaway PostgreSQL server for the server examples and their tests:
# Debian's postgresql (installed through scripts/ensure-deps.sh when
# missing), a new cluster in its own directory, listening on 127.0.0.1 and
# on a socket in that directory only, trust authentication for the one
# superuser `weavedi`. The server never runs as root (PostgreSQL refuses
# to): when this script runs as root, the cluster belongs to the `postgres`
# user the Debian package creates, and every server command runs as it.
#
#   scripts/postgres.sh start [DIR] [PORT] [DATABASE...]
#       creates the cluster in DIR (default /tmp/weavedi-postgres; an
#       earlier cluster there is removed first), starts it on PORT (default
#       54329), creates each DATABASE (default: todos) and prints
#       `export WEAVEDI_POSTGRES_DIR=... WEAVEDI_POSTGRES_URL=...`, the URL
#       without a database name (append /NAME).
#   scripts/postgres.sh stop [DIR]      stops the server; the cluster stays
#   scripts/postgres.sh resume [DIR]    starts a stopped cluster again
#   scripts/postgres.sh remove [DIR]    stops the server, removes DIR
#   scripts/postgres.sh psql [DIR] [DATABASE] [psql arguments...]
#
# stop and resume are what the examples' tests call to take the database
# away under load and bring it back (WEAVEDI_POSTGRES_CONTROL names this
# script). stop uses pg_ctl's fast mode: the server ends every session, as
# a restart or a failover does.
set -euo pipefail

command=${1:-}
[ $# -gt 0 ] && shift
DIR=${1:-${WEAVEDI_POSTGRES_DIR:-/tmp/weavedi-postgres}}
[ $# -gt 0 ] && shift

die() {
    echo "postgres.sh: $*" >&2
    exit 1
}

find_bindir() {
    local dir
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        [ -x "$dir/initdb" ] && { echo "$dir"; return 0; }
    done
    command -v initdb >/dev/null 2>&1 && { dirname "$(command -v initdb)"; return 0; }
    return 1
}

BINDIR=$(find_bindir || true)
if [ -z "$BINDIR" ] && [ "$command" = start ]; then
    "$(dirname "$0")/ensure-deps.sh" postgresql
    BINDIR=$(find_bindir) || die "no initdb after installing postgresql"
fi

# Runs a server command as the cluster's owner.
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

port_of() {
    cat "$DIR/port" 2>/dev/null || die "no cluster in $DIR (run: scripts/postgres.sh start $DIR)"
}

server_start() {
    local port
    port=$(port_of)
    # -w waits until the server accepts connections; -t bounds the wait.
    as_owner "$BINDIR/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 30 \
        -o "-p $port -k $DIR -c listen_addresses=127.0.0.1" start >/dev/null ||
        { cat "$DIR/server.log" >&2; die "the server in $DIR did not start"; }
}

server_stop() {
    [ -d "$DIR/data" ] || return 0
    if as_owner "$BINDIR/pg_ctl" -D "$DIR/data" status >/dev/null 2>&1; then
        as_owner "$BINDIR/pg_ctl" -D "$DIR/data" -m fast -w -t 30 stop >/dev/null
    fi
}

case "$command" in
start)
    PORT=${1:-54329}
    [ $# -gt 0 ] && shift
    databases=("$@")
    [ ${#databases[@]} -gt 0 ] || databases=(todos)
    server_stop
    rm -rf "$DIR"
    mkdir -p "$DIR"
    echo "$PORT" >"$DIR/port"
    [ "$(id -u)" -eq 0 ] && chown postgres "$DIR" "$DIR/port"
    as_owner "$BINDIR/initdb" -D "$DIR/data" -U weavedi --auth=trust --no-sync -E UTF8 >"$DIR/initdb.log" 2>&1 ||
        { cat "$DIR/initdb.log" >&2; die "initdb failed"; }
    server_start
    for database in "${databases[@]}"; do
        as_owner "$BINDIR/createdb" -h "$DIR" -p "$PORT" -U weavedi "$database"
    done
    echo "export WEAVEDI_POSTGRES_DIR=$DIR WEAVEDI_POSTGRES_URL=postgres://weavedi@127.0.0.1:$PORT"
    ;;
stop)
    server_stop
    ;;
resume)
    server_start
    ;;
remove)
    server_stop
    rm -rf "$DIR"
    ;;
psql)
    database=${1:-postgres}
    [ $# -gt 0 ] && shift
    as_owner "$BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -h "$DIR" -p "$(port_of)" -U weavedi -d "$database" "$@"
    ;;
*)
    die "usage: scripts/postgres.sh start|stop|resume|remove|psql [DIR] ..."
    ;;
esac
