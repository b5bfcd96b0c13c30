# Shell functions shared by the scripts that start Folio for a test
# (browser-test.sh, openapi-lint.sh). Source it after defining fail().

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

# start_folio WORK [NAME=VALUE...]: starts WORK/folio serve on a free
# loopback port, with a throwaway SQLite database and storage folder in
# WORK and the given FOLIO_* settings, and waits until it is ready. Sets
# server_pid and base (http://127.0.0.1:PORT); the log is WORK/server.log.
start_folio() {
  local work=$1 name addr=""
  shift
  # Folio refuses unknown FOLIO_* variables, so none from the caller's
  # environment (FOLIO_TEST_POSTGRES_DSN, say) may leak in.
  local unset_folio=()
  for name in $(env | sed -n 's/^\(FOLIO_[A-Za-z0-9_]*\)=.*/\1/p'); do unset_folio+=(-u "$name"); done
  env "${unset_folio[@]}" \
    FOLIO_SERVER_ADDR=127.0.0.1:0 \
    FOLIO_DATABASE_DRIVER=sqlite \
    FOLIO_DATABASE_DSN="$work/folio.db" \
    FOLIO_STORAGE_DIR="$work/files" \
    "$@" \
    "$work/folio" serve >"$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 100); do
    addr=$(sed -n 's/.*msg=ready addr=\([^ ]*\).*/\1/p' "$work/server.log" | head -n1)
    [ -n "$addr" ] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; fail "folio exited during start-up"; }
    sleep 0.1
  done
  [ -n "$addr" ] || { cat "$work/server.log" >&2; fail "folio did not report ready"; }
  base="http://$addr"
  echo "   listening on $base"
}
