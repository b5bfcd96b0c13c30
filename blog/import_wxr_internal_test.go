package blog

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"maps"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"folio/blog/htmltomd"
)

func TestWXRNamespacesOfEveryVersionAndScheme(t *testing.T) {
	for _, tc := range []struct {
		space, version string
		excerpt, ok    bool
	}{
		{"http://wordpress.org/export/1.0/", "1.0", false, true},
		{"http://wordpress.org/export/1.1/", "1.1", false, true},
		{"http://wordpress.org/export/1.2/", "1.2", false, true},
		{"https://wordpress.org/export/1.2/", "1.2", false, true},
		{"https://wordpress.org/export/1.0/", "1.0", false, true},
		{"http://wordpress.org/export/1.2/excerpt/", "1.2", true, true},
		{"https://wordpress.org/export/1.1/excerpt/", "1.1", true, true},
		{"https://wordpress.org/export/1.3/", "1.3", false, true},
		{"http://wordpress.org/export/", "", false, false},
		{"http://wordpress.org/export/x/", "", false, false},
		{"http://wordpress.org/export/1.2", "", false, false},
		{"http://wordpress.org/export/1.2/other/", "", false, false},
		{"ftp://wordpress.org/export/1.2/", "", false, false},
		{"http://example.org/export/1.2/", "", false, false},
		{"http://purl.org/rss/1.0/modules/content/", "", false, false},
	} {
		version, excerpt, ok := wxrSpace(tc.space)
		if version != tc.version || excerpt != tc.excerpt || ok != tc.ok {
			t.Errorf("%s: got %q %v %v, want %q %v %v", tc.space, version, excerpt, ok, tc.version, tc.excerpt, tc.ok)
		}
	}
	if newerWXR("1.2") || newerWXR("1.0") || !newerWXR("1.3") || !newerWXR("2.0") {
		t.Error("newerWXR")
	}
}

// repaired reads doc through the fallback reader, in reads of the given
// size, and returns what the decoder makes of each element's text.
func repairedText(t *testing.T, doc string, oneByte bool) (map[string]string, int, error) {
	t.Helper()
	var src io.Reader = strings.NewReader(doc)
	if oneByte {
		src = iotest.OneByteReader(src)
	}
	fix := newCDATARepair(src)
	dec := newWXRDecoder(fix)
	out := map[string]string{}
	var path []string
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return out, fix.escaped, nil
		}
		if err != nil {
			return out, fix.escaped, err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			path = append(path, tok.Name.Local)
		case xml.EndElement:
			path = path[:len(path)-1]
		case xml.CharData:
			if k := strings.Join(path, "/"); strings.TrimSpace(string(tok)) != "" || out[k] != "" {
				out[k] += string(tok)
			}
		}
	}
}

func TestCDATARepairReadsWhatOlderWordPressWrote(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      map[string]string
		escaped   int
	}{
		{"content holding ]]>", `<r><c><![CDATA[Content with nested <![CDATA[ tags ]]> :)]]></c></r>`,
			map[string]string{"r/c": "Content with nested <![CDATA[ tags ]]> :)"}, 1},
		{"only ]]>", `<r><v><![CDATA[]]>]]></v></r>`, map[string]string{"r/v": "]]>"}, 1},
		{"several", "<r><v><![CDATA[a ]]> b ]]> c\n]]>]]></v>\n<w><![CDATA[plain]]></w></r>",
			map[string]string{"r/v": "a ]]> b ]]> c\n]]>", "r/w": "plain"}, 3},
		{"the escaped form stays as it is", `<r><c><![CDATA[tags ]]]]><![CDATA[> :)]]></c></r>`,
			map[string]string{"r/c": "tags ]]> :)"}, 0},
		{"a closing tag with space", `<r><c><![CDATA[x]]>y]]></c ></r>`, map[string]string{"r/c": "x]]>y"}, 1},
		{"]]> before another element's closing tag", `<r><c><![CDATA[a]]></b>c]]></c></r>`, map[string]string{"r/c": "a]]></b>c"}, 1},
		{"comments and instructions pass", `<?xml version="1.0"?><!-- <![CDATA[ --><r><c><![CDATA[a]]></c></r>`,
			map[string]string{"r/c": "a"}, 0},
		{"namespaced element", `<r xmlns:wp="http://wordpress.org/export/1.2/"><wp:v><![CDATA[1]]>2]]></wp:v></r>`,
			map[string]string{"r/v": "1]]>2"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, oneByte := range []bool{false, true} {
				got, escaped, err := repairedText(t, tc.doc, oneByte)
				if err != nil {
					t.Fatalf("read: %v", err)
				}
				if !maps.Equal(got, tc.want) || escaped != tc.escaped {
					t.Fatalf("got %q (%d escaped), want %q (%d)", got, escaped, tc.want, tc.escaped)
				}
			}
		})
	}
}

