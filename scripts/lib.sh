# Shell functions shared by the scripts that start Folio for a test
# (browser-test.sh, openapi-lint.sh, cluster-test.sh, federation-test.sh). Source it after defining fail().

# npm_install DIR: installs DIR's packages from its committed lock file,
# again only when the lock file changed since the last install.
npm_install() {
  local dir=$1
  if ! cmp -s "$dir/package-lock.json" "$dir/node_modules/.folio-lock.json"; then
    echo "== npm ci ($dir)"
    npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error >/dev/null ||
      fail "npm ci in $dir failed"
    cp "$dir/package-lock.json" "$dir/node_modules/.folio-lock.json"
  fi
}

# build_folio DEST: puts a folio binary of this tree at DEST. .ci/run builds
# it once and names it in CI_FOLIO_BIN (not FOLIO_*: Folio refuses unknown
# FOLIO_* variables), so that its scripts copy it instead of linking the
# same binary again each; run by hand, a script builds its own.
build_folio() {
  if [ -n "${CI_FOLIO_BIN:-}" ]; then
    cp "$CI_FOLIO_BIN" "$1" || fail "copying $CI_FOLIO_BIN failed"
  else
    echo "== build"
    go build -buildvcs=false -o "$1" ./cmd/folio || fail "building folio failed"
  fi
}

# show_logs FILE...: prints each non-empty log for a failed run: every
# warning, error and 5xx first (a failure in the middle of a long run
# scrolls out of the tail; Folio's say why a request or a job failed),
# then the last lines (what it was doing last).
show_logs() {
  local f
  for f in "$@"; do
    [ -s "$f" ] || continue
    echo "---- $f (warnings and errors, at most 60)" >&2
    grep -E 'level=(WARN|ERROR)| status=5[0-9][0-9] |\[(error|crit|alert|emerg)\]' "$f" | head -n 60 >&2 || true
    echo "---- $f (last 40 lines)" >&2
    tail -n 40 "$f" >&2
  done
}

# folio_unset: sets unset_folio to env's -u options for every FOLIO_*
# variable of the environment. Folio refuses unknown FOLIO_* variables, so
# none from the caller's (FOLIO_TEST_POSTGRES_DSN, FOLIO_TEST_S3_ENDPOINT,
# say) may leak into a folio command: run it as
# env "${unset_folio[@]}" FOLIO_...=... folio ...
folio_unset() {
  local name
  unset_folio=()
  for name in $(env | sed -n 's/^\(FOLIO_[A-Za-z0-9_]*\)=.*/\1/p'); do unset_folio+=(-u "$name"); done
}

# start_folio WORK [NAME=VALUE...]: starts WORK/folio serve on a free
# loopback port, with a throwaway SQLite database and storage folder in
# WORK and the given FOLIO_* settings (which win over those defaults:
# FOLIO_DATABASE_DRIVER=postgres FOLIO_DATABASE_DSN=... for PostgreSQL,
# FOLIO_SERVER_ADDR to keep a port), and waits until it is ready. Sets
# server_pid and base (http://127.0.0.1:PORT); the log is
# $folio_log, WORK/server.log unless set.
start_folio() {
  local work=$1 addr="" log=${folio_log:-$1/server.log}
  shift
  folio_unset
  env "${unset_folio[@]}" \
    FOLIO_SERVER_ADDR=127.0.0.1:0 \
    FOLIO_DATABASE_DRIVER=sqlite \
    FOLIO_DATABASE_DSN="$work/folio.db" \
    FOLIO_STORAGE_DIR="$work/files" \
    "$@" \
    "$work/folio" serve >"$log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 100); do
    addr=$(sed -n 's/.*msg=ready addr=\([^ ]*\).*/\1/p' "$log" | head -n1)
    [ -n "$addr" ] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$log" >&2; fail "folio exited during start-up"; }
    sleep 0.1
  done
  [ -n "$addr" ] || { cat "$log" >&2; fail "folio did not report ready"; }
  base="http://$addr"
  echo "   listening on $base"
}

# start_s3 WORK: starts a real S3 server for the tests, versitygw with its
# posix backend on WORK/s3, on a free loopback port, and waits until it
# answers. It is run with `go run` at a pinned version so that it stays out
# of Folio's go.mod (docs/testing.md#s3). Exports FOLIO_TEST_S3_ENDPOINT,
# FOLIO_TEST_S3_ACCESS_KEY and FOLIO_TEST_S3_SECRET_KEY, which the test
# helpers read, and sets s3_pid; the log is WORK/s3.log.
start_s3() {
  local work=$1 port
  mkdir -p "$work/s3"
  # Build first, so that the wait below times the server, not the compiler.
  GOFLAGS= GOBIN="$work" go install github.com/versity/versitygw/cmd/versitygw@v1.8.0 2>"$work/s3.log" ||
    { cat "$work/s3.log" >&2; fail "versitygw could not be built"; }
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  export FOLIO_TEST_S3_ACCESS_KEY=folio-test FOLIO_TEST_S3_SECRET_KEY=folio-test-secret-key
  ROOT_ACCESS_KEY=$FOLIO_TEST_S3_ACCESS_KEY ROOT_SECRET_KEY=$FOLIO_TEST_S3_SECRET_KEY \
    "$work/versitygw" --port "127.0.0.1:$port" --quiet posix "$work/s3" >>"$work/s3.log" 2>&1 &
  s3_pid=$!
  export FOLIO_TEST_S3_ENDPOINT="http://127.0.0.1:$port"
  for _ in $(seq 1 100); do
    curl -s -o /dev/null "$FOLIO_TEST_S3_ENDPOINT/" && break
    kill -0 "$s3_pid" 2>/dev/null || { cat "$work/s3.log" >&2; fail "versitygw exited during start-up"; }
    sleep 0.1
  done
  curl -s -o /dev/null "$FOLIO_TEST_S3_ENDPOINT/" || { cat "$work/s3.log" >&2; fail "versitygw did not answer"; }
  echo "   S3 (versitygw) on $FOLIO_TEST_S3_ENDPOINT"
}

# s3_bucket NAME: creates the bucket NAME on the server start_s3 started.
s3_bucket() {
  curl -sf -X PUT --aws-sigv4 "aws:amz:us-east-1:s3" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" \
    --user "$FOLIO_TEST_S3_ACCESS_KEY:$FOLIO_TEST_S3_SECRET_KEY" \
    "$FOLIO_TEST_S3_ENDPOINT/$1" >/dev/null || fail "could not create bucket $1"
}

# api METHOD PATH [JSON]: a JSON request to the Folio at $base with the
# cookies of $work/cookies (signed in by an earlier call); prints the body,
# fails on a non-2xx status.
api() {
  local out status
  out=$(curl -sS -b "$work/cookies" -c "$work/cookies" -H "Origin: $base" \
    -H 'Content-Type: application/json' -X "$1" ${3:+--data "$3"} \
    -w '\n%{http_code}' "$base$2") || fail "$1 $2: curl failed"
  status=${out##*$'\n'}
  out=${out%$'\n'*}
  case "$status" in 2??) ;; *) fail "$1 $2: HTTP $status: $out" ;; esac
  printf '%s' "$out"
}
