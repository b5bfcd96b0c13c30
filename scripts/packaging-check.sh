#!/usr/bin/env bash
# Packaging checks: the systemd unit passes `systemd-analyze verify` with no
# finding at all and scores well in `systemd-analyze security`, and the man
# page is clean under `mandoc -Tlint`. Any output of verify or lint is a
# failure: both may print a finding and still exit 0. Installs mandoc and
# systemd (the Debian packages) when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."

unit=contrib/systemd/folio.service
page=contrib/man/folio.1
# systemd-analyze's exposure scale times ten: 49 is the top of "OK". The
# unit scores 1.1; fail well before OK runs out, so that a loosened
# setting shows.
threshold=20

fail() { echo "packaging-check: FAIL: $*" >&2; exit 1; }

missing=()
command -v mandoc >/dev/null 2>&1 || missing+=(mandoc)
command -v systemd-analyze >/dev/null 2>&1 || missing+=(systemd)
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq "${missing[@]}" >/dev/null ||
    fail "${missing[*]} missing and could not be installed"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== mandoc -Tlint $page"
out=$(mandoc -Tlint -Wwarning "$page" 2>&1) || true
[ -z "$out" ] || fail "mandoc -Tlint:"$'\n'"$out"

echo "== systemd-analyze verify $unit"
# verify wants ExecStart's binary and the Documentation= man page to exist:
# a freshly built folio stands in for /usr/bin/folio, and the page is put
# where man(1) finds it.
# .ci/run builds one binary for all its scripts (CI_FOLIO_BIN, scripts/lib.sh).
if [ -n "${CI_FOLIO_BIN:-}" ]; then
  cp "$CI_FOLIO_BIN" "$work/folio" || fail "copying $CI_FOLIO_BIN failed"
else
  go build -o "$work/folio" ./cmd/folio
fi
mkdir -p "$work/man/man1" "$work/unit"
cp "$page" "$work/man/man1/folio.1"
sed "s#^ExecStart=/usr/bin/folio #ExecStart=$work/folio #" "$unit" >"$work/unit/folio.service"
grep -q "^ExecStart=$work/folio " "$work/unit/folio.service" || fail "ExecStart of $unit does not run /usr/bin/folio"
out=$(MANPATH="$work/man" systemd-analyze verify "$work/unit/folio.service" 2>&1) || fail "systemd-analyze verify:"$'\n'"$out"
[ -z "$out" ] || fail "systemd-analyze verify:"$'\n'"$out"

echo "== systemd-analyze security $unit"
out=$(systemd-analyze security --offline=true --threshold="$threshold" "$unit" 2>&1) ||
  fail "exposure above $threshold/100:"$'\n'"$(echo "$out" | grep -E '✗|Overall')"
echo "$out" | grep 'Overall exposure'
echo "== packaging OK"
