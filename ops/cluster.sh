#!/usr/bin/env bash
# The casino on standard servers, all on loopback: HTTP on gunicorn (WSGI,
# HTTP_WORKERS processes), websockets on uvicorn (WS_WORKERS processes), both
# behind nginx on one PORT (/ws/ to uvicorn, the rest to gunicorn), on
# PostgreSQL and Redis.
#   ops/cluster.sh start    (HTTP_WORKERS, default 2; WS_WORKERS, default 1; PORT, default 8000)
#   ops/cluster.sh stop
# supervisord keeps gunicorn and uvicorn running (restarts one that dies);
#   .venv/bin/supervisorctl -c $CLUSTER_DIR/supervisord.conf status
# lists them with their pids. Everything it starts keeps its pid, logs and
# data under CLUSTER_DIR (default .cluster/) and /tmp/casino-cluster-$CLUSTER_PG_PORT.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
DIR=${CLUSTER_DIR:-$ROOT/.cluster}
HTTP_WORKERS=${HTTP_WORKERS:-2}
WS_WORKERS=${WS_WORKERS:-1}
# Seconds a websocket worker's thread keeps its database connection.
WS_CONN_MAX_AGE=${WS_CONN_MAX_AGE:-300}
# A websocket worker freezes its start-up out of the garbage collector's
# full walks (casino/startup.py): at 1,000 players each worker otherwise
# stalled 7 times in a run, 0.5-1.8 s each, every socket on it waiting
# (docs/measurements/scaling.md, 2026-12-07). 0 turns it off.
WS_GC_FREEZE=${WS_GC_FREEZE:-1}
# Login and sign-up posts (each an Argon2id hash, about 18 ms of CPU here,
# casino/frontdoor/hash_pool.py) get gunicorn workers of their own: a player's request
# never waits behind a hash in the same worker. Each worker hashes one
# password at a time (CASINO_HASHES_AT_ONCE=1) while its other threads do
# the rest of their requests or wait for it, so strangers' posts that pass
# nginx's budget take at most LOGIN_WORKERS hashing threads of CPU. Sized on
# bench/load.py with 300 players playing and 200 more signing up at 10 a
# second (docs/measurements/front-door.md, "The cluster: sizing the login
# workers"): at nice 10 the busy machine starved the one worker and every
# one of the 200 timed out; two workers at the players' own priority signed
# up all 200.
LOGIN_WORKERS=${LOGIN_WORKERS:-2}
# Threads per login worker: requests in progress at once; the hash pool's
# waiting places are as many, so none is refused for want of room.
LOGIN_THREADS=${LOGIN_THREADS:-4}
# Their CPU priority (nice 0-19; 0: the players' own), hashes included.
LOGIN_NICE=${LOGIN_NICE:-0}
PORT=${PORT:-8000}
# Below the kernel's range for outgoing connections (32768-60999), which
# a client socket may hold under load.
PG_PORT=${CLUSTER_PG_PORT:-25433}
REDIS_PORT=${CLUSTER_REDIS_PORT:-26380}
# gunicorn listens on WORKER_BASE, the websocket workers on the ports after it,
# the login workers on WORKER_BASE + 50.
WORKER_BASE=${CLUSTER_WORKER_BASE:-8101}
# Anonymous login/sign-up posts per address per minute (nginx here, and
# Django behind it: casino/frontdoor/throttle.py), and the largest request body.
CREDENTIAL_POSTS=${CASINO_CREDENTIAL_POSTS:-10}
MAX_BODY_BYTES=${CASINO_MAX_BODY_BYTES:-1048576}
# Websockets one client address may hold open (nginx, across every websocket
# worker; each worker counts too, casino/frontdoor/sockets_per_address.py), and the seconds a client
# has to send its whole request head (slow clients are cut off).
SOCKETS_PER_ADDRESS=${CASINO_SOCKETS_PER_ADDRESS:-20}
HEAD_SECONDS=${HEAD_SECONDS:-5}
PY=$ROOT/.venv/bin/python
DATA=/tmp/casino-cluster-$PG_PORT
# Monitoring (docs/monitoring.md): Prometheus on loopback, scraping every
# server program (by default on WORKER_BASE + 60, so each cluster's is its
# own); the ledger audit every AUDIT_SECONDS for its alert.
PROMETHEUS_PORT=${CLUSTER_PROMETHEUS_PORT:-$((WORKER_BASE + 60))}
AUDIT_SECONDS=${CASINO_AUDIT_SECONDS:-300}

