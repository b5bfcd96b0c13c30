package blog

import (
	"reflect"
	"testing"

	"folio/blog/htmltomd"
)

// TestGhostContentComesFromTheBestSource holds the order in which a
// Ghost post's forms of content are used (docs/export-import.md#ghost).
func TestGhostContentComesFromTheBestSource(t *testing.T) {
	s := func(v string) *string { return &v }
	mdOnly := `{"version":"0.3.1","markups":[],"atoms":[],"cards":[["markdown",{"markdown":"*as* written\n"}]],"sections":[[10,0]]}`
	mixed := `{"version":"0.3.1","markups":[["strong"]],"atoms":[],"cards":[["hr",{}],["email",{"html":"x"}]],"sections":[[1,"p",[[0,[0],1,"from the doc"]]],[10,0],[10,1]]}`
	lexical := `{"root":{"children":[{"type":"paragraph","children":[{"type":"text","text":"lexical","format":2}]}]}}`
	paywalled := `{"version":"0.3.1","markups":[],"atoms":[],"cards":[["paywall",{}]],"sections":[[1,"p",[[0,[],0,"free"]]],[10,0],[1,"p",[[0,[],0,"paid"]]]]}`
	gatedLexical := `{"root":{"children":[{"type":"html","html":"<p>members</p>","visibility":{"web":{"nonMember":false,"memberSegment":"status:-free"}}}]}}`
	loss := func(kinds ...string) []htmltomd.Loss {
		var l []htmltomd.Loss
		for _, k := range kinds {
			l = append(l, htmltomd.Loss{Kind: k, Count: 1})
		}
		return l
	}
	tests := []struct {
		name string
		post ghostPost
		want ghostBody
	}{
		{"0.x Markdown before its HTML", ghostPost{Markdown: s("# Hi __GHOST_URL__/x"), HTML: s("<p>other</p>")}, ghostBody{Markdown: "# Hi /x\n"}},
		{"blank Markdown: the HTML", ghostPost{Markdown: s(" \n"), HTML: s("<p>html</p>")}, ghostBody{Markdown: "html\n"}},
		{"Markdown cards before the HTML", ghostPost{Mobiledoc: s(mdOnly), HTML: s("<p><em>as</em> rendered</p>")}, ghostBody{Markdown: "*as* written\n"}},
		{"other cards: the HTML", ghostPost{Mobiledoc: s(mixed), HTML: s("<p>the <b>html</b></p>")}, ghostBody{Markdown: "the **html**\n"}},
		{"no HTML: the Mobiledoc", ghostPost{Mobiledoc: s(mixed), HTML: s("")},
			ghostBody{Markdown: "**from the doc**\n\n---\n", Losses: loss("Ghost card shown only in emails left out")}},
		{"no HTML: the Lexical document", ghostPost{Lexical: s(lexical), Plaintext: s("lexical")}, ghostBody{Markdown: "*lexical*\n"}},
		{"the paywall in HTML makes the teaser", ghostPost{HTML: s("<p>free</p><!--members-only--><p>paid</p>")},
			ghostBody{Markdown: "free\n\npaid\n", Teaser: "free\n"}},
		{"the paywall card makes the teaser", ghostPost{Mobiledoc: s(paywalled)}, ghostBody{Markdown: "free\n\npaid\n", Teaser: "free\n"}},
		{"a members-only block in HTML", ghostPost{HTML: s(`<p>all</p><!--kg-gated-block:begin nonMember:false memberSegment:"status:-free" --><p>paid</p><!--kg-gated-block:end-->`)},
			ghostBody{Markdown: "all\n\npaid\n", MembersOnly: 1}},
		{"a members-only card said by the document", ghostPost{Lexical: s(gatedLexical), HTML: s("<p>members</p>")},
			ghostBody{Markdown: "members\n", MembersOnly: 1}},
		{"unreadable document with HTML: the HTML", ghostPost{Mobiledoc: s("{oops"), HTML: s("<p>html</p>")}, ghostBody{Markdown: "html\n"}},
		{"unreadable document: the plain text", ghostPost{Lexical: s(`{"root": 1}`), Plaintext: s("a *b*")},
			ghostBody{Markdown: "a \\*b\\*\n", Losses: loss("its Ghost Lexical document could not be read: the Lexical document has no root node",
				"no HTML in the Ghost export; imported its plain text")}},
		{"unreadable document and nothing else", ghostPost{Mobiledoc: s("[]")},
			ghostBody{Losses: loss("its Ghost Mobiledoc could not be read: the Mobiledoc document is not a JSON object", "no content left to import of the Ghost post")}},
		{"nothing at all", ghostPost{}, ghostBody{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ghostContent(tt.post); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestJoinMarkdownTrimsBlankLinesAroundParts(t *testing.T) {
	for _, tt := range []struct {
		parts []string
		want  string
	}{
		{[]string{"a"}, "a\n"},
		{[]string{"\n\n  \n    code\n", "b  \n\n"}, "    code\n\nb\n"},
		{[]string{"", " \n", ""}, ""},
		{[]string{"x\r\n\r\n", "y"}, "x\n\ny\n"},
	} {
		if got := joinMarkdown(tt.parts...); got != tt.want {
			t.Errorf("joinMarkdown(%q) = %q, want %q", tt.parts, got, tt.want)
		}
	}
}
