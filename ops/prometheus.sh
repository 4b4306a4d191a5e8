#!/usr/bin/env bash
# The cluster's Prometheus (Debian's package), on loopback, beside
# PostgreSQL and Redis (ops/services.sh), with the rules kept in
# ops/prometheus/rules.yml (docs/monitoring.md).
#   ops/prometheus.sh install                    install Debian's prometheus if missing (root)
#   ops/prometheus.sh start DIR PORT TOKEN_FILE TARGET...
#   ops/prometheus.sh stop DIR
# TARGETs are host:port of the server programs; each answers /metrics for
# every process of its program (prometheus_client's multiprocess mode) to
# the bearer of the token in TOKEN_FILE. Data and logs live under DIR; the
# package's own system service is never started.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SCRAPE_SECONDS=${PROMETHEUS_SCRAPE_SECONDS:-15}

install() {
  command -v prometheus >/dev/null && command -v promtool >/dev/null && return 0
  if [ "$(id -u)" != 0 ]; then echo "need root to install Debian's prometheus" >&2; exit 1; fi
  # The package would start a system Prometheus on :9090: a policy-rc.d
  # that refuses to start services keeps it off (left alone if one is there).
  local policy=/usr/sbin/policy-rc.d added=""
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' > "$policy"
    chmod 755 "$policy"
    added=1
  fi
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends prometheus >/dev/null \
    || { [ -z "$added" ] || rm -f "$policy"; exit 1; }
  [ -z "$added" ] || rm -f "$policy"
}

running() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

start() {
  local dir=$1 port=$2 token=$3
  shift 3
  mkdir -p "$dir/data"
  dir=$(cd "$dir" && pwd)
  local targets=""
  for target in "$@"; do targets+="          - \"$target\""$'\n'; done
  cat > "$dir/prometheus.yml" <<CONFIG
global:
  scrape_interval: ${SCRAPE_SECONDS}s
  evaluation_interval: ${SCRAPE_SECONDS}s
rule_files:
  - $ROOT/ops/prometheus/rules.yml
scrape_configs:
  - job_name: casino
    metrics_path: /metrics
    authorization:
      type: Bearer
      credentials_file: $token
    static_configs:
      - targets:
$targets
CONFIG
  promtool check config "$dir/prometheus.yml" >/dev/null
  if running "$dir/prometheus.pid"; then
    kill -HUP "$(cat "$dir/prometheus.pid")"  # read the targets again
  else
    nohup prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
      --web.listen-address="127.0.0.1:$port" --storage.tsdb.retention.time=15d \
      >"$dir/prometheus.log" 2>&1 &
    echo $! > "$dir/prometheus.pid"
  fi
  for _ in $(seq 100); do
    curl -fsS -o /dev/null "http://127.0.0.1:$port/-/ready" 2>/dev/null && return 0
    sleep 0.2
  done
  echo "Prometheus did not start on port $port; the end of $dir/prometheus.log:" >&2
  tail -n 20 "$dir/prometheus.log" >&2
  exit 1
}

stop() {
  local dir=$1
  [ -f "$dir/prometheus.pid" ] || return 0
  local pid
  pid=$(cat "$dir/prometheus.pid")
  # Only our Prometheus: a stale pid file must not signal another process.
  if [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q -- "$dir/prometheus.yml"; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid" 2>/dev/null || true; fi
  fi
  rm -f "$dir/prometheus.pid"
}

case "${1:-}" in
  install) install ;;
  start) shift; start "$@" ;;
  stop) stop "$2" ;;
  *) echo "usage: $0 install | start DIR PORT TOKEN_FILE TARGET... | stop DIR" >&2; exit 2 ;;
esac
