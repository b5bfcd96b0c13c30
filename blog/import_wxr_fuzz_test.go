package blog

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"folio/blog/htmltomd"
)

// repairAll reads src through the fallback reader, in reads of one byte
// when oneByte.
func repairAll(src []byte, oneByte bool) ([]byte, int, error) {
	var r io.Reader = bytes.NewReader(src)
	if oneByte {
		r = iotest.OneByteReader(r)
	}
	fix := newCDATARepair(r)
	out, err := io.ReadAll(fix)
	return out, fix.escaped, err
}

// undoEscapes turns every escaped "]]>" back into the plain one.
func undoEscapes(b []byte) []byte {
	return bytes.ReplaceAll(b, []byte("]]]]><![CDATA[>"), []byte("]]>"))
}

// xmlText: s is text XML can hold (valid UTF-8, no character XML forbids).
func xmlText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xfffe || r == 0xffff || r >= 0xd800 && r <= 0xdfff {
			return false
		}
	}
	return true
}

// FuzzCDATARepair: the fallback reader for WordPress's broken CDATA
// (docs/export-import.md#wordpress-wxr). Any input: it never fails but
// for the input's own read error or a section never closed; reading one
// byte at a time gives the same bytes and error as reading at once; it
// only ever writes a "]]>" the escaped way, 12 bytes more each, and keeps
// every newline. Any text put in one CDATA section the way WordPress
// wrote it (text holding "]]>" too), unless the text itself closes the
// element or opens a section right after a "]]>", reads back intact.
func FuzzCDATARepair(f *testing.F) {
	for _, s := range []string{
		`<r><c><![CDATA[Content with nested <![CDATA[ tags ]]> :)]]></c></r>`,
		`<r><v><![CDATA[]]>]]></v></r>`,
		"<r>\n<a><![CDATA[one\ntwo]]>\n]]></a>\n<b><![CDATA[open]]> and</b>\n</r>\n",
		`<?xml version="1.0"?><!-- <![CDATA[ --><?pi ]]> ?><r a="]]>"><c><![CDATA[tags ]]]]><![CDATA[> :)]]></c ></r>`,
		wxrDoc("https://wordpress.org/export/1.2/", "<item><title>T</title><content:encoded><![CDATA[a ]]> b]]></content:encoded></item>"),
	} {
		f.Add([]byte(s), "a ]]> b ]]")
	}
	f.Fuzz(func(t *testing.T, src []byte, text string) {
		out, escaped, err := repairAll(src, false)
		out1, escaped1, err1 := repairAll(src, true)
		if !bytes.Equal(out, out1) || escaped != escaped1 || (err == nil) != (err1 == nil) || err != nil && err.Error() != err1.Error() {
			t.Fatalf("reads of one byte differ: %q %d %v, %q %d %v", out, escaped, err, out1, escaped1, err1)
		}
		if err != nil {
			if f, ok := err.(*xmlFault); !ok || f.line < 1 || !strings.Contains(f.what, "never closed") {
				t.Fatalf("error %v", err)
			}
		} else {
			if len(out) != len(src)+12*escaped {
				t.Fatalf("%d bytes out of %d with %d escaped", len(out), len(src), escaped)
			}
			if bytes.Count(out, []byte("\n")) != bytes.Count(src, []byte("\n")) {
				t.Fatalf("newlines changed: %q", out)
			}
		}
		if !bytes.Equal(undoEscapes(src), undoEscapes(out)) {
			t.Fatalf("the reader changed more than ]]>: %q from %q", out, src)
		}

		if !xmlText(text) || strings.Contains(text, "]]></c") || strings.Contains(text, "]]><![CDATA[") {
			return
		}
		doc := "<r><c><![CDATA[" + text + "]]></c></r>"
		dec := newWXRDecoder(newCDATARepair(strings.NewReader(doc)))
		var got struct {
			C string `xml:"c"`
		}
		if err := dec.Decode(&got); err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		want := strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
		if got.C != want {
			t.Fatalf("%q read back as %q", text, got.C)
		}
	})
}

