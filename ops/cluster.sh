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
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q nginx >/dev/null
  fi
  eval "$(ops/services.sh start /tmp/casino-cluster-$PG_PORT "$PG_PORT" "$REDIS_PORT" | sed 's/^/export /')"
  [ -f "$DIR/secret" ] || "$PY" -c "import secrets; print(secrets.token_urlsafe(64))" > "$DIR/secret"
  cat > "$DIR/env" <<ENV
export DATABASE_URL=$DATABASE_URL
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
  local upstream=""
  for i in $(seq 0 $((WORKERS - 1))); do
    local port=$((WORKER_BASE + i))
    if [ -f "$DIR/worker$i.pid" ] && kill -0 "$(cat "$DIR/worker$i.pid")" 2>/dev/null; then
      echo "worker $i already running"
    else
      nohup "$PY" -m daphne -b 127.0.0.1 -p "$port" --proxy-headers casino.asgi:application \
        > "$DIR/worker$i.log" 2>&1 &
      echo $! > "$DIR/worker$i.pid"
    fi
    upstream+="    server 127.0.0.1:$port;"$'\n'
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
  map \$http_upgrade \$connection_upgrade { default upgrade; '' close; }
  upstream casino {
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
  for _ in $(seq 100); do
    curl -fsS -o /dev/null "http://127.0.0.1:$PORT/accounts/login/" 2>/dev/null && break
    sleep 0.2
  done
  echo "cluster: $WORKERS daphne worker(s) behind nginx on http://127.0.0.1:$PORT (PostgreSQL :$PG_PORT, Redis :$REDIS_PORT)"
}

stop() {
  [ -f "$DIR/nginx.pid" ] && nginx -c "$DIR/nginx.conf" -s quit 2>/dev/null || true
  for pidfile in "$DIR"/worker*.pid; do
    [ -f "$pidfile" ] || continue
    kill "$(cat "$pidfile")" 2>/dev/null || true
    rm -f "$pidfile"
  done
  ops/services.sh stop "/tmp/casino-cluster-$PG_PORT"
  echo "cluster stopped"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
