#!/usr/bin/env bash
# Brings docs/multi-node.md's deployment up on this machine, on loopback:
# PostgreSQL (Debian's package), two ssh2048 nodes sharing one host key and
# one database, and HAProxy in front (TCP mode, send-proxy-v2 from
# 127.0.0.2, the only address the nodes trust). Prints the balancer's
# address and runs until Ctrl-C or SIGTERM, then stops everything and
# removes its files. Run it as root (PostgreSQL then runs as postgres) or
# as any user that may run initdb.
#
#   deploy/loopback-cluster.sh [BALANCER_PORT]        # default 23240; the nodes and
#                                                     # PostgreSQL on the next three ports
#   ssh2048 load --addr 127.0.0.1:23240 --sessions 500 ...   # from another terminal
#
# With SSH2048_PG_STATS=1, PostgreSQL loads pg_stat_statements (what each
# statement costs: docs/multi-node.md, Figures); =all counts the
# statements triggers run too. SSH2048_BIN names a binary
# to run instead of building one. Each node serves its metrics on the ports
# after PostgreSQL's (node1 BALANCER_PORT+4, node2 +5).
set -euo pipefail
cd "$(dirname "$0")/.."
port=${1:-23240}
node1=127.0.0.1:$((port + 1)) node2=127.0.0.1:$((port + 2)) pgport=$((port + 3))
metrics1=127.0.0.1:$((port + 4)) metrics2=127.0.0.1:$((port + 5))

# SSH2048_PG_STATS=all also counts the statements that triggers run, and
# the trigger functions' own time (which slows PostgreSQL down).
nested=; [ "${SSH2048_PG_STATS:-}" = all ] && nested=1
pgbin=$(dirname "$(readlink -f "$(command -v initdb 2>/dev/null || ls -d /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1)")")
command -v haproxy >/dev/null || { echo "haproxy is not installed: apt-get install haproxy" >&2; exit 1; }
[ -x "$pgbin/initdb" ] || { echo "PostgreSQL is not installed: apt-get install postgresql" >&2; exit 1; }

work=$(mktemp -d /tmp/ssh2048-cluster-XXXXXX)
as=()
if [ "$(id -u)" = 0 ]; then chown postgres: "$work"; as=(runuser -u postgres --); fi
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  "${as[@]}" "$pgbin/pg_ctl" -D "$work/pg" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

if [ -n "${SSH2048_BIN:-}" ]; then cp "$SSH2048_BIN" "$work/ssh2048"; else go build -o "$work/ssh2048" ./cmd/ssh2048; fi
"${as[@]}" "$pgbin/initdb" -D "$work/pg" -U postgres --auth=trust -E UTF8 >/dev/null
"${as[@]}" "$pgbin/pg_ctl" -D "$work/pg" -l "$work/pg.log" -w \
  -o "-c listen_addresses=127.0.0.1 -c port=$pgport -c unix_socket_directories=$work -c max_connections=200 ${SSH2048_PG_STATS:+-c shared_preload_libraries=pg_stat_statements} ${nested:+-c pg_stat_statements.track=all -c track_functions=pl}" start >/dev/null
"${as[@]}" "$pgbin/psql" -q -h 127.0.0.1 -p $pgport -U postgres -c 'CREATE DATABASE ssh2048'
if [ -n "${SSH2048_PG_STATS:-}" ]; then
  "${as[@]}" "$pgbin/psql" -q -h 127.0.0.1 -p $pgport -U postgres -d ssh2048 -c 'CREATE EXTENSION pg_stat_statements'
fi

export SSH2048_DATABASE_URL="postgres://postgres@127.0.0.1:$pgport/ssh2048?sslmode=disable"
export SSH2048_HOST_KEY="$work/ssh_host_ed25519_key" SSH2048_PROXY_PROTOCOL_FROM=127.0.0.2
# Every load-test client comes from 127.0.0.1: the per-address limits off.
export SSH2048_CONN_RATE_PER_IP=0 SSH2048_MAX_UNAUTH_PER_IP=0 SSH2048_MAX_CONNS_PER_IP=0 SSH2048_MAX_CONNS=3000
for n in 1 2; do
  eval addr=\$node$n metrics=\$metrics$n
  "$work/ssh2048" serve --listen "$addr" --metrics "$metrics" --data "$work/data$n" --log-level warn 2>"$work/node$n.log" &
  pids+=($!)
done
# HAProxy marks a node down after two failed health checks: start it
# once both nodes are ready (at most 30 s), not while they migrate.
for _ in $(seq 60); do
  curl -sf "http://$metrics1/readyz" >/dev/null 2>&1 && curl -sf "http://$metrics2/readyz" >/dev/null 2>&1 && break
  sleep 0.5
done
cat >"$work/haproxy.cfg" <<CFG
global
    maxconn 8192
    # One thread: on this machine HAProxy shares the cores with both nodes
    # and PostgreSQL, and a second thread only waits for them.
    nbthread 1
defaults
    mode tcp
    timeout connect 5s
    timeout client 15m
    timeout server 15m
    retries 3
    option redispatch
frontend ssh
    bind 127.0.0.1:$port
    default_backend ssh2048
backend ssh2048
    balance leastconn
    default-server send-proxy-v2 check check-send-proxy inter 1s fall 2 rise 2 source 127.0.0.2
    server node1 $node1
    server node2 $node2
CFG
haproxy -db -f "$work/haproxy.cfg" 2>"$work/haproxy.log" &
pids+=($!)
sleep 2
pgpid=$(head -1 "$work/pg/postmaster.pid")
echo "ssh2048 on 127.0.0.1:$port (nodes $node1 $node2, PostgreSQL 127.0.0.1:$pgport, metrics $metrics1 $metrics2; logs in $work)"
echo "pids: node1 ${pids[0]}, node2 ${pids[1]}, PostgreSQL $pgpid, HAProxy ${pids[2]} (for ssh2048 load --server-pid)"
wait -n "${pids[@]}" || true
echo "a process stopped; shutting down. The logs' last lines:" >&2
for log in "$work"/node1.log "$work"/node2.log "$work"/haproxy.log "$work"/pg.log; do
  tail -n 5 "$log" 2>/dev/null | sed "s|^|$(basename "$log"): |" >&2
done