// FuzzWXRContent: the content of a WordPress post, as the import prepares
// it for the converter (docs/export-import.md#wordpress-wxr): marks,
// shortcodes, embeds and autop. Any content: it never panics, gives the
// same HTML, teaser and losses twice, the expanded HTML stays within its
// bound, and the Markdown converted from it renders to HTML that passes
// FuzzRender's checks. Content with no bracket, no tag and no URL is left
// to autop alone.
func FuzzWXRContent(f *testing.F) {
	for _, s := range []string{
		"Intro [caption id=\"a\" width=\"300\"]<a href=\"/big.jpg\"><img src=\"/small.jpg\" alt=\"A\"></a> A <em>cat</em>[/caption]\n\n<!--more-->\n\nRest",
		"[gallery]\n[gallery ids=\"24,21,99\" order=\"DESC\"]\n[playlist type=\"video\" ids=\"25\"]",
		"https://www.youtube.com/watch?v=x\n[embed]https://vimeo.com/1[/embed]\n[video mp4=\"javascript:alert(1)\"]",
		"<!-- wp:paragraph -->\n<p>[gallery]</p>\n<!-- /wp:paragraph -->\n<!-- wp:more -->\n<!--more-->\n<!-- /wp:more -->",
		"<figure class=\"wp-block-embed\"><div>\nhttps://youtu.be/x\n</div><figcaption><script>x</script></figcaption></figure>",
		"[[caption]] <code>[gallery]</code> <pre>\n[audio src=\"x.mp3\"]\n</pre> [contact-form-7 id=\"1\"] [caption caption='<img src=x onerror=alert(1)>']<img src=\"y\">[/caption]",
		"a<br><br>b\nc\n<blockquote>q\nr</blockquote><!--nextpage-->page 2",
	} {
		f.Add(s)
	}
	b := &Blog{md: newMarkdown()}
	f.Fuzz(func(t *testing.T, src string) {
		w := &wxrExport{media: *testMedia(), unknown: map[string]bool{}}
		body, ok := w.body(src, "7")
		again, ok2 := (&wxrExport{media: *testMedia(), unknown: map[string]bool{}}).body(src, "7")
		if ok != ok2 || body.html != again.html || body.teaser != again.teaser || body.more != again.more || len(body.losses) != len(again.losses) {
			t.Fatalf("two preparations differ")
		}
		expanded, fits := expandShortcodes(src, "7", testMedia(), map[string]int{}, map[string]bool{})
		if fits && len(expanded) > maxConvertedHTML {
			t.Fatalf("%d bytes of expanded HTML", len(expanded))
		}
		if !strings.ContainsAny(src, "[<") && !strings.Contains(strings.ToLower(src), "http") && expanded != src {
			t.Fatalf("plain text changed: %q", expanded)
		}
		if !ok {
			return
		}
		for _, h := range []string{body.html, body.teaser} {
			md, _ := htmltomd.Convert(h)
			out, err := b.render(t.Context(), md)
			if err != nil {
				t.Fatalf("render: %v", err)
			}
			if _, err := checkHTML(out.HTML); err != nil {
				t.Fatalf("%v in %q (Markdown %q)", err, out.HTML, md)
			}
		}
	})
}

// TestStrictDecoderRefusesWhatOlderWordPressWrote: the shape of
// FuzzCDATARepair's first seed is what needs the fallback reader.
func TestStrictDecoderRefusesWhatOlderWordPressWrote(t *testing.T) {
	dec := newWXRDecoder(strings.NewReader(`<r><c><![CDATA[Content with nested <![CDATA[ tags ]]> :)]]></c></r>`))
	var err error
	for err == nil {
		_, err = dec.Token()
	}
	if errors.Is(err, io.EOF) {
		t.Fatal("the strict decoder reads the broken section")
	}
	if _, ok := err.(*xml.SyntaxError); !ok {
		t.Fatalf("error %v", err)
	}
}