func TestCDATARepairKeepsLinesAndSaysWhereASectionNeverEnds(t *testing.T) {
	doc := "<r>\n<a><![CDATA[one\ntwo]]>\n]]></a>\n<b><![CDATA[open\n\nfor ever]]> and ever</b>\n</r>\n"
	var out bytes.Buffer
	_, err := io.Copy(&out, newCDATARepair(strings.NewReader(doc)))
	f, ok := err.(*xmlFault)
	if !ok || f.line != 5 || !strings.Contains(f.what, "never closed") {
		t.Fatalf("error %v, want the section of line 5 never closed", err)
	}
	if got, want := bytes.Count(out.Bytes(), []byte("\n")), strings.Count(doc, "\n"); got != want {
		t.Errorf("%d newlines out of %d", got, want)
	}
}

// wxrDoc is a WordPress export around items.
func wxrDoc(ns string, items ...string) string {
	return `<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:excerpt="` + ns + `excerpt/" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:wp="` + ns + `">
<channel>
<wp:wxr_version>1.2</wp:wxr_version>
` + strings.Join(items, "\n") + `
</channel>
</rss>
`
}

func TestWXRScanFallsBackOnlyForBrokenCDATA(t *testing.T) {
	ns := "https://wordpress.org/export/1.2/"
	item := func(content string) string {
		return "<item><title>T</title><content:encoded><![CDATA[" + content + "]]></content:encoded><wp:post_type>post</wp:post_type></item>"
	}
	for _, tc := range []struct {
		name, doc string
		repair    bool
		err       string
	}{
		{"valid", wxrDoc(ns, item("a ]]]]><![CDATA[> b")), false, ""},
		{"broken CDATA", wxrDoc(ns, item("a ]]> b")), true, ""},
		{"a tag left open", wxrDoc(ns, "<item><title>T</title>\n<wp:post_type>post</wp:post_type>\n"),
			false, "not a valid WordPress export: line 8: <item> is not closed before </channel>"},
		{"an unknown entity", wxrDoc(ns, "<item><title>Tom &amp Jerry</title></item>"),
			false, "not a valid WordPress export: line 5: &amp without its ; is not a character reference (a & in text is written &amp;)"},
		{"an entity HTML knows", wxrDoc(ns, "<item><title>Caf&eacute;</title></item>"),
			false, "not a valid WordPress export: line 5: &eacute; is not a character reference XML knows (a & in text is written &amp;)"},
		{"broken CDATA, and a tag left open after it", wxrDoc(ns, item("x ]]> y"), "<item>\n<title>T</title>"),
			false, "not a valid WordPress export: line 8: <item> is not closed before </channel>"},
		{"cut short", strings.TrimSuffix(wxrDoc(ns, item("x")), "</channel>\n</rss>\n"), false, "not a valid WordPress export: line 6: the file ends before its XML does (it is cut short)"},
		{"not XML", "<<<", false, "not a WordPress export: line 1: expected element name after <"},
		{"Latin-1", `<?xml version="1.0" encoding="ISO-8859-1"?><rss/>`, false,
			`not a WordPress export: encoding "ISO-8859-1" is not supported (export the site as UTF-8)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := openWXR(strings.NewReader(tc.doc), int64(len(tc.doc)))
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				if _, ok := err.(*InputError); !ok {
					t.Fatalf("error %T, want an *InputError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			w, _ := openWXR(strings.NewReader(tc.doc), int64(len(tc.doc)))
			if w.repair != tc.repair {
				t.Fatalf("repair %v, want %v", w.repair, tc.repair)
			}
		})
	}
}

func TestAutopMakesParagraphsAsWordPressShowsThem(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"a blank line separates paragraphs, a newline is a line break",
			"Line one\nLine two\n\nPara two", "<p>Line one<br />\nLine two</p>\n<p>Para two</p>\n"},
		{"windows newlines", "a\r\nb\r\n\r\nc", "<p>a<br />\nb</p>\n<p>c</p>\n"},
		{"two line breaks in a row are a paragraph break", "a<br><br>b\nc", "<p>a</p>\n<p>b<br />\nc</p>\n"},
		{"a line break already there is not doubled", "a<br />\nb", "<p>a<br />\nb</p>\n"},
		{"text around a list", "Things:\n<ul>\n\t<li>one</li>\n\t<li>two\nlines</li>\n</ul>\nAfter.",
			"<p>Things:</p>\n<ul>\n<li>one</li>\n<li>two<br />\nlines</li>\n</ul>\n<p>After.</p>\n"},
		{"lines in a quote", "<blockquote>Quote line one\nline two</blockquote>",
			"<blockquote><p>Quote line one<br />\nline two</p></blockquote>\n"},
		{"pre keeps its text", "<pre>x\n\n  y</pre>\n\npara", "<pre>x\n\n  y</pre>\n<p>para</p>\n"},
		{"two pre", "<pre>a\nb</pre>\ntext\n<pre>c\n\nd</pre>", "<pre>a\nb</pre>\n<p>text</p>\n<pre>c\n\nd</pre>\n"},
		{"an image alone is a paragraph", "<img src=\"a.jpg\" alt=\"A\" />\n\nText", "<p><img src=\"a.jpg\" alt=\"A\" /></p>\n<p>Text</p>\n"},
		{"a tag over several lines", "<img src=\"a.jpg\"\nalt=\"A\" /> text", "<p><img src=\"a.jpg\"\nalt=\"A\" /> text</p>\n"},
		{"a heading", "<h2>Title</h2>\nText", "<h2>Title</h2>\n<p>Text</p>\n"},
		{"a script's lines stay lines", "<script>a\nb</script>", "<p><script>a\nb</script></p>\n"},
		{"only white space", " \n\n ", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := autop(tc.in); got != tc.want {
				t.Fatalf("autop(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

// testMedia is an export's attachments: 21 and 22 attached to post 7
// (in menu order 22 then 21), an audio file of post 7, an image of post 8.
func testMedia() *wxrMedia {
	m := &wxrMedia{byID: map[string]*wxrAttachment{}, children: map[string][]*wxrAttachment{}}
	for _, a := range []*wxrAttachment{
		{id: "21", parent: "7", url: "https://old.example/a.jpg", title: "a", caption: "First one", alt: "Alt A", order: 2},
		{id: "22", parent: "7", url: "https://old.example/b.png", title: "b", order: 1},
		{id: "23", parent: "7", url: "https://old.example/song.mp3", title: "Song"},
		{id: "24", parent: "8", url: "https://old.example/c.jpg", title: "c", alt: `"C" & co`},
		{id: "25", parent: "8", url: "https://old.example/clip.mp4", title: "Clip"},
	} {
		m.byID[a.id] = a
		m.children[a.parent] = append(m.children[a.parent], a)
	}
	m.sort()
	return m
}

func TestShortcodesBecomeHTMLTheConverterReads(t *testing.T) {
	const galleryAB = `<ul class="wp-block-gallery"><li><figure><img src="https://old.example/b.png" alt=""></figure></li>` +
		`<li><figure><img src="https://old.example/a.jpg" alt="Alt A"><figcaption>First one</figcaption></figure></li></ul>`
	for _, tc := range []struct {
		name, in, want string
		losses         map[string]int
	}{
		{"caption with its text after the image, in a link",
			`Intro [caption id="attachment_5" align="alignnone" width="300"]<a href="https://old.example/big.jpg"><img src="https://old.example/small.jpg" alt="A cat" width="300" /></a> A <em>cat</em>
sleeping[/caption] outro`,
			"Intro \n\n" + `<figure><a href="https://old.example/big.jpg"><img src="https://old.example/small.jpg" alt="A cat" width="300" /></a><figcaption>A <em>cat</em> sleeping</figcaption></figure>` + "\n\n outro", nil},
		{"caption as an attribute", `[caption id="x" caption="Attr caption"]<img src="x.jpg" alt="">[/caption]`,
			"\n\n" + `<figure><img src="x.jpg" alt=""><figcaption>Attr caption</figcaption></figure>` + "\n\n", nil},
		{"the old wp_caption", `[wp_caption caption="Old"]<img src="x.jpg">[/wp_caption]`,
			"\n\n" + `<figure><img src="x.jpg"><figcaption>Old</figcaption></figure>` + "\n\n", nil},
		{"caption without an image", `[caption]Just text[/caption]`, "\n\nJust text\n\n", nil},
		{"gallery of the post's images, in menu order", `[gallery]`, "\n\n" + galleryAB + "\n\n", nil},
		{"gallery in reverse", `[gallery order="DESC" columns="2"]`, "\n\n" + `<ul class="wp-block-gallery"><li><figure><img src="https://old.example/a.jpg" alt="Alt A"><figcaption>First one</figcaption></figure></li>` +
			`<li><figure><img src="https://old.example/b.png" alt=""></figure></li></ul>` + "\n\n", nil},
		{"gallery of another post", `[gallery id="8"]`, "\n\n" + `<ul class="wp-block-gallery"><li><figure><img src="https://old.example/c.jpg" alt="&#34;C&#34; &amp; co"></figure></li></ul>` + "\n\n", nil},
		{"gallery by ids, in their order, one missing", `[gallery ids="24, 21,99"]`,
			"\n\n" + `<ul class="wp-block-gallery"><li><figure><img src="https://old.example/c.jpg" alt="&#34;C&#34; &amp; co"></figure></li>` +
				`<li><figure><img src="https://old.example/a.jpg" alt="Alt A"><figcaption>First one</figcaption></figure></li></ul>` + "\n\n",
			map[string]int{lossGalleryImage: 1}},
		{"gallery by include, less exclude", `[gallery include="22" exclude="22"]`, "\n\n" + `<ul class="wp-block-gallery"><li><figure><img src="https://old.example/b.png" alt=""></figure></li></ul>` + "\n\n", nil},
		{"gallery with nothing in the export", `[gallery ids="98,99"]`, "\n\n\n\n", map[string]int{lossGalleryImage: 2, lossEmptyGallery: 1}},
		{"the block editor's paragraph around a shortcode", "<!-- wp:shortcode -->\n<p>[gallery]</p>\n<!-- /wp:shortcode -->",
			"<!-- wp:shortcode -->\n\n\n" + galleryAB + "\n\n\n<!-- /wp:shortcode -->", nil},
		{"embed", `[embed width="500"]https://vimeo.com/123[/embed]`,
			"\n\n" + `<p><a href="https://vimeo.com/123">https://vimeo.com/123</a></p>` + "\n\n", map[string]int{lossEmbed: 1}},
		{"a URL alone on a line", "before\n  https://www.youtube.com/watch?v=abc&amp;t=1 \nafter",
			"before\n\n\n" + `<p><a href="https://www.youtube.com/watch?v=abc&amp;t=1">https://www.youtube.com/watch?v=abc&amp;t=1</a></p>` + "\n\n\nafter", map[string]int{lossEmbed: 1}},
		{"a URL inside a line stays", "see https://example.org/ here", "see https://example.org/ here", nil},
		{"the block editor's paragraph of one URL", "<p>https://example.org/post</p>",
			`<p><a href="https://example.org/post">https://example.org/post</a></p>`, map[string]int{lossEmbed: 1}},
		{"the block editor's embed", "<!-- wp:embed {\"url\":\"https://youtu.be/x\"} -->\n<figure class=\"wp-block-embed is-type-video\"><div class=\"wp-block-embed__wrapper\">\nhttps://youtu.be/x\n</div><figcaption>A <b>talk</b></figcaption></figure>\n<!-- /wp:embed -->",
			"<!-- wp:embed {\"url\":\"https://youtu.be/x\"} -->\n\n\n" + `<p><a href="https://youtu.be/x">https://youtu.be/x</a></p><p>A talk</p>` + "\n\n\n<!-- /wp:embed -->", map[string]int{lossEmbed: 1}},
		{"video by its mp4", `[video mp4="https://old.example/v.mp4" poster="p.jpg" width="640"][/video]`,
			"\n\n" + `<p><a href="https://old.example/v.mp4">Video: v.mp4</a></p>` + "\n\n", map[string]int{lossVideo: 1}},
		{"video by src", `[video src="https://old.example/x%20y.webm"]`,
			"\n\n" + `<p><a href="https://old.example/x%20y.webm">Video: x y.webm</a></p>` + "\n\n", map[string]int{lossVideo: 1}},
		{"video of the post's own file", `[video]`, "\n\n\n\n", map[string]int{lossNoMedia: 1}},
		{"audio by a bare URL", `[audio https://old.example/a.mp3]`,
			"\n\n" + `<p><a href="https://old.example/a.mp3">Audio: a.mp3</a></p>` + "\n\n", map[string]int{lossAudio: 1}},
		{"audio of the post's own file", `[audio loop="on"]`,
			"\n\n" + `<p><a href="https://old.example/song.mp3">Audio: song.mp3</a></p>` + "\n\n", map[string]int{lossAudio: 1}},
		{"playlist", `[playlist]`, "\n\n" + `<ul><li><a href="https://old.example/song.mp3">Audio: Song</a></li></ul>` + "\n\n", map[string]int{lossPlaylist: 1}},
		{"video playlist", `[playlist type="video" ids="25"]`, "\n\n" + `<ul><li><a href="https://old.example/clip.mp4">Video: Clip</a></li></ul>` + "\n\n", map[string]int{lossPlaylist: 1}},
		{"unknown shortcodes stay, counted", `[contact-form-7 id="1" title="Contact"] and [foo]x[/foo] and [foo/]`,
			`[contact-form-7 id="1" title="Contact"] and [foo]x[/foo] and [foo/]`,
			map[string]int{lossUnknownShortcode("contact-form-7"): 1, lossUnknownShortcode("foo"): 2}},
		{"a known one inside an unknown one", `[box][embed]https://a.example/v[/embed][/box]`,
			"[box]\n\n" + `<p><a href="https://a.example/v">https://a.example/v</a></p>` + "\n\n[/box]",
			map[string]int{lossUnknownShortcode("box"): 1, lossEmbed: 1}},
		{"brackets that are no shortcode", `[Note: this] [1] [ x ] [a=b] [`, `[Note: this] [1] [ x ] [a=b] [`, nil},
		{"escaped", `[[caption]] and [[gallery ids="1"]] and [[foo]]`, `[caption] and [gallery ids="1"] and [[foo]]`, nil},
		{"escaped with content", `[[caption]x[/caption]]`, `[caption]x[/caption]`, nil},
		{"code and pre are left alone", "<code>[gallery]</code> <pre class=\"x\">[embed]https://a.example[/embed]\nhttps://a.example/\n</PRE>",
			"<code>[gallery]</code> <pre class=\"x\">[embed]https://a.example[/embed]\nhttps://a.example/\n</PRE>", nil},
		{"a link's text is left alone", "<a href=\"https://a.example\">\nhttps://a.example\n</a>", "<a href=\"https://a.example\">\nhttps://a.example\n</a>", nil},
		{"an attribute is left alone", `<img alt="[gallery]" title='x > [embed]'>`, `<img alt="[gallery]" title='x > [embed]'>`, nil},
		{"a code element left open is its tag alone", "<code>[gallery]", "<code>\n\n" + galleryAB + "\n\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			losses := map[string]int{}
			got, ok := expandShortcodes(tc.in, "7", testMedia(), losses, map[string]bool{})
			if !ok {
				t.Fatal("too large")
			}
			if got != tc.want {
				t.Errorf("expanded\n got %q\nwant %q", got, tc.want)
			}
			if tc.losses == nil {
				tc.losses = map[string]int{}
			}
			if !maps.Equal(losses, tc.losses) {
				t.Errorf("losses %v, want %v", losses, tc.losses)
			}
		})
	}
}

