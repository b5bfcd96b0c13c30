#!/usr/bin/env bash
# Federation interop test (docs/testing.md#federation-interop-test): Folio
# against Fedify (scripts/federation/interop.mjs), an ActivityPub server
# framework nobody on the team wrote, both on loopback.
#  a. one Folio process on SQLite behind Debian's nginx with a throwaway
#     TLS certificate (so that Fedify's WebFinger client, which asks https
#     for acct: handles, finds the blog by its handle; FEDERATION_TLS=off
#     runs on plain http and finds it by the actor's URL): Fedify's actor
#     finds the blog, follows it, receives and verifies the signed Accept, Create, Update and
#     Delete of a post, replies (the reply waits in the console's queue and
#     shows on the post once approved), likes and boosts (counted in the
#     console) and undoes its follow; every activity arrives once;
#  b. the same on PostgreSQL with two Folio processes sharing one fresh
#     database (the site URL is the first one's; the administrator writes
#     through the second): each activity must still arrive exactly once.
# Needs node and npm (installs scripts/federation's packages from their
# lock file), nginx and openssl (.ci/run installs nginx), and PostgreSQL on 127.0.0.1:5432 (PGHOST/PGPORT/PGUSER to
# change it; FEDERATION_POSTGRES=off skips b).
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
db="folio_federation_$(date +%s)_$$"
export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-postgres}
pids=() db_made=""
failed=1

cleanup() {
  local pid f
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ "$failed" = 1 ]; then
    show_logs "$work"/folio-*.log "$work/nginx/error.log"
  fi
  [ -n "$db_made" ] && dropdb --if-exists "$db" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "federation-test: FAIL: $*" >&2; exit 1; }
. scripts/lib.sh

command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || fail "node and npm are required"
npm_install scripts/federation

build_folio "$work/folio"

password="federation-test-password"
hash=$(printf '%s\n' "$password" | "$work/folio" hash-password)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Every process: federation on, the site URL fixed (the actor's IRIs are
# built from it), loopback and plain http allowed for Fedify's server.
common=(
  FOLIO_ADMIN_USERNAME=admin
  FOLIO_ADMIN_PASSWORD_HASH="$hash"
  FOLIO_ADMIN_SESSION_SECRET="federation-test-secret-$(date +%s%N)"
  FOLIO_RENDER_RENDER_MODE=classic
  FOLIO_FEDERATION_ENABLED=true
  FOLIO_FEDERATION_ALLOW_PRIVATE_ADDRESSES=127.0.0.1,::1
  FOLIO_FEDERATION_ALLOW_HTTP=true
)

# interop ...: runs the Fedify side with the given environment.
interop() {
  env "$@" ADMIN_USER=admin ADMIN_PASSWORD="$password" \
    timeout 120 node scripts/federation/interop.mjs
}

# start N ADDR [NAME=VALUE...]: starts process N on ADDR, log folio-N.log.
start() {
  local n=$1 addr=$2
  shift 2
  echo "== start folio $n"
  folio_log="$work/folio-$n.log" start_folio "$work" "${common[@]}" FOLIO_SERVER_ADDR="$addr" "$@"
  pids[$n]=$server_pid
}

# tls PORT UPSTREAM: nginx on 127.0.0.1:PORT with a throwaway certificate
# for the address 127.0.0.1, in front of UPSTREAM (host:port), so that
# Fedify may look the blog up by its acct: handle (its WebFinger client
# asks https for those); node trusts the certificate through
# NODE_EXTRA_CA_CERTS.
tls() {
  local port=$1 upstream=$2
  mkdir -p "$work/nginx"
  openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 \
    -addext subjectAltName=IP:127.0.0.1 -keyout "$work/nginx/key.pem" -out "$work/nginx/cert.pem" 2>/dev/null ||
    fail "openssl could not make a test certificate"
  cat >"$work/nginx/nginx.conf" <<EOF
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $work/nginx/body;
  proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fastcgi;
  uwsgi_temp_path $work/nginx/uwsgi;
  scgi_temp_path $work/nginx/scgi;
  server {
    listen 127.0.0.1:$port ssl;
    ssl_certificate $work/nginx/cert.pem;
    ssl_certificate_key $work/nginx/key.pem;
    location / {
      proxy_pass http://$upstream;
      proxy_http_version 1.1;
      proxy_set_header Host \$http_host;
      proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto https;
    }
  }
}
EOF
  nginx -t -q -p "$work/nginx" -e "$work/nginx/error.log" -c "$work/nginx/nginx.conf" ||
    fail "nginx refused the configuration"
  nginx -p "$work/nginx" -e "$work/nginx/error.log" -c "$work/nginx/nginx.conf" -g 'daemon off;' &
  pids[9]=$!
  for _ in $(seq 1 50); do
    curl -sf --cacert "$work/nginx/cert.pem" -o /dev/null "https://127.0.0.1:$port/api/v1/health" && break
    sleep 0.1
  done
  curl -sf --cacert "$work/nginx/cert.pem" -o /dev/null "https://127.0.0.1:$port/api/v1/health" ||
    fail "nginx does not answer on https://127.0.0.1:$port"
  echo "   nginx (TLS) on https://127.0.0.1:$port"
}

port=$(free_port)
if [ "${FEDERATION_TLS:-on}" = off ]; then
  echo "== a. one process, SQLite (plain http: FEDERATION_TLS=off)"
  site="http://127.0.0.1:$port"
  start 1 "127.0.0.1:$port" FOLIO_SITE_SITE_URL="$site"
  interop BASE="$site" || fail "the interop scenario on SQLite failed (above)"
else
  echo "== a. one process, SQLite, behind nginx with TLS"
  command -v nginx >/dev/null 2>&1 ||
    fail "nginx is missing (apt-get install nginx; .ci/run installs it; FEDERATION_TLS=off runs without)"
  tls_port=$(free_port)
  site="https://127.0.0.1:$tls_port"
  start 1 "127.0.0.1:$port" FOLIO_SITE_SITE_URL="$site"
  tls "$tls_port" "127.0.0.1:$port"
  interop BASE="$site" NODE_EXTRA_CA_CERTS="$work/nginx/cert.pem" FEDIFY_WEBFINGER=1 ||
    fail "the interop scenario on SQLite failed (above)"
  kill -TERM "${pids[9]}" && wait "${pids[9]}" 2>/dev/null || true
  unset 'pids[9]'
fi
kill -TERM "${pids[1]}" && wait "${pids[1]}" 2>/dev/null || true
unset 'pids[1]'

if [ "${FEDERATION_POSTGRES:-on}" = off ]; then
  echo "== b. skipped (FEDERATION_POSTGRES=off)"
else
  echo "== b. two processes, one PostgreSQL database ($db)"
  pg_isready -q || fail "PostgreSQL at $PGHOST:$PGPORT does not answer"
  createdb "$db" && db_made=1
  mkdir -p "$work/pg-files"
  pg=(
    FOLIO_DATABASE_DRIVER=postgres
    FOLIO_DATABASE_DSN="postgres://$PGUSER@$PGHOST:$PGPORT/$db?sslmode=disable"
    FOLIO_STORAGE_DIR="$work/pg-files"
  )
  port=$(free_port)
  site="http://127.0.0.1:$port"
  start 2 "127.0.0.1:$port" FOLIO_SITE_SITE_URL="$site" "${pg[@]}"
  start 3 127.0.0.1:0 FOLIO_SITE_SITE_URL="$site" "${pg[@]}"
  interop BASE="$site" BASE2="$base" || fail "the interop scenario on two processes and PostgreSQL failed (above)"
fi

failed=0
echo "== federation test passed"
