#!/usr/bin/env bash
# Lighthouse test: builds Folio, starts it on a free loopback port with a
# throwaway SQLite database, uploads a 12 MP JPEG (4000x3000, made with
# ImageMagick), publishes a post that shows it as its cover and in its
# text, and runs Lighthouse (scripts/lighthouse/post.mjs, headless
# Chromium, a phone's form factor) on the post. It fails unless
# Lighthouse's "Properly size images" audit passes: the theme's srcset and
# the file host's widths let a phone load a picture the size of its screen
# (docs/filehost.md#sizes). It prints the largest contentful paint and the
# page's byte weight.
set -euo pipefail
cd "$(dirname "$0")/.."

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
fail() { echo "lighthouse-test: FAIL: $*" >&2; exit 1; }
. scripts/lib.sh

[ -x /usr/bin/chromium ] || fail "/usr/bin/chromium is required (scripts/browser-test.sh installs it)"
[ -x /usr/bin/convert ] || fail "/usr/bin/convert (ImageMagick) is required"
command -v curl >/dev/null 2>&1 || fail "curl is required"
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || fail "node and npm are required"

npm_install scripts/lighthouse

build_folio "$work/folio"

echo "== a 12 MP picture"
# A smooth, photo-like picture: fractal plasma, softened.
/usr/bin/convert -seed 7 -size 4000x3000 plasma:fractal -blur 0x3 -quality 88 "$work/photo.jpg" ||
  fail "making the picture failed"

password="lighthouse-test-password"
hash=$(printf '%s\n' "$password" | "$work/folio" hash-password)

echo "== start folio"
start_folio "$work" \
  FOLIO_ADMIN_USERNAME=admin \
  FOLIO_ADMIN_PASSWORD_HASH="$hash" \
  FOLIO_RENDER_RENDER_MODE=classic \
  FOLIO_SITE_SITE_NAME="Lighthouse Test Blog"


echo "== upload and publish"
api POST /api/v1/admin/auth/login "{\"username\":\"admin\",\"password\":\"$password\"}" >/dev/null
upload=$(curl -sS -b "$work/cookies" -H "Origin: $base" -F "file=@$work/photo.jpg;type=image/jpeg" "$base/api/v1/upload") ||
  fail "uploading the picture failed"
image_url=$(grep -o '"url":"[^"]*"' <<<"$upload" | head -n1 | cut -d'"' -f4)
[ -n "$image_url" ] || fail "the upload answered no url: $upload"
image_path="/i/${image_url##*/i/}"
api POST /api/v1/admin/posts "{\"title\":\"A harbour at dusk\",\"slug\":\"harbour\",
  \"content_markdown\":\"![The harbour]($image_path)\\n\\nThe boats come in as the light goes.\\n\",
  \"cover_image\":\"$image_path\",\"status\":\"published\"}" >/dev/null
page=$(curl -fsS "$base/posts/harbour") || fail "the post does not load"
grep -qF "srcset=\"$image_path?w=160 160w" <<<"$page" || fail "the post's picture has no srcset: $(grep -o '<img[^>]*>' <<<"$page")"

echo "== lighthouse"
URL="$base/posts/harbour" CHROME=/usr/bin/chromium timeout 300 node scripts/lighthouse/post.mjs ||
  { show_logs "$work/server.log"; fail "Lighthouse (above)"; }

echo "lighthouse-test: OK"
