#!/usr/bin/env bash
# Cluster test (docs/scaling.md, docs/testing.md#cluster-test): three
# `folio serve` processes on one fresh PostgreSQL database and one storage
# (CLUSTER_STORAGE=s3, the default: one bucket on versitygw; local: one
# shared folder)
# behind Debian's nginx, round robin. Then:
#  a. `folio-bench cluster`, a mixed workload of several clients, each
#     write followed by a read that must see it: zero violations;
#  b. the same workload on one process, for the throughput ratio
#     (printed, never a threshold);
#  c. uploads from several clients, one process killed with SIGKILL in the
#     middle; the clients retry on the others. Every acknowledged upload
#     must be there once with its MD5, and `folio fsck` must find no
#     orphan, no missing bytes and no wrong count: at once beside the
#     survivors, and with nothing pending at all once the dead process's
#     work is settled by the janitor of a process that starts afterwards.
# Installs nothing (.ci/run installs nginx); needs PostgreSQL on
# 127.0.0.1:5432 (PGHOST/PGPORT/PGUSER to change it).
set -euo pipefail
cd "$(dirname "$0")/.."

storage=${CLUSTER_STORAGE:-s3}
seconds=${CLUSTER_SECONDS:-12}
clients=${CLUSTER_CLIENTS:-8}
work=$(mktemp -d)
db="folio_cluster_$(date +%s)_$$"
export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-postgres}
pids=() nginx_pid="" s3_pid="" db_made=""
failed=1

cleanup() {
  local pid
  for pid in "${pids[@]}" $nginx_pid $s3_pid; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}" $nginx_pid $s3_pid; do
    wait "$pid" 2>/dev/null || true
  done
  if [ "$failed" = 1 ]; then
    show_logs "$work"/folio-*.log "$work"/nginx/error.log
  fi
  [ -n "$db_made" ] && dropdb --if-exists "$db" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "cluster-test: FAIL: $*" >&2; exit 1; }
. scripts/lib.sh

command -v nginx >/dev/null 2>&1 || fail "nginx is missing (apt-get install nginx; .ci/run installs it)"
pg_isready -q || fail "PostgreSQL at $PGHOST:$PGPORT does not answer"

build_folio "$work/folio"
go build -buildvcs=false -o "$work/folio-bench" ./cmd/folio-bench

createdb "$db" && db_made=1
password="cluster-test-password"
hash=$(printf '%s\n' "$password" | "$work/folio" hash-password)

# Every process gets the same settings: one database, one storage, one
# administrator and one signing secret (docs/scaling.md).
settings=(
  FOLIO_DATABASE_DRIVER=postgres
  FOLIO_DATABASE_DSN="postgres://$PGUSER@$PGHOST:$PGPORT/$db?sslmode=disable"
  FOLIO_ADMIN_USERNAME=admin
  FOLIO_ADMIN_PASSWORD_HASH="$hash"
  FOLIO_ADMIN_SESSION_SECRET="cluster-test-secret-$(date +%s%N)"
  FOLIO_RENDER_RENDER_MODE=classic
)
case "$storage" in
  local)
    mkdir -p "$work/files"
    settings+=(FOLIO_STORAGE_DIR="$work/files") ;;
  s3)
    start_s3 "$work"
    s3_bucket folio
    settings+=(
      FOLIO_STORAGE_DRIVER=s3
      FOLIO_STORAGE_S3_ENDPOINT="$FOLIO_TEST_S3_ENDPOINT"
      FOLIO_STORAGE_S3_BUCKET=folio
      FOLIO_STORAGE_S3_REGION=us-east-1
      FOLIO_STORAGE_S3_ACCESS_KEY="$FOLIO_TEST_S3_ACCESS_KEY"
      FOLIO_STORAGE_S3_SECRET_KEY="$FOLIO_TEST_S3_SECRET_KEY"
      FOLIO_STORAGE_S3_PATH_STYLE=true
    ) ;;
  *) fail "CLUSTER_STORAGE=$storage: want local or s3" ;;
esac

# start N [ADDR]: starts process N (on ADDR, or a free port), log
# folio-N.log, or folio-N-again.log when it ran before.
addrs=()
start() {
  local n=$1 log="$work/folio-$1.log"
  [ -e "$log" ] && log="$work/folio-$1-again.log"
  echo "== start folio $n"
  folio_log=$log start_folio "$work" "${settings[@]}" FOLIO_SERVER_ADDR="${2:-127.0.0.1:0}"
  pids[$n]=$server_pid
  addrs[$n]=${base#http://}
}
start 1
start 2
start 3

# One nginx, two sites: round robin over the three processes, and one
# process alone for the comparison. Requests that did not reach a process
# (connection refused) or whose process died before answering a GET go
# to the next; a POST that was sent is never sent twice by nginx (the
# client decides, folio-bench retries an upload only when its name is not
# there).
mkdir -p "$work/nginx"
port3=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
port1=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$work/nginx/nginx.conf" <<EOF
worker_processes 2;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $work/nginx/body;
  proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fastcgi;
  uwsgi_temp_path $work/nginx/uwsgi;
  scgi_temp_path $work/nginx/scgi;
  client_max_body_size 0;
  upstream folio_all {
    server ${addrs[1]};
    server ${addrs[2]};
    server ${addrs[3]};
    keepalive 32;
  }
  upstream folio_one {
    server ${addrs[1]};
    keepalive 32;
  }
  server {
    listen 127.0.0.1:$port3;
    location / {
      proxy_pass http://folio_all;
      include $work/nginx/proxy.conf;
    }
  }
  server {
    listen 127.0.0.1:$port1;
    location / {
      proxy_pass http://folio_one;
      include $work/nginx/proxy.conf;
    }
  }
}
EOF
cat >"$work/nginx/proxy.conf" <<'EOF'
proxy_http_version 1.1;
proxy_set_header Connection "";
proxy_set_header Host $http_host;
proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
proxy_set_header X-Forwarded-Proto $scheme;
proxy_request_buffering off;
proxy_buffering off;
proxy_next_upstream error timeout http_502;
proxy_next_upstream_tries 3;
EOF
nginx -t -q -p "$work/nginx" -e "$work/nginx/error.log" -c "$work/nginx/nginx.conf" ||
  fail "nginx refused the configuration"
