#!/usr/bin/env bash
# Real-browser test: builds Folio, starts it on a free loopback port with a
# throwaway SQLite database, checks the empty site's first-run welcome with
# scripts/browser/site.mjs (SITE_WELCOME=1), seeds a category, tags, posts and a page through
# the admin API, then loads the home page, a post and a page of the classic
# site in headless Chromium. It fails when an expected element is missing
# from the rendered DOM or when the browser logs a console message (a script
# error, a blocked or missing resource). Then it uploads an image, seeds a
# post with every kind of content and runs scripts/browser/site.mjs
# (playwright-core and axe-core, light and dark) over the classic site's
# pages. Then it seeds an account with the
# role user and runs scripts/browser/console.mjs (playwright-core and
# axe-core driving the same Chromium) through the web console's flows; see
# README.md, "Browser tests". Screenshots, wide and at phone width, are kept
# in $BROWSER_TEST_SCREENSHOTS (default: a new folder under /tmp, printed at
# the end).
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
shots=${BROWSER_TEST_SCREENSHOTS:-$(mktemp -d /tmp/folio-screenshots.XXXXXX)}
mkdir -p "$shots"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "browser-test: FAIL: $*" >&2; exit 1; }
. scripts/lib.sh

if ! command -v chromium >/dev/null 2>&1; then
  echo "== installing chromium"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null ||
    fail "chromium is missing and could not be installed"
fi
if ! command -v zbarimg >/dev/null 2>&1; then
  echo "== installing zbar-tools"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq zbar-tools >/dev/null ||
    fail "zbarimg is missing and could not be installed"
fi
command -v curl >/dev/null 2>&1 || fail "curl is required"
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || fail "node and npm are required"

npm_install scripts/browser

build_folio "$work/folio"

password="browser-test-password"
hash=$(printf '%s\n' "$password" | "$work/folio" hash-password)

echo "== start folio"
start_folio "$work" \
  FOLIO_ADMIN_USERNAME=admin \
  FOLIO_ADMIN_PASSWORD_HASH="$hash" \
  FOLIO_RENDER_RENDER_MODE=classic \
  FOLIO_SITE_SITE_NAME="Browser Test Blog" \
  FOLIO_SITE_DESCRIPTION="A blog seeded by the browser test"

echo "== the empty site's welcome (playwright-core + axe-core)"
SITE_WELCOME=1 BASE="$base" SHOTS="$shots/site" timeout 120 node scripts/browser/site.mjs ||
  { echo "--- server log (last 40 lines)" >&2; tail -n 40 "$work/server.log" >&2; fail "the welcome test failed (above)"; }

# first_id JSON: the first "id" in a response.
first_id() { grep -o '"id":"[^"]*"' <<<"$1" | head -n1 | cut -d'"' -f4; }

echo "== seed through the API"
api POST /api/v1/admin/auth/login "{\"username\":\"admin\",\"password\":\"$password\"}" >/dev/null
cat_id=$(first_id "$(api POST /api/v1/admin/categories '{"name":"Field Notes","slug":"field-notes"}')")
tag_id=$(first_id "$(api POST /api/v1/admin/tags '{"name":"golang","slug":"golang"}')")
[ -n "$cat_id" ] && [ -n "$tag_id" ] || fail "category or tag id missing"
for i in 1 2 3; do
  api POST /api/v1/admin/posts "{\"title\":\"Seeded post number $i\",\"slug\":\"seeded-$i\",
    \"summary\":\"Summary of seeded post $i.\",
    \"content_markdown\":\"Intro paragraph of post $i with **bold** text.\\n\\n## First section\\n\\nSome text.\\n\\n## Second section\\n\\n\`\`\`go\\nfunc main() {}\\n\`\`\`\\n\",
    \"status\":\"published\",\"show_comments\":true,\"category_id\":\"$cat_id\",\"tag_ids\":[\"$tag_id\"]}" >/dev/null
done
api POST /api/v1/admin/posts '{"title":"Secret draft","slug":"secret-draft","content_markdown":"hidden","status":"draft"}' >/dev/null
api POST /api/v1/admin/pages '{"title":"About this blog","slug":"about","content_markdown":"This page is **about** the blog.","status":"published","show_in_nav":true,"template":"default","config":"{}"}' >/dev/null

# browse NAME PATH MARKER...: dump the DOM, take screenshots, check markers
# and the console.
chrome() {
  local profile
  profile=$(mktemp -d "$work/profile.XXXXXX")
  timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --hide-scrollbars --user-data-dir="$profile" "$@"
}
browse() {
  local name=$1 path=$2 dom log
  shift 2
  dom="$work/$name.html"
  log="$work/$name.log"
  echo "== browse $path"
  chrome --enable-logging=stderr --v=0 --dump-dom "$base$path" >"$dom" 2>"$log" ||
    { cat "$log" >&2; fail "chromium could not load $path"; }
  for marker in "$@"; do
    grep -qF -- "$marker" "$dom" || fail "$path: rendered page lacks $marker"
  done
  if grep -E ':CONSOLE[:(]|Uncaught|Failed to load resource' "$log" >&2; then
    fail "$path: the browser logged console messages (above)"
  fi
  chrome --window-size=1280,1600 --screenshot="$shots/$name-wide.png" "$base$path" >/dev/null 2>&1 ||
    fail "$path: wide screenshot failed"
  chrome --window-size=360,800 --screenshot="$shots/$name-phone.png" "$base$path" >/dev/null 2>&1 ||
    fail "$path: phone screenshot failed"
  [ -s "$shots/$name-wide.png" ] && [ -s "$shots/$name-phone.png" ] || fail "$path: screenshot missing"
}

