#!/usr/bin/env bash
# Runs docs/performance.md's "More cores" table: for each RUN, a fresh
# server on a fresh SQLite directory pinned to the first CORES cores, and
# `ssh2048 load` on the other cores, then one summary line a run.
#
#   deploy/scale.sh BINDIR RUN...          # RUN is NAME:CORES:SESSIONS[:SERVE_FLAGS]
#   deploy/scale.sh /tmp/bins main:2:2000 base:2:2000 main:8:10000
#
# BINDIR holds one ssh2048 binary per NAME (static builds travel best:
# CGO_ENABLED=1 go build -tags 'sqlite_omit_load_extension osusergo netgo'
# -ldflags '-s -w -extldflags "-static"' ./cmd/ssh2048). The load client is
# BINDIR/$LOADBIN (default: the run's own). DUR (default 20s) is the play
# time; OUT (default /tmp/scale) gets summary.txt and each run's JSON.
# Needs taskset and python3; run as root for the port range below.
set -uo pipefail
bindir=$1; shift
out=${OUT:-/tmp/scale}; mkdir -p "$out"
ncpu=$(nproc)
sysctl -qw net.ipv4.ip_local_port_range="1024 65000" 2>/dev/null || true
port=600 # below the load client's ephemeral ports
echo "machine: $ncpu cpus, $(uname -r), play ${DUR:-20s}" | tee -a "$out/summary.txt"
for run in "$@"; do
	IFS=: read -r name cores sessions flags <<<"$run"
	port=$((port + 1))
	data=$(mktemp -d)
	# shellcheck disable=SC2086 # flags are words
	taskset -c "0-$((cores - 1))" "$bindir/$name" serve --data "$data" --listen 127.0.0.1:$port \
		--conn-rate-per-ip 0 --max-unauth-per-ip 0 --max-conns-per-ip 0 --max-conns-per-56 0 \
		--max-conns $((sessions * 2 + 1000)) --log-level warn ${flags:-} >"$data/serve.log" 2>&1 &
	server=$!
	for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
	json=$out/$name-$cores-$sessions.json
	taskset -c "$cores-$((ncpu - 1))" "$bindir/${LOADBIN:-$name}" load --addr 127.0.0.1:$port \
		--sessions "$sessions" --rate 2 --duration "${DUR:-20s}" --handshakes 16 --server-pid $server \
		--connect-timeout 30s --frame-timeout 2s --json >"$json" 2>"$data/load.err"
	kill $server; wait $server 2>/dev/null
	python3 - "$json" "$run" <<'PY' | tee -a "$out/summary.txt"
import json, sys
path, run = sys.argv[1:]
try:
    j = json.load(open(path))
except ValueError as e:
    sys.exit(f"{run}: no report ({e})")
l, st, sv, k, v = j["latency"], j["steady"], j["server"], j["keys"], j["verify"]
print(f"{run}: p50 {l['p50_ms']:.1f} p99 {l['p99_ms']:.1f} after the ramp {st['p99_ms']:.1f} ms | "
      f"answered {k['answered']} of {k['sent']} | cpu {sv['cpu_s']} s, ramp {sv['ramp_cpu_s']} s, "
      f"{sv['cpu_us_per_key']:.0f} us a key | rss {sv['peak_rss_kb'] // 1000} MB | "
      f"errors {j['errors']} | verify exact {v.get('exact')} of {v.get('players')}")
PY
	tail -3 "$data/load.err" | sed 's/^/  load: /'
	rm -rf "$data"
done
