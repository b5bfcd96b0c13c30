package blog

import (
	"fmt"
	"testing"
)

// FuzzRewriteDestinations: for any Markdown, the destinations found are
// slices of it in order, none overlapping; rewriting each to a new
// address keeps every other byte, and the rewritten Markdown reads as the
// same links and images, in the same order and of the same kinds, each
// with its new address.
func FuzzRewriteDestinations(f *testing.F) {
	for _, s := range []string{
		"![a](http://old.example/a.jpg) [b](/b.pdf \"t\")\n",
		"[![i](x.png)](y.png)\n\n[r]: <z.jpg>\n\n![r][r] [r]\n",
		"- ![a](a)\n\n> [b](b)\n\n| h |\n|---|\n| ![c](c) |\n",
		"`![a](a)`\n\n```\n[b](b)\n```\n\n<img src=\"a\">\n\\[x\\](y)\n",
		"[a](b(c)d) [e](<f g>) ![h](i \"j\") [k]: l\n",
		"[^1]\n\n[^1]: [a](b)\n",
	} {
		f.Add(s)
	}
	b := &Blog{md: newMarkdown()}
	f.Fuzz(func(t *testing.T, md string) {
		dests := b.destinations([]byte(md))
		last := 0
		for _, d := range dests {
			if d.start < last || d.end <= d.start || d.end > len(md) {
				t.Fatalf("destination [%d, %d) after %d in %q", d.start, d.end, last, md)
			}
			last = d.end
		}
		n := 0
		out := b.rewriteDestinations(md, func(dest string, image bool) (string, bool) {
			n++
			return fmt.Sprintf("/i/k%d", n), true
		})
		if n != len(dests) {
			t.Fatalf("%d destinations rewritten of %d", n, len(dests))
		}
		// Every byte outside the destinations is kept.
		pos, o := 0, 0
		for i, d := range dests {
			keep := md[pos:d.start]
			if out[o:o+len(keep)] != keep {
				t.Fatalf("the text before destination %d changed: %q became %q", i, md, out)
			}
			o += len(keep) + len(fmt.Sprintf("/i/k%d", i+1))
			pos = d.end
		}
		if out[o:] != md[pos:] {
			t.Fatalf("the text after the destinations changed: %q became %q", md, out)
		}
		again := b.destinations([]byte(out))
		if len(again) != len(dests) {
			t.Fatalf("%q has %d destinations, rewritten %q has %d", md, len(dests), out, len(again))
		}
		for i, d := range again {
			if got, want := out[d.start:d.end], fmt.Sprintf("/i/k%d", i+1); got != want || d.image != dests[i].image {
				t.Fatalf("destination %d of %q reads %q (image %v), want %q (image %v); from %q", i, out, got, d.image, want, dests[i].image, md)
			}
		}
	})
}