browse home / \
  '<link rel="stylesheet" href="/static/style.' \
  'type="application/rss+xml"' \
  'href="/posts/seeded-1"' 'href="/posts/seeded-3"' \
  'href="/pages/about"' 'href="/categories/field-notes"' 'href="/tags/golang"' \
  'Browser Test Blog'
grep -qF 'secret-draft' "$work/home.html" && fail "/: the draft is listed"
browse post /posts/seeded-2 \
  '<h1 class="post-title">Seeded post number 2</h1>' \
  '<nav class="toc"' \
  'id="comment-form"' 'name="author"' 'name="email"' 'name="content"' \
  '<meta property="og:title" content="Seeded post number 2">' \
  '<link rel="canonical" href="'"$base"'/posts/seeded-2">'
browse page /pages/about 'About this blog' '<strong>about</strong>'

echo "== assets"
css=$(grep -o 'href="/static/style\.[0-9a-f]*\.css"' "$work/home.html" | head -n1 | cut -d'"' -f2)
[ -n "$css" ] || fail "no stylesheet link on /"
curl -fsS -D "$work/css.headers" -o /dev/null "$base$css" || fail "$css does not load"
grep -qi '^cache-control: public, max-age=31536000, immutable' "$work/css.headers" || fail "$css is not cached as immutable"

echo "== feeds"
curl -fsS "$base/feed.xml" | grep -qF '<title>Seeded post number 1</title>' || fail "/feed.xml lacks a post"
curl -fsS "$base/sitemap.xml" | grep -qF "$base/pages/about" || fail "/sitemap.xml lacks the page"
curl -fsS "$base/robots.txt" | grep -qF "Sitemap: $base/sitemap.xml" || fail "/robots.txt lacks the sitemap"

echo "== classic site (playwright-core + axe-core)"
# A 48×32 PNG, uploaded through the API as a client would; the post shows
# it as its cover and in its text, with a table, a footnote, a task list
# and a code block.
printf '%s' 'iVBORw0KGgoAAAANSUhEUgAAADAAAAAgCAIAAADbtmxLAAAAR0lEQVR4nOzOQQ2AQBDAwE1YMWhCIipPQr/3mEkFdN/vf2buaWfnKoaKoWKoGCqGiqFiqBgqhoqhYqgYKoaKoWKonAAAAP//MZECttz/0BkAAAAASUVORK5CYII=' | base64 -d >"$work/harbour.png"
upload=$(curl -sS -b "$work/cookies" -H "Origin: $base" -F "file=@$work/harbour.png;type=image/png" "$base/api/v1/upload") ||
  fail "uploading the site's image failed"
image_url=$(grep -o '"url":"[^"]*"' <<<"$upload" | head -n1 | cut -d'"' -f4)
[ -n "$image_url" ] || fail "the upload answered no url: $upload"
image_path="/i/${image_url##*/i/}"
site_md='Everything a post can hold, checked in a real browser.\n\n## A table\n\n| Tool | Use |\n|---|---|\n| axe-core | accessibility |\n| Chromium | rendering |\n\n## Tasks\n\n- [x] Write the renderer\n- [ ] Check it in dark mode\n\n## Code\n\n```go\nfunc main() { fmt.Println(\"a line long enough to need scrolling sideways on a phone, and then some more words\") }\n```\n\n## An image\n\n![Harbour at dusk]('"$image_path"')\n\nA claim with a source.[^1]\n\n[^1]: The footnote.\n'
api POST /api/v1/admin/posts "{\"title\":\"Harbour notes with everything\",\"slug\":\"site-check\",
  \"content_markdown\":\"$site_md\",\"cover_image\":\"$image_path\",
  \"status\":\"published\",\"category_id\":\"$cat_id\",\"tag_ids\":[\"$tag_id\"]}" >/dev/null
BASE="$base" SHOTS="$shots/site" POST_PATH=/posts/site-check POST_TITLE="Harbour notes with everything" \
IMAGE_PATH="$image_path" IMAGE_SIZE=48x32 \
  timeout 300 node scripts/browser/site.mjs ||
  { echo "--- server log (last 40 lines)" >&2; tail -n 40 "$work/server.log" >&2; fail "the classic site test failed (above)"; }

echo "== console (playwright-core + axe-core)"
user_name=browser-user
user_password="browser-user-password-1"
api POST /api/v1/admin/users "{\"username\":\"$user_name\",\"email\":\"$user_name@example.com\",
  \"password\":\"$user_password\",\"role\":\"user\"}" >/dev/null
BASE="$base" ADMIN_USER=admin ADMIN_PASSWORD="$password" \
USER_NAME="$user_name" USER_PASSWORD="$user_password" SHOTS="$shots/console" \
  timeout 600 node scripts/browser/console.mjs ||
  { echo "--- server log (last 40 lines)" >&2; tail -n 40 "$work/server.log" >&2; fail "the console test failed (above)"; }

echo "browser-test: OK; screenshots in $shots"
