#!/usr/bin/env bash
# Start or stop the project's own PostgreSQL and Redis on loopback.
#   ops/services.sh install            install Debian's postgresql and redis-server if missing (root)
#   ops/services.sh start DIR PGPORT REDISPORT
#   ops/services.sh stop DIR
# Data lives under DIR (a throwaway folder); nothing touches a system cluster.
set -euo pipefail

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

as_pg() {
  # PostgreSQL refuses to run as root; Debian's package makes a postgres user.
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

install() {
  local need=()
  [ -n "$(pg_bin)" ] || need+=(postgresql)
  command -v redis-server >/dev/null || need+=(redis-server)
  # Point-in-time recovery (ops/pitr.sh) and its restore drill.
  command -v pgbackrest >/dev/null || need+=(pgbackrest)
  if ((${#need[@]})); then
    if [ "$(id -u)" != 0 ]; then echo "need root to install: ${need[*]}" >&2; exit 1; fi
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}"
  fi
  # The Debian package may start its own cluster on 5432; ours use other ports.
  return 0
}

start_redis() {
  local dir=$1 redisport=$2
  if ! redis-cli -p "$redisport" ping >/dev/null 2>&1; then
    redis-server --port "$redisport" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
      --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" --dir "$dir"
    for _ in $(seq 50); do redis-cli -p "$redisport" ping >/dev/null 2>&1 && break; sleep 0.1; done
    if ! redis-cli -p "$redisport" ping >/dev/null 2>&1; then
      # e.g. the port is taken (it is in the kernel's range for outgoing connections)
      echo "Redis did not start on port $redisport; the end of $dir/redis.log:" >&2
      tail -n 5 "$dir/redis.log" >&2
      exit 1
    fi
  fi
}

start() {
  local dir=$1 pgport=$2 redisport=$3 bin redis
  bin=$(pg_bin)
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; chmod 755 "$dir"; fi
  # Redis starts while PostgreSQL does.
  start_redis "$dir" "$redisport" &
  redis=$!
  if [ ! -f "$dir/pg/PG_VERSION" ]; then
    as_pg mkdir -p "$dir/pg"
    as_pg "$bin/initdb" -D "$dir/pg" -U postgres --auth=trust -E UTF8 >/dev/null
  fi
  if ! as_pg "$bin/pg_ctl" -D "$dir/pg" status >/dev/null 2>&1; then
    as_pg "$bin/pg_ctl" -D "$dir/pg" -l "$dir/pg.log" -w -o "-p $pgport -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off -c synchronous_commit=off" start >/dev/null
  fi
  "$bin/psql" -h 127.0.0.1 -p "$pgport" -U postgres -tAc "select 1 from pg_database where datname='casino'" | grep -q 1 \
    || "$bin/createdb" -h 127.0.0.1 -p "$pgport" -U postgres casino
  wait "$redis"
  echo "DATABASE_URL=postgres://postgres@127.0.0.1:$pgport/casino"
  echo "REDIS_URL=redis://127.0.0.1:$redisport/0"
}

stop() {
  local dir=$1 bin
  bin=$(pg_bin)
  [ -d "$dir/pg" ] && as_pg "$bin/pg_ctl" -D "$dir/pg" -m fast stop >/dev/null 2>&1 || true
  if [ -f "$dir/redis.pid" ]; then
    local pid
    pid=$(cat "$dir/redis.pid")
    kill "$pid" 2>/dev/null || true
    # Gone before we return, so a start right after finds the port free.
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    rm -f "$dir/redis.pid"
  fi
}

case "${1:-}" in
  install) install ;;
  start) start "$2" "$3" "$4" ;;
  stop) stop "$2" ;;
  *) echo "usage: $0 install | start DIR PGPORT REDISPORT | stop DIR" >&2; exit 2 ;;
esac
