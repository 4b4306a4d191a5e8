#!/usr/bin/env bash
# PostgreSQL with continuous WAL archiving into a pgBackRest repository, for
# point-in-time recovery (docs/operations.md). Everything lives under PITR_DIR:
# the server's data (pg/), the repository (repo/), pgBackRest's config, logs
# and locks.
#   ops/pitr.sh init              initdb, archiving on, start, stanza-create and check, createdb casino
#   ops/pitr.sh backup [full|diff|incr]   a pgBackRest backup (safe while players play; default full)
#   ops/pitr.sh restore [TIME]    into an empty data directory: the last backup, then the archived
#                                 WAL to its end (or to TIME, e.g. "2026-12-02 03:00:00+00"); start
#   ops/pitr.sh info              the repository's backups and WAL range
#   ops/pitr.sh start | stop      the server
#   ops/pitr.sh destroy           the drill's disk loss: kill the server at once, delete its data
#   ops/pitr.sh fresh             a new empty server (no archiving), e.g. for a pg_dump restore
#   ops/pitr.sh pg-bin            where PostgreSQL's programs are
# PITR_DIR (default /tmp/casino-pitr-$PITR_PG_PORT), PITR_PG_PORT (30432),
# PITR_ARCHIVE_TIMEOUT (seconds, 60: a quiet server still archives its WAL
# that often, which bounds what a lost disk loses).
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${PITR_PG_PORT:-30432}
DIR=${PITR_DIR:-/tmp/casino-pitr-$PORT}
ARCHIVE_TIMEOUT=${PITR_ARCHIVE_TIMEOUT:-60}
DATA=$DIR/pg
CONF=$DIR/pgbackrest.conf
STANZA=casino

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
BIN=$(pg_bin)

as_pg() {
  # PostgreSQL refuses to run as root; Debian's package makes a postgres user.
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

need() {
  [ -n "$BIN" ] || { echo "PostgreSQL is not installed (ops/services.sh install)" >&2; exit 1; }
  command -v pgbackrest >/dev/null || {
    if [ "$(id -u)" = 0 ]; then DEBIAN_FRONTEND=noninteractive apt-get install -y -q pgbackrest >/dev/null
    else echo "pgbackrest is not installed (apt-get install pgbackrest)" >&2; exit 1; fi
  }
}

backrest() { as_pg pgbackrest --config="$CONF" --stanza=$STANZA "$@"; }

folder() {
  mkdir -p "$DIR"
  if [ "$(id -u)" = 0 ]; then chown postgres "$DIR"; chmod 755 "$DIR"; fi
  as_pg mkdir -p "$DIR/repo" "$DIR/log" "$DIR/lock" "$DIR/spool"
  cat > "$CONF.tmp" <<CONF
[global]
repo1-path=$DIR/repo
repo1-retention-full=2
log-path=$DIR/log
lock-path=$DIR/lock
spool-path=$DIR/spool
log-level-console=warn
log-level-file=info
start-fast=y
compress-type=lz4

[$STANZA]
pg1-path=$DATA
pg1-port=$PORT
pg1-socket-path=$DIR
pg1-user=postgres
CONF
  mv "$CONF.tmp" "$CONF"
  chmod 644 "$CONF"
}

initdb_() {  # archive: on or off
  as_pg mkdir -p "$DATA"
  as_pg chmod 700 "$DATA"
  as_pg "$BIN/initdb" -D "$DATA" -U postgres --auth=trust -E UTF8 >/dev/null
  as_pg tee -a "$DATA/postgresql.conf" >/dev/null <<PGCONF
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$DIR'
max_connections = 100
PGCONF
  if [ "$1" = on ]; then
    as_pg tee -a "$DATA/postgresql.conf" >/dev/null <<PGCONF
# Every WAL segment goes to the repository as it fills, or after
# archive_timeout seconds at most: the longest a lost disk can lose.
wal_level = replica
archive_mode = on
archive_command = 'pgbackrest --config=$CONF --stanza=$STANZA archive-push %p'
archive_timeout = $ARCHIVE_TIMEOUT
PGCONF
  fi
}

start() {
  as_pg "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1 && return 0
  as_pg "$BIN/pg_ctl" -D "$DATA" -l "$DIR/pg.log" -w -t 600 start >/dev/null
  # A restored server answers read-only while it replays the archive: wait
  # until it has finished and accepts writes.
  for _ in $(seq 600); do
    [ "$("$BIN/psql" -h "$DIR" -p "$PORT" -U postgres -tAc 'select pg_is_in_recovery()' 2>/dev/null)" = f ] && return 0
    sleep 0.5
  done
  echo "PostgreSQL on port $PORT did not finish its recovery; see $DIR/pg.log" >&2
  exit 1
}

stop() {
  [ -d "$DATA" ] && as_pg "$BIN/pg_ctl" -D "$DATA" -m fast stop >/dev/null 2>&1 || true
}

createdb_() {
  "$BIN/psql" -h "$DIR" -p "$PORT" -U postgres -tAc "select 1 from pg_database where datname='casino'" | grep -q 1 \
    || "$BIN/createdb" -h "$DIR" -p "$PORT" -U postgres casino
}

case "${1:-}" in
  pg-bin) echo "$BIN" ;;
  init)
    need; folder
    [ -f "$DATA/PG_VERSION" ] || initdb_ on
    start
    backrest stanza-create >/dev/null
    backrest check >/dev/null
    createdb_
    echo "DATABASE_URL=postgres://postgres@127.0.0.1:$PORT/casino"
    ;;
  backup)
    need
    backrest --type="${2:-full}" backup
    backrest info | grep -E "backup:|timestamp start/stop|wal start/stop" | tail -n 3
    ;;
  restore)
    need
    if [ -f "$DATA/PG_VERSION" ]; then
      echo "$DATA is not empty: stop the server and move it aside first (docs/operations.md)" >&2
      exit 1
    fi
    as_pg mkdir -p "$DATA"
    as_pg chmod 700 "$DATA"
    if [ -n "${2:-}" ]; then
      backrest --type=time --target="$2" --target-action=promote restore
    else
      backrest restore  # the last backup, then every archived WAL segment
    fi
    start
    ;;
  info) need; backrest info ;;
  start) start ;;
  stop) stop ;;
  destroy)
    [ -d "$DATA" ] && as_pg "$BIN/pg_ctl" -D "$DATA" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$DATA"
    ;;
  fresh)
    folder
    [ -f "$DATA/PG_VERSION" ] || initdb_ off
    start
    ;;
  *) sed -n 2,19p "$0" >&2; exit 2 ;;
esac
