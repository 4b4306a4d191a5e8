#!/usr/bin/env bash
# Several daphne workers on PostgreSQL and Redis behind nginx, all on loopback.
#   ops/cluster.sh start    (WORKERS, default 2; PORT, default 8000)
#   ops/cluster.sh stop
# Everything it starts keeps its pid and data under .cluster/.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
DIR=$ROOT/.cluster
WORKERS=${WORKERS:-2}
PORT=${PORT:-8000}
PG_PORT=${CLUSTER_PG_PORT:-55433}
REDIS_PORT=${CLUSTER_REDIS_PORT:-56380}
WORKER_BASE=${CLUSTER_WORKER_BASE:-8101}
PY=$ROOT/.venv/bin/python

start() {
  mkdir -p "$DIR"
  ops/services.sh install
  if ! command -v nginx >/dev/null; then
    [ "$(id -u)" = 0 ] || { echo "need root to install nginx" >&2; exit 1; }
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q nginx >/dev/null
  fi
  eval "$(ops/services.sh start /tmp/casino-cluster-$PG_PORT "$PG_PORT" "$REDIS_PORT" | sed 's/^/export /')"
  [ -f "$DIR/secret" ] || "$PY" -c "import secrets; print(secrets.token_urlsafe(64))" > "$DIR/secret"
  # psycopg's connection pool when the package is installed (CASINO_DB_POOL in
  # casino/settings.py): a new PostgreSQL backend per request is expensive.
  if [ -z "${CASINO_DB_POOL:-}" ]; then
    if "$PY" -c "import psycopg_pool" 2>/dev/null; then CASINO_DB_POOL=16; else CASINO_DB_POOL=0; fi
  fi
  cat > "$DIR/env" <<ENV
export DATABASE_URL=$DATABASE_URL
export CASINO_DB_POOL=$CASINO_DB_POOL
export REDIS_URL=$REDIS_URL
export DJANGO_DEBUG=0
export DJANGO_SECRET_KEY=$(cat "$DIR/secret")
export DJANGO_ALLOWED_HOSTS=127.0.0.1,localhost
export DJANGO_SECURE_SSL_REDIRECT=0
export DJANGO_SECURE_COOKIES=0
export DJANGO_HSTS_SECONDS=0
ENV
  # shellcheck disable=SC1091
  . "$DIR/env"
  "$PY" manage.py migrate --no-input -v 0
  "$PY" manage.py setup_casino
  "$PY" manage.py repair_rounds --refund || true
  "$PY" manage.py collectstatic --no-input -v 0
  local upstream="" started=()
  for i in $(seq 0 $((WORKERS - 1))); do
    local port=$((WORKER_BASE + i))
    if [ -f "$DIR/worker$i.pid" ] && kill -0 "$(cat "$DIR/worker$i.pid")" 2>/dev/null; then
      echo "worker $i already running"
    else
      nohup "$PY" -m daphne -b 127.0.0.1 -p "$port" --proxy-headers casino.asgi:application \
        > "$DIR/worker$i.log" 2>&1 &
      echo $! > "$DIR/worker$i.pid"
      started+=("$i")
    fi
    upstream+="    server 127.0.0.1:$port;"$'\n'
  done
  # nginx marks a worker that refuses a connection as down for a while: start
  # it only once every worker answers, and say so if one never does.
  for i in "${started[@]}"; do
    local port=$((WORKER_BASE + i)) ok=""
    for _ in $(seq 150); do
      if ! kill -0 "$(cat "$DIR/worker$i.pid")" 2>/dev/null; then break; fi
      if curl -fsS -o /dev/null "http://127.0.0.1:$port/accounts/login/" 2>/dev/null; then ok=1; break; fi
      sleep 0.2
    done
    if [ -z "$ok" ]; then
      echo "worker $i (port $port) did not start; the end of $DIR/worker$i.log:" >&2
      tail -n 20 "$DIR/worker$i.log" >&2
      exit 1
    fi
  done
  cat > "$DIR/nginx.conf" <<NGINX
worker_processes 2;
pid $DIR/nginx.pid;
error_log $DIR/nginx-error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $DIR/tmp;
  proxy_temp_path $DIR/tmp;
  fastcgi_temp_path $DIR/tmp;
  uwsgi_temp_path $DIR/tmp;
  scgi_temp_path $DIR/tmp;
  map \$http_upgrade \$connection_upgrade { default upgrade; '' ''; }
  # Each worker serves one request at a time (CASINO_HTTP_CONCURRENCY=1):
  # send a request to the one with fewer in flight rather than in turn.
  upstream casino {
    least_conn;
$upstream    keepalive 64;
  }
  server {
    listen 127.0.0.1:$PORT;
    location / {
      proxy_pass http://casino;
      proxy_http_version 1.1;
      proxy_set_header Host \$http_host;
      proxy_set_header X-Forwarded-For \$remote_addr;
      proxy_set_header X-Forwarded-Proto http;
      proxy_set_header Upgrade \$http_upgrade;
      proxy_set_header Connection \$connection_upgrade;
      proxy_read_timeout 3600s;
    }
  }
}
NGINX
  mkdir -p "$DIR/tmp"
  if [ -f "$DIR/nginx.pid" ] && kill -0 "$(cat "$DIR/nginx.pid")" 2>/dev/null; then
    nginx -c "$DIR/nginx.conf" -s reload
  else
    nginx -c "$DIR/nginx.conf"
  fi
  local up=""
  for _ in $(seq 100); do
    curl -fsS -o /dev/null "http://127.0.0.1:$PORT/accounts/login/" 2>/dev/null && { up=1; break; }
    sleep 0.2
  done
  [ -n "$up" ] || { echo "nginx on port $PORT does not answer; see $DIR/nginx-error.log" >&2; exit 1; }
  echo "cluster: $WORKERS daphne worker(s) behind nginx on http://127.0.0.1:$PORT (PostgreSQL :$PG_PORT, Redis :$REDIS_PORT)"
}

# Whether pid runs a command line containing pattern (a stale pid file must
# not make us signal some other process that got the number since).
alive() { [ -r "/proc/$1/cmdline" ] && tr '\0' ' ' < "/proc/$1/cmdline" | grep -q -- "$2"; }

stop() {
  local pids=()
  if [ -f "$DIR/nginx.pid" ] && alive "$(cat "$DIR/nginx.pid")" nginx; then
    pids+=("$(cat "$DIR/nginx.pid")")
    nginx -c "$DIR/nginx.conf" -s quit 2>/dev/null || true
  fi
  for pidfile in "$DIR"/worker*.pid; do
    [ -f "$pidfile" ] || continue
    local pid
    pid=$(cat "$pidfile")
    if alive "$pid" daphne; then
      pids+=("$pid")
      kill "$pid" 2>/dev/null || true
    fi
    rm -f "$pidfile"
  done
  # Wait for them to go, so the ports are free for the next start; daphne
  # may linger on open websockets, so it gets 10 s before SIGKILL.
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid" 2>/dev/null || true; fi
  done
  ops/services.sh stop "/tmp/casino-cluster-$PG_PORT"
  echo "cluster stopped"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