# Wait until url answers (30 s at most); say why not if it never does.
await_http() {
  local name=$1 url=$2 log=$3
  for _ in $(seq 150); do
    curl -fsS -o /dev/null "$url" 2>/dev/null && return 0
    sleep 0.2
  done
  echo "$name did not start; the end of $log:" >&2
  tail -n 20 "$log" >&2
  exit 1
}

running() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

start() {
  mkdir -p "$DIR/tmp"
  ops/services.sh install
  ops/prometheus.sh install
  if ! command -v nginx >/dev/null; then
    [ "$(id -u)" = 0 ] || { echo "need root to install nginx" >&2; exit 1; }
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q nginx >/dev/null
  fi
  # PostgreSQL and Redis start while the steps that need neither run: the
  # settings, the static files and the log's keys (each a Python start-up).
  ops/services.sh start "$DATA" "$PG_PORT" "$REDIS_PORT" > "$DIR/services.out" &
  local services=$!
  [ -f "$DIR/secret" ] || "$PY" -c "import secrets; print(secrets.token_urlsafe(64))" > "$DIR/secret"
  # psycopg's connection pool when the package is installed (CASINO_DB_POOL in
  # casino/settings/database.py): a new PostgreSQL backend per request is expensive.
  if [ -z "${CASINO_DB_POOL:-}" ]; then
    if "$PY" -c "import psycopg_pool" 2>/dev/null; then CASINO_DB_POOL=4; else CASINO_DB_POOL=0; fi
  fi
  # The addresses ops/services.sh prints once they answer.
  cat > "$DIR/env" <<ENV
export DATABASE_URL=postgres://postgres@127.0.0.1:$PG_PORT/casino
export CASINO_DB_POOL=$CASINO_DB_POOL
export CASINO_DB_HEALTH_CHECKS=1
export REDIS_URL=redis://127.0.0.1:$REDIS_PORT/0
export DJANGO_DEBUG=0
export DJANGO_SECRET_KEY=$(cat "$DIR/secret")
export DJANGO_ALLOWED_HOSTS=127.0.0.1,localhost
export DJANGO_SECURE_SSL_REDIRECT=0
export DJANGO_SECURE_COOKIES=0
export DJANGO_HSTS_SECONDS=0
export DJANGO_STATIC_ROOT=$DIR/static
export CASINO_CREDENTIAL_POSTS=$CREDENTIAL_POSTS
export CASINO_MAX_BODY_BYTES=$MAX_BODY_BYTES
export CASINO_SOCKETS_PER_ADDRESS=$SOCKETS_PER_ADDRESS
export CASINO_LOG_KEY_FILE=$DIR/log_key
export CASINO_LOG_PUBLISHED_FILE=$DIR/log_published
export CASINO_LOG_WITNESSES_FILE=$DIR/log_witnesses
export CASINO_LOG_INTEGRATE_SECONDS=0
export CASINO_LIVE_DEALER=0
ENV
  # /metrics answers only this token's bearer: the cluster's Prometheus.
  [ -f "$DIR/metrics-token" ] || "$PY" -c "import secrets; print(secrets.token_urlsafe(48))" > "$DIR/metrics-token"
  echo "export CASINO_METRICS_TOKEN=$(cat "$DIR/metrics-token")" >> "$DIR/env"
  # shellcheck disable=SC1091
  . "$DIR/env"
  collect_static > "$DIR/collectstatic.log" 2>&1 &
  local static=$!
  # The log's signing key and the witness's key, made once (both commands
  # only print a key that already exists).
  {
    [ -f "$DIR/log_key" ] || "$PY" manage.py make_log_key >/dev/null
    if [ ! -f "$DIR/witness.json" ] || [ ! -s "$DIR/log_witnesses" ]; then
      "$PY" manage.py witness --state "$DIR/witness.json" --key >> "$DIR/log_witnesses.new"
      sort -u "$DIR/log_witnesses.new" > "$DIR/log_witnesses" && rm "$DIR/log_witnesses.new"
    fi
  } > "$DIR/keys.log" 2>&1 &
  local keys=$!
  wait "$services" || { echo "PostgreSQL or Redis did not start (see $DATA)" >&2; exit 1; }
  grep -qx "DATABASE_URL=$DATABASE_URL" "$DIR/services.out" \
    && grep -qx "REDIS_URL=$REDIS_URL" "$DIR/services.out" \
    || { echo "ops/services.sh answered other addresses: $(cat "$DIR/services.out")" >&2; exit 1; }
  "$PY" manage.py migrate --no-input -v 0
  "$PY" manage.py setup_casino
  "$PY" manage.py repair_rounds --refund || true
  wait "$keys" || { echo "the log's keys were not made:" >&2; cat "$DIR/keys.log" >&2; exit 1; }
  wait "$static" || { echo "collectstatic failed:" >&2; tail -n 20 "$DIR/collectstatic.log" >&2; exit 1; }

  # supervisord (from the runtime lock) starts the Python servers and starts
  # again any that dies (a kill -9, a crash): one gunicorn master with
  # HTTP_WORKERS sync workers (the master itself replaces a worker that
  # dies), one niced gunicorn for login and sign-up, and WS_WORKERS uvicorn
  # processes. gunicorn and uvicorn believe X-Forwarded-For from nginx
  # (loopback) only because they are told so here (--forwarded-allow-ips).
  # uvicorn, not daphne: a round costs its socket worker less CPU (uvloop,
  # the websockets package's C framing: docs/scaling.md), on its sans-I/O
  # protocol (websockets-sansio: the older one is deprecated, and cost 87-96
  # us of server CPU for a message and its 8 answers against 63-72). It gives a
  # handshake no deadline of its own (daphne's 5 s cut off players who
  # arrived while a worker was busy), refuses a message over 64 KiB (the
  # consumers refuse one over 4,096 characters themselves), compresses no
  # frame (as daphne did: browsers offer permessage-deflate, and deflating
  # every reveal frame costs CPU the load test's client never asks for), and
  # on a stop closes its sockets (1012) after at most 5 s; the pages open
  # them again. Its few threads keep their database connections
  # (CASINO_DB_CONN_MAX_AGE in casino/settings/database.py) instead of the pool's,
  # unchecked: after a PostgreSQL restart each thread fails one round
  # ("went wrong", nothing taken) and takes a new connection, where a pool
  # of four dead ones failed up to four; checking every round's connection
  # would cost an empty query a round. The HTTP workers check each pooled
  # connection as they take it (CASINO_DB_HEALTH_CHECKS): a page never
  # answers 500 for a connection PostgreSQL ended.
  local http_port=$WORKER_BASE login_port=$((WORKER_BASE + 50))
  local ws_upstream="" ws_ports=() programs=""
  # Only the programs Prometheus scrapes (a third argument: metrics) write
  # their metrics into a folder of their own; the others (the integrator,
  # the witness, the audit) keep none, and must not be pointed at a folder
  # nobody made (prometheus_client then fails at import and supervisord
  # restarts the command every second).
  program() {  # name, command line[, metrics]
    local metrics=""
    [ "${3:-}" = metrics ] && metrics="environment=PROMETHEUS_MULTIPROC_DIR=\"$DIR/metrics/$1\""
    programs+="
[program:$1]
command=$2
directory=$ROOT
autostart=true
autorestart=true
startsecs=1
startretries=100
stopasgroup=true
killasgroup=true
stopwaitsecs=10
redirect_stderr=true
$metrics
stdout_logfile=$DIR/$1.log
stdout_logfile_maxbytes=20MB
stdout_logfile_backups=1
"
  }
  program gunicorn "$PY -m gunicorn -c python:casino.gunicorn_conf --workers $HTTP_WORKERS --bind 127.0.0.1:$http_port --forwarded-allow-ips 127.0.0.1 casino.wsgi:application" metrics
  program login "nice -n $LOGIN_NICE env HTTP_WORKERS=$LOGIN_WORKERS CASINO_HASHES_AT_ONCE=1 CASINO_HASHES_WAITING=$LOGIN_THREADS CASINO_HASH_NICE=0 $PY -m gunicorn -c python:casino.gunicorn_conf --workers $LOGIN_WORKERS --worker-class gthread --threads $LOGIN_THREADS --bind 127.0.0.1:$login_port --forwarded-allow-ips 127.0.0.1 casino.wsgi:application" metrics
  for i in $(seq 0 $((WS_WORKERS - 1))); do
    local port=$((WORKER_BASE + 1 + i))
    ws_ports+=("$port")
    program "ws$i" "env CASINO_DB_POOL=0 CASINO_DB_CONN_MAX_AGE=$WS_CONN_MAX_AGE CASINO_DB_HEALTH_CHECKS=0 CASINO_GC_FREEZE=$WS_GC_FREEZE $PY -m uvicorn casino.asgi:application --host 127.0.0.1 --port $port --loop uvloop --http httptools --ws websockets-sansio --ws-max-size 65536 --ws-per-message-deflate false --lifespan off --proxy-headers --forwarded-allow-ips 127.0.0.1 --no-access-log --timeout-graceful-shutdown 5" metrics
    ws_upstream+="    server 127.0.0.1:$port max_fails=0;"$'\n'
  done
  # The ledger audit, for /metrics (casino_ledger_audit_ok) and its alert.
  # The commitment log: one integrator (each pass holds the log's lock), and
  # one witness that cosigns what the site serves (docs/commitment-log.md).
  program integrator "$PY manage.py integrate_log --every 1"
  program witness "$PY manage.py witness --state $DIR/witness.json --url http://127.0.0.1:$http_port --every 10"
  # The live tables' dealer: its own program (several would deal each coup once).
  program live_dealer "$PY manage.py live_dealer"
  program audit "sh -c 'while :; do $PY manage.py audit_ledger >/dev/null; sleep $AUDIT_SECONDS; done'"
  cat > "$DIR/supervisord.conf" <<SUPERVISOR
[supervisord]
pidfile=$DIR/supervisord.pid
logfile=$DIR/supervisord.log
logfile_maxbytes=5MB
logfile_backups=0
childlogdir=$DIR
nodaemon=false
minfds=4096

[unix_http_server]
file=$DIR/supervisor.sock
chmod=0700

[rpcinterface:supervisor]
supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface

[supervisorctl]
serverurl=unix://$DIR/supervisor.sock
$programs
SUPERVISOR
  if running "$DIR/supervisord.pid"; then
    echo "supervisord already running"
  else
    # Each program's processes write their metrics in a folder of its own
    # (one scrape of the program reads them all); a new start begins afresh.
    rm -rf "$DIR/metrics"
    mkdir -p "$DIR"/metrics/{gunicorn,login} $(for i in $(seq 0 $((WS_WORKERS - 1))); do echo "$DIR/metrics/ws$i"; done)
    # The programs get this shell's environment (the settings in $DIR/env).
    HTTP_WORKERS=$HTTP_WORKERS "$ROOT/.venv/bin/supervisord" -c "$DIR/supervisord.conf"
  fi
  # nginx marks a server that refuses a connection as down for a while:
  # start it only once every worker answers.
  await_http gunicorn "http://127.0.0.1:$http_port/healthz" "$DIR/gunicorn.log"
  await_http "login gunicorn" "http://127.0.0.1:$login_port/healthz" "$DIR/login.log"
  for i in $(seq 0 $((WS_WORKERS - 1))); do
    await_http "websocket worker $i" "http://127.0.0.1:${ws_ports[$i]}/healthz" "$DIR/ws$i.log"
  done

  local burst=$(( CREDENTIAL_POSTS / 2 > 0 ? CREDENTIAL_POSTS / 2 : 1 ))
  local ws_cap=""  # CASINO_SOCKETS_PER_ADDRESS=0: no cap
  [ "$SOCKETS_PER_ADDRESS" = 0 ] || ws_cap="      limit_conn sockets $SOCKETS_PER_ADDRESS;"$'\n'
  # A player holds about five connections here (its page's keep-alive and
  # two websockets, each proxied upstream): 4096 reset players' connections
  # from about 800 players on ("worker_connections are not enough").
  cat > "$DIR/nginx.conf" <<NGINX
worker_processes 1;
pid $DIR/nginx.pid;
error_log $DIR/nginx-error.log warn;
events { worker_connections 16384; }
http {
  access_log off;
  # No version in the Server header nor on nginx's own error pages.
  server_tokens off;
  client_body_temp_path $DIR/tmp;
  proxy_temp_path $DIR/tmp;
  fastcgi_temp_path $DIR/tmp;
  uwsgi_temp_path $DIR/tmp;
  scgi_temp_path $DIR/tmp;
  # A body over the limit gets 413: at once when its length says so, and a
  # chunked one as soon as the bytes read pass it. A head not all there
  # after HEAD_SECONDS, or a body that stalls 10 s between two reads,
  # closes the connection (slow clients hold nothing for long).
  client_max_body_size $MAX_BODY_BYTES;
  client_header_timeout ${HEAD_SECONDS}s;
  client_body_timeout 10s;
  # Open websockets per client address, over every websocket worker.
  limit_conn_zone \$binary_remote_addr zone=sockets:10m;
  limit_conn_status 429;
  map \$http_upgrade \$connection_upgrade { default upgrade; '' close; }
  # Anonymous credential posts per client address, before they reach a
  # worker (every one costs a password hash there): $CREDENTIAL_POSTS a
  # minute, $burst at once.
  map \$request_method \$credential_client { POST \$binary_remote_addr; default ""; }
  # Only the posts hash a password: the forms themselves are plain pages.
  map \$request_method \$credential_upstream { POST casino_login; default casino_http; }
  limit_req_zone \$credential_client zone=credentials:10m rate=${CREDENTIAL_POSTS}r/m;
  limit_req_status 429;
  # max_fails=0: a server that fails (restarting under supervisord) is tried
  # again at once, not left out for 10 s.
  upstream casino_http {
    server 127.0.0.1:$http_port max_fails=0;
  }
  upstream casino_login {
    server 127.0.0.1:$login_port max_fails=0;
  }
  upstream casino_ws {
    least_conn;
$ws_upstream  }
  server {
    listen 127.0.0.1:$PORT;
    proxy_http_version 1.1;
    proxy_set_header Host \$http_host;
    proxy_set_header X-Forwarded-For \$remote_addr;
    proxy_set_header X-Forwarded-Proto \$scheme;
    location /ws/ {
$ws_cap      proxy_pass http://casino_ws;
      proxy_set_header Host \$http_host;
      proxy_set_header X-Forwarded-For \$remote_addr;
      proxy_set_header X-Forwarded-Proto \$scheme;
      proxy_set_header Upgrade \$http_upgrade;
      proxy_set_header Connection \$connection_upgrade;
      proxy_read_timeout 3600s;
    }
    location ~ ^/(accounts/login|accounts/signup|admin/login)/\$ {
      limit_req zone=credentials burst=$burst nodelay;
      error_page 429 = @throttled;
      proxy_pass http://\$credential_upstream;
    }
    location @throttled {
      default_type "text/html; charset=utf-8";
      add_header Retry-After 60 always;
      return 429 '<!doctype html><html><head><meta charset="utf-8"><title>Too many attempts</title></head><body><h1>Too many attempts</h1><p>Too many log-in or sign-up attempts came from your network. Please wait a minute and try again.</p><p lang="ja">ログインまたは登録の試行が多すぎます。1分ほど待ってから、もう一度お試しください。</p><p><a href="/accounts/login/">Back to the log-in page</a></p></body></html>';
    }
    # Prometheus scrapes each worker on loopback; the public never reaches
    # /metrics, token or not.
    location = /metrics {
      return 404;
    }
    location / {
      proxy_pass http://casino_http;
      proxy_read_timeout 120s;
    }
  }
}
NGINX
  if running "$DIR/nginx.pid"; then
    nginx -c "$DIR/nginx.conf" -s reload
  else
    nginx -c "$DIR/nginx.conf"
  fi
  local up=""
  # Ready: nginx answers, and behind it the database, Redis and the schema.
  for _ in $(seq 100); do
    curl -fsS -o /dev/null "http://127.0.0.1:$PORT/readyz" 2>/dev/null && { up=1; break; }
    sleep 0.2
  done
  [ -n "$up" ] || { echo "nginx on port $PORT does not answer /readyz; see $DIR/nginx-error.log and the workers' logs" >&2; exit 1; }
  ops/prometheus.sh start "$DIR/prometheus" "$PROMETHEUS_PORT" "$DIR/metrics-token" \
    "127.0.0.1:$http_port" "127.0.0.1:$login_port" \
    $(for port in "${ws_ports[@]}"; do echo "127.0.0.1:$port"; done)
  echo "cluster: gunicorn ($HTTP_WORKERS HTTP worker(s), $LOGIN_WORKERS for login and sign-up) and $WS_WORKERS uvicorn websocket worker(s) behind nginx on http://127.0.0.1:$PORT (PostgreSQL :$PG_PORT, Redis :$REDIS_PORT, Prometheus http://127.0.0.1:$PROMETHEUS_PORT)"
}