// TestExpandedShortcodesConvertToMarkdown: what the converter of today
// makes of the expansions (a figure of one image and its caption, a list
// of images, links), so that no shortcode and no escaped markup is left.
func TestExpandedShortcodesConvertToMarkdown(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`[caption caption="A cat"]<a href="https://old.example/big.jpg"><img src="https://old.example/small.jpg" alt="Cat"></a>[/caption]`,
			"[![Cat](https://old.example/small.jpg)](https://old.example/big.jpg)\n\n*A cat*\n"},
		{`[gallery]`, "- ![](https://old.example/b.png)\n- ![Alt A](https://old.example/a.jpg)\\\n  *First one*\n"},
		{"Watch:\nhttps://youtu.be/x\n[audio mp3=\"https://old.example/a.mp3\"]",
			"Watch:\n\n[https://youtu.be/x](https://youtu.be/x)\n\n[Audio: a.mp3](https://old.example/a.mp3)\n"},
	} {
		h, _ := expandShortcodes(tc.in, "7", testMedia(), map[string]int{}, map[string]bool{})
		md, losses := htmltomd.Convert(autop(h))
		if md != tc.want || len(losses) != 0 {
			t.Errorf("%q\n got %q %v\nwant %q", tc.in, md, losses, tc.want)
		}
	}
}

