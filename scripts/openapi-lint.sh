#!/usr/bin/env bash
# OpenAPI lint: builds Folio, starts it on a free loopback port with a
# throwaway SQLite database, fetches the document it serves at
# /api/v1/openapi.json and lints it with Redocly CLI (pinned in
# scripts/openapi/package.json), an independent validator: any finding,
# warning or error, fails. Rules and the few findings it is told to ignore,
# each with its reason: scripts/openapi/redocly.yaml and
# scripts/openapi/.redocly.lint-ignore.yaml. See docs/api.md#openapi.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

work=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "openapi-lint: FAIL: $*" >&2; exit 1; }
. scripts/lib.sh

command -v curl >/dev/null 2>&1 || fail "curl is required"
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || fail "node and npm are required"

npm_install scripts/openapi

build_folio "$work/folio"

echo "== start folio"
# The console is on by default, so its pages are in the document too.
start_folio "$work" \
  FOLIO_ADMIN_PASSWORD_HASH='$2a$04$4B11UBzAQxJbnuHzHjN7je.O4CN5hPcRUiDxLed0U1P.3ESY6db5W'

echo "== fetch $base/api/v1/openapi.json"
# The linter reads its rules and ignore file from the folder of its
# configuration, and the ignore file names the document relative to it.
cp scripts/openapi/redocly.yaml scripts/openapi/.redocly.lint-ignore.yaml "$work/"
status=$(curl -sS -o "$work/openapi.json" -w '%{http_code}' "$base/api/v1/openapi.json") ||
  fail "curl failed"
[ "$status" = 200 ] || fail "GET /api/v1/openapi.json: HTTP $status"

echo "== redocly lint"
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
(cd "$work" && "$root/scripts/openapi/node_modules/.bin/redocly" lint --config redocly.yaml --format=stylish openapi.json) ||
  fail "redocly lint found problems"
echo "openapi-lint: OK"