# collectstatic into $DIR/static, unless the files it would write are there
# from inputs that have not changed since: the project's static folder, the
# installed packages (their versions: the apps' own static files) and the
# settings that name the storage. Post-processing every file (hashed names,
# compression) costs several seconds of CPU a start.
collect_static() {
  local site_packages hash
  site_packages=$("$PY" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
  hash=$({
    find static -type f -print0 | sort -z | xargs -0 sha256sum
    ls "$site_packages"
    sha256sum casino/settings/*.py
  } | sha256sum | cut -d' ' -f1)
  if [ -f "$DIR/static/staticfiles.json" ] && [ "$(cat "$DIR/static.hash" 2>/dev/null)" = "$hash" ]; then
    echo "static files unchanged ($hash)"
    return 0
  fi
  rm -f "$DIR/static.hash"
  "$PY" manage.py collectstatic --no-input -v 0
  echo "$hash" > "$DIR/static.hash"
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
  # supervisord stops its programs (SIGTERM, SIGKILL after 10 s) and exits.
  # `stop all` signals every program at once; a bare shutdown stops them one
  # after the other (each waited out), which on a busy machine outlasted the
  # wait below, and the SIGKILL that followed left gunicorn and the audit
  # running as orphans on the cluster's ports.
  local ctl=("$ROOT/.venv/bin/supervisorctl" -c "$DIR/supervisord.conf") groups=()
  if [ -f "$DIR/supervisord.pid" ] && alive "$(cat "$DIR/supervisord.pid")" supervisord; then
    pids+=("$(cat "$DIR/supervisord.pid")")
    # Each program runs in a process group of its own (its pid's).
    mapfile -t groups < <("${ctl[@]}" pid all 2>/dev/null | grep -E '^[1-9][0-9]*$' || true)
    "${ctl[@]}" stop all >/dev/null 2>&1 || true
    "${ctl[@]}" shutdown >/dev/null 2>&1 || kill "$(cat "$DIR/supervisord.pid")" 2>/dev/null || true
  fi
  # Servers started by hand before supervisord ran them, if any.
  for pidfile in "$DIR"/gunicorn.pid "$DIR"/login.pid "$DIR"/ws*.pid "$DIR"/worker*.pid; do
    [ -f "$pidfile" ] || continue
    local pid
    pid=$(cat "$pidfile")
    if alive "$pid" gunicorn || alive "$pid" uvicorn || alive "$pid" daphne; then
      pids+=("$pid")
      kill "$pid" 2>/dev/null || true
    fi
    rm -f "$pidfile"
  done
  # Wait for them to go, so the ports are free for the next start; a
  # websocket worker may linger on open sockets, so it gets 15 s before SIGKILL.
  for pid in "${pids[@]}"; do
    for _ in $(seq 75); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid" 2>/dev/null || true; fi
  done
  # Whatever of a program outlived supervisord (killed above): its group,
  # if it still runs this project's commands (not a later owner of the id).
  for pgid in "${groups[@]}"; do
    pgrep -g "$pgid" -f "$ROOT" >/dev/null && kill -9 -- "-$pgid" 2>/dev/null || true
  done
  ops/prometheus.sh stop "$DIR/prometheus"
  ops/services.sh stop "$DATA"
  echo "cluster stopped"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
