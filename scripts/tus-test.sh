#!/usr/bin/env bash
# tus client test (docs/testing.md#tus-client-test): real tus clients that
# nobody on the team wrote, and the console's own, against Folio's
# resumable uploads (docs/filehost.md#resumable-uploads-tus,
# docs/console.md#resumable-uploads).
# For each storage, local (one folder) and S3 (one bucket on versitygw),
# two `folio serve` processes share one fresh PostgreSQL database and the
# storage, and scripts/tus/clients.mjs runs:
#  a. tus-js-client (Node), 50 MB in 5 MiB chunks through a TCP proxy that
#     cuts the connection once after ~20 MB: it resumes by itself;
#  b. tus-js-client starts 50 MB on process A, stops after ~40%, and a new
#     client continues the same upload on process B;
#  c. Uppy's Tus plugin in Chromium, signed in on a console page, 10 MB
#     with the session cookie;
#  d. (local only) the console's upload page in Chromium: 40 MB, the page
#     reloaded midway, the file chosen again, the upload continues from
#     the server's offset.
# Every upload's MD5, as the server reports it and as its link serves it,
# must be the source's; afterwards `folio fsck` must find no orphan, no
# missing bytes and no wrong count.
# Needs node and npm (installs scripts/tus's packages from their lock
# file), Chromium at /usr/bin/chromium, and PostgreSQL on 127.0.0.1:5432
# (PGHOST/PGPORT/PGUSER to change it). TUS_STORAGE=local or s3 runs one.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-postgres}
pids=() dbs=() s3_pid=""
failed=1

cleanup() {
  local pid db
  for pid in "${pids[@]}" $s3_pid; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}" $s3_pid; do wait "$pid" 2>/dev/null || true; done
  if [ "$failed" = 1 ]; then
    show_logs "$work"/folio-*.log "$work/s3.log"
  fi
  for db in "${dbs[@]}"; do dropdb --if-exists "$db" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "tus-test: FAIL: $*" >&2; exit 1; }
. scripts/lib.sh

command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || fail "node and npm are required"
[ -x /usr/bin/chromium ] || fail "chromium is missing (apt-get install chromium; .ci/run installs it)"
pg_isready -q || fail "PostgreSQL at $PGHOST:$PGPORT does not answer"

npm_install scripts/tus

build_folio "$work/folio"

password="tus-test-password"
hash=$(printf '%s\n' "$password" | "$work/folio" hash-password)

# round STORAGE STEPS: two processes on a fresh database and the storage,
# the client steps, fsck, and both processes stopped.
round() {
  local storage=$1 steps=$2 db="folio_tus_${1}_$(date +%s)_$$" n out rc=0
  createdb "$db"
  dbs+=("$db")
  settings=(
    FOLIO_DATABASE_DRIVER=postgres
    FOLIO_DATABASE_DSN="postgres://$PGUSER@$PGHOST:$PGPORT/$db?sslmode=disable"
    FOLIO_ADMIN_USERNAME=admin
    FOLIO_ADMIN_PASSWORD_HASH="$hash"
    FOLIO_ADMIN_SESSION_SECRET="tus-test-secret-$(date +%s%N)"
  )
  case "$storage" in
    local)
      mkdir -p "$work/files-local"
      settings+=(FOLIO_STORAGE_DIR="$work/files-local") ;;
    s3)
      [ -n "$s3_pid" ] || { start_s3 "$work"; s3_bucket folio; }
      settings+=(
        FOLIO_STORAGE_DRIVER=s3
        FOLIO_STORAGE_S3_ENDPOINT="$FOLIO_TEST_S3_ENDPOINT"
        FOLIO_STORAGE_S3_BUCKET=folio
        FOLIO_STORAGE_S3_REGION=us-east-1
        FOLIO_STORAGE_S3_ACCESS_KEY="$FOLIO_TEST_S3_ACCESS_KEY"
        FOLIO_STORAGE_S3_SECRET_KEY="$FOLIO_TEST_S3_SECRET_KEY"
        FOLIO_STORAGE_S3_PATH_STYLE=true
      ) ;;
  esac
  local bases=()
  for n in a b; do
    echo "== start folio $n ($storage storage, PostgreSQL $db)"
    folio_log="$work/folio-$storage-$n.log" start_folio "$work" "${settings[@]}"
    pids+=("$server_pid")
    bases+=("$base")
  done
  echo "== tus clients ($storage storage): steps $steps"
  BASE=${bases[0]} BASE_B=${bases[1]} USERNAME=admin PASSWORD=$password WORK="$work" STEPS=$steps \
    node scripts/tus/clients.mjs || fail "the tus clients failed on $storage storage"

  folio_unset
  out=$(env "${unset_folio[@]}" "${settings[@]}" FOLIO_STORAGE_DIR="$work/files-local" "$work/folio" fsck -json 2>"$work/fsck.err") || rc=$?
  python3 - "$out" <<'EOF' || { cat "$work/fsck.err" >&2; fail "folio fsck found problems on $storage storage (exit $rc)"; }
import json, sys
rep = json.loads(sys.argv[1])
bad = {k: rep[k] for k in ["orphans", "missing", "ref_count_errors", "usage_errors"] if rep[k]}
print("   fsck: %d objects, %d stored keys, %s" % (rep["objects"], rep["stored_keys"], bad or "nothing wrong"))
sys.exit(1 if bad else 0)
EOF
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  pids=()
}

case "${TUS_STORAGE:-both}" in
  local) round local a,b,c,d ;;
  s3) round s3 a,b,c ;;
  both) round local a,b,c,d; round s3 a,b,c ;;
  *) fail "TUS_STORAGE=$TUS_STORAGE: want local, s3 or both" ;;
esac

failed=0
echo "== tus client test passed"
