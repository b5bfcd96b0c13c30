#!/usr/bin/env bash
# Times making a 1280-pixel size of a 12-megapixel JPEG: Folio's first
# request for /i/{hash}?w=1280 (go run ./cmd/folio-bench variant), then
# vipsthumbnail and ImageMagick on the same file, and prints a Markdown
# table of their times and peak memory (docs/filehost.md#sizes). Not part of
# .ci/run: the numbers depend on the machine.
#
#   bash scripts/bench-variants.sh            # makes /tmp/12mp.jpg if missing
#   IN=photo.jpg WIDTH=960 bash scripts/bench-variants.sh
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "bench-variants: $*" >&2; exit 1; }

in=${IN:-/tmp/12mp.jpg}
width=${WIDTH:-1280}
[ -x /usr/bin/convert ] || fail "ImageMagick (/usr/bin/convert) is missing"
command -v vipsthumbnail >/dev/null || fail "vipsthumbnail (libvips-tools) is missing"
[ -x /usr/bin/time ] || fail "/usr/bin/time is missing"
if [ ! -f "$in" ]; then
  echo "making $in: 4000x3000, plasma, quality 90"
  /usr/bin/convert -size 4000x3000 plasma: -quality 90 "$in"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/folio-bench" ./cmd/folio-bench

# folio-bench prints "folio: … : 1.23 s, peak RSS 106296 kB (…)" for the
# request alone; the other two are whole processes.
folio=$("$work/folio-bench" variant -in "$in" -w "$width")
folio_s=$(sed -E 's/.*: ([0-9.]+) s, .*/\1/' <<<"$folio")
folio_kib=$(sed -E 's/.*peak RSS ([0-9]+) kB.*/\1/' <<<"$folio")
vips=$( { /usr/bin/time -f '%e %M' vipsthumbnail "$in" -s "$width" -o "$work/v.jpg" >/dev/null; } 2>&1 | tail -1)
im=$( { /usr/bin/time -f '%e %M' /usr/bin/convert "$in" -resize "$width" "$work/c.jpg" >/dev/null; } 2>&1 | tail -1)

echo
echo "| Tool | Time | Peak RSS |"
echo "|---|---|---|"
echo "| Folio, first GET /i/{hash}?w=$width (decode, resize, encode, store) | ${folio_s} s | $((folio_kib / 1024)) MiB |"
echo "| vipsthumbnail -s $width | ${vips% *} s | $((${vips#* } / 1024)) MiB |"
echo "| ImageMagick convert -resize $width | ${im% *} s | $((${im#* } / 1024)) MiB |"