func TestUnknownShortcodeNamesAreBounded(t *testing.T) {
	var b strings.Builder
	for i := range maxShortcodeKinds + 5 {
		b.WriteString("[code" + strconv.Itoa(i) + "] ")
	}
	losses := map[string]int{}
	unknown := map[string]bool{}
	expandShortcodes(b.String(), "7", testMedia(), losses, unknown)
	expandShortcodes("[code0] [more1]", "7", testMedia(), losses, unknown)
	if len(unknown) != maxShortcodeKinds || losses[lossOtherCode] != 6 || losses[lossUnknownShortcode("code0")] != 2 {
		t.Fatalf("%d names, losses %v", len(unknown), losses)
	}
}

func TestMoreAndNextPageMarks(t *testing.T) {
	w := &wxrExport{media: *testMedia(), unknown: map[string]bool{}}
	for _, tc := range []struct {
		name, in, html, teaser string
		more                   bool
		losses                 map[string]int
	}{
		{"classic", "Intro <b>text</b>.\n\n<!--more-->\n\nThe rest.", "<p>Intro <b>text</b>.</p>\n<p>The rest.</p>\n", "<p>Intro <b>text</b>.</p>\n", true, nil},
		{"with the link's own text, inside a paragraph", "Intro <!--more Read on!--> rest", "<p>Intro  rest</p>\n", "<p>Intro </p>\n", true, nil},
		{"only the first mark splits", "a\n<!--more-->\nb\n<!--more-->\nc", "<p>a</p>\n<p>b<br />\n<!--more--><br />\nc</p>\n", "<p>a</p>\n", true, nil},
		{"the block editor's", "<!-- wp:paragraph -->\n<p>Intro</p>\n<!-- /wp:paragraph -->\n\n<!-- wp:more {\"customText\":\"Go\"} -->\n<!--more Go-->\n<!-- /wp:more -->\n\n<!-- wp:paragraph -->\n<p>Rest</p>\n<!-- /wp:paragraph -->",
			"<!-- wp:paragraph -->\n<p>Intro</p>\n<!-- /wp:paragraph -->\n\n\n\n<!-- wp:paragraph -->\n<p>Rest</p>\n<!-- /wp:paragraph -->",
			"<!-- wp:paragraph -->\n<p>Intro</p>\n<!-- /wp:paragraph -->\n\n", true, nil},
		{"pages joined", "Page 1\n\n<!--nextpage-->\n\nPage 2<!--nextpage-->Page 3", "<p>Page 1</p>\n<p>Page 2</p>\n<p>Page 3</p>\n", "", false,
			map[string]int{lossNextPage: 2}},
		{"the block editor's page break", "<!-- wp:paragraph --><p>1</p><!-- /wp:paragraph -->\n<!-- wp:nextpage -->\n<!--nextpage-->\n<!-- /wp:nextpage -->\n<!-- wp:paragraph --><p>2</p><!-- /wp:paragraph -->",
			"<!-- wp:paragraph --><p>1</p><!-- /wp:paragraph -->\n\n\n\n<!-- wp:paragraph --><p>2</p><!-- /wp:paragraph -->", "", false, map[string]int{lossNextPage: 1}},
		{"a teaser's losses are counted once", "[gallery ids=\"99\"]\n<!--more-->\nrest", "<p>rest</p>\n", "", true,
			map[string]int{lossGalleryImage: 1, lossEmptyGallery: 1}},
		{"no mark", "Just text", "<p>Just text</p>\n", "", false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, ok := w.body(tc.in, "7")
			if !ok {
				t.Fatal("too large")
			}
			if tc.losses == nil {
				tc.losses = map[string]int{}
			}
			if b.html != tc.html || b.teaser != tc.teaser || b.more != tc.more || !maps.Equal(b.losses, tc.losses) {
				t.Fatalf("got %q %q %v %v\nwant %q %q %v %v", b.html, b.teaser, b.more, b.losses, tc.html, tc.teaser, tc.more, tc.losses)
			}
		})
	}
}