nginx -p "$work/nginx" -e "$work/nginx/error.log" -c "$work/nginx/nginx.conf" -g 'daemon off;' &
nginx_pid=$!
for _ in $(seq 1 50); do
  curl -sf -o /dev/null "http://127.0.0.1:$port3/api/v1/health" && break
  sleep 0.1
done
curl -sf -o /dev/null "http://127.0.0.1:$port3/api/v1/health" || fail "nginx does not answer"
echo "   nginx on 127.0.0.1:$port3 (three processes) and 127.0.0.1:$port1 (one)"

bench() { "$work/folio-bench" cluster -admin "admin:$password" -clients "$clients" "$@"; }
ops() { python3 -c 'import json,sys; print("%.1f" % json.load(open(sys.argv[1]))["ops_per_second"])' "$1"; }

echo "== a. mixed workload, three processes, ${seconds}s"
bench -url "http://127.0.0.1:$port3" -duration "${seconds}s" -report "$work/three.json" ||
  { fail "the mixed workload on three processes saw violations"; }
echo "== b. the same workload, one process, ${seconds}s"
bench -url "http://127.0.0.1:$port1" -duration "${seconds}s" -report "$work/one.json" ||
  { fail "the mixed workload on one process saw violations"; }
three=$(ops "$work/three.json") one=$(ops "$work/one.json")
echo "   throughput: 1 process $one ops/s, 3 processes $three ops/s, ratio $(python3 -c "print('%.2f' % ($three / $one))") (informational)"

echo "== c. uploads, SIGKILL of folio 2 in the middle"
# Every eighth upload is 12 MiB, more than one part of the S3 store's
# multipart upload, so that the kill can land inside one.
bench -url "http://127.0.0.1:$port3" -duration 8s -mix upload -large $((12 << 20)) -report "$work/kill.json" >"$work/kill.txt" &
bench_pid=$!
sleep 3
kill -9 "${pids[2]}"
wait "${pids[2]}" 2>/dev/null || true
echo "   killed folio 2 (pid ${pids[2]})"
unset 'pids[2]'
wait "$bench_pid" || { cat "$work/kill.txt"; fail "uploads across the kill saw violations"; }
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("   %d uploads acknowledged and verified, %d requests retried" % (r["verified_uploads"], r["retries"]))' "$work/kill.json"

# fsck_check MODE: folio fsck -json against the shared database and
# storage; MODE beside: the survivors still run, so the dead process's
# intents and temporary uploads may wait for a janitor, but nothing may
# be orphaned, missing or miscounted; MODE settled: nothing at all.
fsck_check() {
  local out rc=0
  folio_unset
  out=$(env "${unset_folio[@]}" "${settings[@]}" "$work/folio" fsck -json 2>"$work/fsck.err") || rc=$?
  python3 - "$1" "$out" <<'EOF' || { cat "$work/fsck.err" >&2; fail "folio fsck ($1) found problems (exit $rc)"; }
import json, sys
mode, rep = sys.argv[1], json.loads(sys.argv[2])
keys = ["orphans", "missing", "ref_count_errors", "usage_errors"]
if mode == "settled":
    keys += ["intents", "temps", "remaining"]
bad = {k: rep[k] for k in keys if rep[k]}
print("   fsck (%s): %d objects, %d stored keys, %d pending of dead processes, %s" % (
    mode, rep["objects"], rep["stored_keys"], rep["intents"] + rep["temps"], bad or "nothing wrong"))
sys.exit(1 if bad else 0)
EOF
}
fsck_check beside

# The janitor takes over a dead holder's lease at once, but a live
# survivor may hold it and would settle the dead process's work only at
# its next pass (docs/filehost.md#crash-consistency). Stopping the
# survivors cleanly releases the lease, and a process started afterwards
# runs a janitor pass before it reports ready: the settled state is then
# reached deterministically.
for n in 1 3; do
  kill -TERM "${pids[$n]}"
  wait "${pids[$n]}" 2>/dev/null || true
  unset "pids[$n]"
done
start 2
grep -h "janitor" "$work"/folio-2-again.log | sed 's/^/   /' || true
fsck_check settled

failed=0
echo "== cluster test passed"