// TestContentPreparationIsLinear feeds the shortcode reader and autop the
// inputs that would make a naive reader search the rest of the content
// from every bracket or tag: each must take about as long as reading it
// (a quadratic reading of 256 KiB takes minutes). It counts the CPU time
// of the test process (cpuTime), so a machine busy with other work does not
// make it fail.
func TestContentPreparationIsLinear(t *testing.T) {
	w := &wxrExport{media: *testMedia(), unknown: map[string]bool{}}
	const n = 256 << 10
	for name, in := range map[string]string{
		"brackets never closed":      strings.Repeat("[a ", n/3),
		"captions never closed":      strings.Repeat("[caption]x", n/10),
		"code never closed":          strings.Repeat("<code>", n/6),
		"links never closed":         strings.Repeat("<a><abbr>", n/9),
		"comments never closed":      "<!--" + strings.Repeat("<!-- ", n/5),
		"many names":                 strings.Repeat("[a1 ][a2 ][a3 ][a4 ]", n/20),
		"svg and no math":            strings.Repeat("<svg>\n</svg>", n/12),
		"spaces after a break":       "a<br />" + strings.Repeat(" ", n) + "\nb",
		"many pre":                   strings.Repeat("<pre>x</pre>", n/12),
		"galleries of few media":     strings.Repeat("[gallery]", n/9/50),
		"paragraphs of shortcodes":   strings.Repeat("<p>[gallery ids=\"99\"]</p>", n/25),
		"paragraphs never closed":    strings.Repeat("<p>", n/3),
		"embed blocks without a URL": strings.Repeat(`<figure class="wp-block-embed">`, n/31) + "</figure>",
	} {
		start := cpuTime()
		if _, ok := w.body(in, "7"); !ok && name != "galleries of few media" {
			t.Errorf("%s: too large", name)
		}
		d := cpuTime() - start
		t.Logf("%s: %v", name, d)
		if d > 10*time.Second {
			t.Errorf("%s: %v for 256 KiB", name, d)
		}
	}
}

func TestGalleriesCannotBlowUpTheContent(t *testing.T) {
	m := &wxrMedia{byID: map[string]*wxrAttachment{}, children: map[string][]*wxrAttachment{}}
	for i := range 1000 {
		a := &wxrAttachment{id: strconv.Itoa(100 + i), parent: "7", url: "https://old.example/" + strconv.Itoa(i) + ".jpg"}
		m.byID[a.id] = a
		m.children["7"] = append(m.children["7"], a)
	}
	if _, ok := expandShortcodes(strings.Repeat("[gallery]", 1000), "7", m, map[string]int{}, map[string]bool{}); ok {
		t.Fatal("a thousand galleries of a thousand images expanded")
	}
}

func TestWXRTitlesAreText(t *testing.T) {
	for in, want := range map[string]string{
		"Markup: Title <em>With</em> <b>Mark<sup>up</sup></b>": "Markup: Title With Markup",
		"Tom &amp; Jerry":  "Tom & Jerry",
		"5 &lt; 6":         "5 < 6",
		"a < b & c > d":    "a < b & c > d",
		"  Plain title  ":  "Plain title",
		"Special ~`!@#$%^": "Special ~`!@#$%^",
	} {
		if got := wxrTitle(in); got != want {
			t.Errorf("wxrTitle(%q) = %q, want %q", in, got, want)
		}
	}
}
