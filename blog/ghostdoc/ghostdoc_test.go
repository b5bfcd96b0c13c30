package ghostdoc

import (
	"maps"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func h(s string) Block  { return Block{HTML: s} }
func md(s string) Block { return Block{Markdown: s} }

// mobiledocs are Mobiledoc's cases, and FuzzDocuments' seeds.
var mobiledocs = []struct {
	name, src   string
	blocks      []Block
	paywall     int
	membersOnly int
	losses      map[string]int
}{
	{"markdown cards only", `{"version":"0.3.1","atoms":[],"markups":[],"cards":[["markdown",{"markdown":"# Hi\n\n*there*\n"}],["card-markdown",{"cardName":"card-markdown","markdown":"more"}]],"sections":[[10,0],[1,"p",[]],[10,1]]}`,
		[]Block{md("# Hi\n\n*there*\n"), md("more")}, -1, 0, nil},
	{"text sections with markups and atoms", `{"version":"0.3.1","atoms":[["soft-return","",{}]],"cards":[],
		"markups":[["strong"],["a",["href","https://example.org/?a=1&b=2","rel","noopener","title","T"]],["em"],["u"],["code"]],
		"sections":[[1,"p",[[0,[],0,"Plain <text> & "],[0,[0],1,"bold"],[0,[],0," "],[0,[1,2],2,"linked em"],[1,[],0,0],[0,[3],1,"under"],[0,[4],1,"x<y"]]],
		[1,"h2",[[0,[],0,"Title"]]],[1,"blockquote",[[0,[],0,"Quoted"]]],[1,"aside",[[0,[],0,"Aside"]]],[1,"H3",[[0,[],0,"Upper"]]]]}`,
		[]Block{h(`<p>Plain &lt;text&gt; &amp; <strong>bold</strong> <a href="https://example.org/?a=1&amp;b=2" title="T"><em>linked em</em></a><br>under<code>x&lt;y</code></p>`),
			h("<h2>Title</h2>"), h("<blockquote><p>Quoted</p></blockquote>"), h("<blockquote><p>Aside</p></blockquote>"), h("<h3>Upper</h3>")}, -1, 0, nil},
	{"lists and an image section", `{"version":"0.3.1","markups":[["b"]],"atoms":[],"cards":[],"sections":[[3,"ul",[[[0,[],0,"one"]],[[0,[0],1,"two"]],[]]],[3,"ol",[[[0,[],0,"first"]]]],[2,"/content/images/a.png"]]}`,
		[]Block{h("<ul><li>one</li><li><strong>two</strong></li></ul>"), h("<ol><li>first</li></ol>"), h(`<p><img src="/content/images/a.png" alt=""></p>`)}, -1, 0, nil},
	{"mobiledoc 0.2", `{"version":"0.2.0","sections":[[["strong"]],[[1,"p",[[[0],1,"bold"],[[],0," plain"]]],[10,"markdown",{"markdown":"md"}]]]}`,
		[]Block{h("<p><strong>bold</strong> plain</p>"), md("md")}, -1, 0, nil},
	{"cards", `{"version":"0.3.1","atoms":[],"markups":[],"sections":[[10,0],[10,1],[10,2],[10,3],[10,4],[10,5],[10,6],[10,7],[10,8],[10,9],[10,10],[10,11],[10,12],[10,13],[10,14],[10,15]],"cards":[
		["image",{"src":"__GHOST_URL__/content/images/desk.jpg","alt":"A \"desk\"","caption":"My <b>desk</b>","cardWidth":"wide","href":"https://example.org/"}],
		["gallery",{"images":[{"fileName":"a.jpg","row":0,"width":10,"height":10,"src":"/a.jpg","alt":"A"},{"fileName":"b.jpg","row":0,"width":10,"height":10,"src":"/b.jpg","caption":"Bee"}],"caption":"Two"}],
		["code",{"code":"if a < b {\n}\n","language":"go","caption":"Go"}],
		["embed",{"url":"https://www.youtube.com/watch?v=x","type":"video","html":"<iframe src=\"https://www.youtube.com/embed/x\"></iframe>","metadata":{"title":"A video"},"caption":"Watch"}],
		["bookmark",{"url":"https://example.org/post","metadata":{"url":"https://example.org/post","title":"A post","description":"About it"}}],
		["hr",{}],
		["html",{"html":"<table><tr><td>1</td></tr></table>"}],
		["callout",{"calloutEmoji":"💡","calloutText":"Look <em>here</em>","backgroundColor":"grey"}],
		["toggle",{"heading":"Question?","content":"<p>Answer.</p>"}],
		["button",{"alignment":"center","buttonText":"Subscribe","buttonUrl":"https://example.org/#/portal"}],
		["video",{"src":"/content/media/v.mp4","fileName":"v.mp4","caption":"A film"}],
		["audio",{"src":"/content/media/a.mp3","title":"Episode 1"}],
		["file",{"src":"/content/files/f.pdf","fileTitle":"The report","fileCaption":"PDF, 2 pages","fileName":"f.pdf"}],
		["header",{"size":"small","style":"dark","header":"Big news","subheader":"Read on","buttonEnabled":true,"buttonUrl":"/news/","buttonText":"More"}],
		["paywall",{}],
		["email",{"html":"<p>Only in the email</p>"}]]}`,
		[]Block{
			h(`<p><a href="https://example.org/"><img src="__GHOST_URL__/content/images/desk.jpg" alt="A &#34;desk&#34;"></a></p><p><em>My <b>desk</b></em></p>`),
			h(`<p><img src="/a.jpg" alt="A"></p><p><img src="/b.jpg" alt=""></p><p><em>Bee</em></p><p><em>Two</em></p>`),
			h("<pre><code class=\"language-go\">if a &lt; b {\n}\n</code></pre><p><em>Go</em></p>"),
			h(`<p><a href="https://www.youtube.com/watch?v=x">A video</a></p><p><em>Watch</em></p>`),
			h(`<p><a href="https://example.org/post">A post</a></p>`),
			h("<hr>"),
			h("<table><tr><td>1</td></tr></table>"),
			h("<blockquote><p>💡 Look <em>here</em></p></blockquote>"),
			h("<p><strong>Question?</strong></p><p>Answer.</p>"),
			h(`<p><a href="https://example.org/#/portal">Subscribe</a></p>`),
			h(`<p><a href="/content/media/v.mp4">v.mp4</a></p><p><em>A film</em></p>`),
			h(`<p><a href="/content/media/a.mp3">Episode 1</a></p>`),
			h(`<p><a href="/content/files/f.pdf">The report</a></p><p>PDF, 2 pages</p>`),
			h(`<h2>Big news</h2><p>Read on</p><p><a href="/news/">More</a></p>`),
		}, 14, 0, map[string]int{LossEmailOnly: 1}},
	{"unknown cards and sections", `{"version":"0.3.1","markups":[],"atoms":[["mention","@jo",{}]],"sections":[[10,0],[10,1],[10,2],[7,"x"],"nonsense",[10,99],[1,"p",[[1,[],0,0]]]],"cards":[
		["signup",{"header":"Join","buttonText":"Subscribe"}],["poll",{"title":"Cats or dogs?","html":"<p>Vote</p>"}],["transistor",{}]]}`,
		[]Block{h("<p>Vote</p><p>Cats or dogs?</p>"), h("<p>@jo</p>")}, -1, 0,
		map[string]int{`Ghost card "signup" left out`: 1, `Ghost card "poll": only its text kept`: 1, `Ghost card "transistor" left out`: 1, LossUnknownPart: 3}},
	{"members-only and email-only cards", `{"version":"0.3.1","markups":[],"atoms":[],"sections":[[10,0],[10,1],[10,2],[10,3]],"cards":[
		["html",{"html":"<p>Members</p>","visibility":{"web":{"nonMember":false,"memberSegment":"status:free,status:-free"},"email":{"memberSegment":"status:free,status:-free"}}}],
		["html",{"html":"<p>Email</p>","visibility":{"web":{"nonMember":false,"memberSegment":""},"email":{"memberSegment":"status:-free"}}}],
		["html",{"html":"<p>Old email-only</p>","visibility":{"emailOnly":true}}],
		["html",{"html":"<p>Everyone but paid</p>","visibility":{"web":{"nonMember":true,"memberSegment":"status:free"}}}]]}`,
		[]Block{h("<p>Members</p>"), h("<p>Everyone but paid</p>")}, -1, 1, map[string]int{LossEmailOnly: 2}},
}

func TestMobiledocBecomesBlocks(t *testing.T) {
	for _, tt := range mobiledocs {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Mobiledoc([]byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			check(t, d, tt.blocks, tt.paywall, tt.membersOnly, tt.losses)
		})
	}
}

// lexicals are Lexical's cases, and FuzzDocuments' seeds too.
var lexicals = []struct {
	name, src   string
	blocks      []Block
	paywall     int
	membersOnly int
	losses      map[string]int
}{
	{"text", `{"root":{"type":"root","version":1,"children":[
		{"type":"paragraph","children":[{"type":"extended-text","text":"Plain <b> ","format":0},{"type":"extended-text","text":"bold","format":1},{"type":"text","text":" both","format":3},{"type":"linebreak"},{"type":"text","text":"code","format":16},{"type":"text","text":"gone","format":4},{"type":"text","text":"under","format":8}]},
		{"type":"paragraph","children":[]},
		{"type":"extended-heading","tag":"h3","children":[{"type":"text","text":"Head"}]},
		{"type":"heading","tag":"h9","children":[{"type":"text","text":"Bad tag"}]},
		{"type":"extended-quote","children":[{"type":"text","text":"Quote"}]},
		{"type":"aside","children":[{"type":"text","text":"Aside"}]},
		{"type":"paragraph","children":[{"type":"link","url":"https://example.org/?a&b","title":"T","children":[{"type":"text","text":"link","format":2}]},{"type":"tab"},{"type":"zwnj"},{"type":"at-link","children":[{"type":"text","text":"@me"}]}]}]}}`,
		[]Block{h(`<p>Plain &lt;b&gt; <strong>bold</strong><strong><em> both</em></strong><br><code>code</code><s>gone</s>under</p>`),
			h("<h3>Head</h3>"), h("<h2>Bad tag</h2>"), h("<blockquote><p>Quote</p></blockquote>"), h("<blockquote><p>Aside</p></blockquote>"),
			h(`<p><a href="https://example.org/?a&amp;b" title="T"><em>link</em></a> @me</p>`)}, -1, 0, nil},
	{"lists", `{"root":{"type":"root","children":[
		{"type":"list","listType":"bullet","tag":"ul","start":1,"children":[
			{"type":"listitem","value":1,"children":[{"type":"text","text":"one"}]},
			{"type":"listitem","value":2,"children":[{"type":"list","listType":"bullet","tag":"ul","children":[{"type":"listitem","children":[{"type":"text","text":"nested"}]}]}]},
			{"type":"listitem","value":3,"children":[{"type":"text","text":"two"}]}]},
		{"type":"list","listType":"number","tag":"ol","start":3,"children":[{"type":"listitem","children":[{"type":"text","text":"third"}]}]}]}}`,
		[]Block{h("<ul><li>one<ul><li>nested</li></ul></li><li>two</li></ul>"), h(`<ol start="3"><li>third</li></ol>`)}, -1, 0, nil},
	{"cards", `{"root":{"type":"root","children":[
		{"type":"image","version":1,"src":"__GHOST_URL__/content/images/x.jpg","width":800,"height":600,"title":"","alt":"X","caption":"<span style=\"white-space: pre-wrap;\">Cap</span>","cardWidth":"regular","href":""},
		{"type":"codeblock","version":1,"code":"echo hi","language":"bash","caption":""},
		{"type":"code","language":"js","children":[{"type":"code-highlight","text":"let a"},{"type":"linebreak"},{"type":"tab"},{"type":"code-highlight","text":"= 1"}]},
		{"type":"horizontalrule","version":1},
		{"type":"embed","version":1,"url":"https://x.example/status/1","embedType":"twitter","html":"<blockquote>tweet</blockquote>","metadata":{"title":"A tweet"},"caption":""},
		{"type":"bookmark","version":1,"url":"https://example.org","metadata":{"icon":"","title":"Example","description":"","author":"","publisher":"","thumbnail":""},"caption":"See"},
		{"type":"markdown","version":1,"markdown":"**as written**"},
		{"type":"html","version":1,"html":"<div>raw</div>","visibility":{"web":{"nonMember":true,"memberSegment":"status:free,status:-free"},"email":{"memberSegment":"status:free,status:-free"}}},
		{"type":"paywall","version":1},
		{"type":"callout","version":1,"calloutText":"<p dir=\"ltr\"><span>Note</span></p>","calloutEmoji":"⚠️","backgroundColor":"yellow"},
		{"type":"call-to-action","version":1,"textValue":"<p>Join us</p>","showButton":true,"buttonText":"Join","buttonUrl":"/join/","imageUrl":""},
		{"type":"email-cta","version":1,"html":"<p>Email readers</p>"},
		{"type":"signup","version":1,"header":"Sign up"}]}}`,
		[]Block{h(`<p><img src="__GHOST_URL__/content/images/x.jpg" alt="X"></p><p><em><span style="white-space: pre-wrap;">Cap</span></em></p>`),
			h(`<pre><code class="language-bash">echo hi</code></pre>`), h("<pre><code class=\"language-js\">let a\n\t= 1</code></pre>"), h("<hr>"),
			h(`<p><a href="https://x.example/status/1">A tweet</a></p>`), h(`<p><a href="https://example.org">Example</a></p><p><em>See</em></p>`),
			md("**as written**"), h("<div>raw</div>"),
			h(`<blockquote><p dir="ltr">⚠️ <span>Note</span></p></blockquote>`), h(`<p>Join us</p><p><a href="/join/">Join</a></p>`)},
		8, 0, map[string]int{LossEmailOnly: 1, `Ghost card "signup" left out`: 1}},
	{"oddities", `{"root":{"children":[5,{"type":""},{"type":"table","children":[{"type":"tablerow","children":[{"type":"text","text":"cell"}]}]},{"type":"text","text":"stray"},{"type":"paragraph","children":[{"type":"mystery"}]}]}}`,
		[]Block{h("<p>cell</p>"), h("<p>stray</p>")}, -1, 0, map[string]int{LossUnknownPart: 3}},
}

func TestLexicalBecomesBlocks(t *testing.T) {
	for _, tt := range lexicals {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Lexical([]byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			check(t, d, tt.blocks, tt.paywall, tt.membersOnly, tt.losses)
		})
	}
}

func check(t *testing.T, d *Doc, blocks []Block, paywall, membersOnly int, losses map[string]int) {
	t.Helper()
	if !reflect.DeepEqual(d.Blocks, blocks) {
		t.Errorf("blocks\n got %q\nwant %q", d.Blocks, blocks)
	}
	if d.Paywall != paywall || d.MembersOnly != membersOnly {
		t.Errorf("paywall %d members-only %d, want %d %d", d.Paywall, d.MembersOnly, paywall, membersOnly)
	}
	if !maps.Equal(d.Losses, losses) {
		t.Errorf("losses %v, want %v", d.Losses, losses)
	}
}

func TestMarkdownOnly(t *testing.T) {
	for _, tt := range []struct {
		name string
		doc  Doc
		want bool
	}{
		{"markdown blocks", Doc{Blocks: []Block{md("a"), md("b")}}, true},
		{"empty", Doc{}, false},
		{"with html", Doc{Blocks: []Block{md("a"), h("<p>b</p>")}}, false},
		{"with a loss", Doc{Blocks: []Block{md("a")}, Losses: map[string]int{LossEmailOnly: 1}}, false},
	} {
		if got := tt.doc.MarkdownOnly(); got != tt.want {
			t.Errorf("%s: MarkdownOnly %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestDocumentsOfTheWrongShapeAreErrors(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		lexical   bool
		want      string
	}{
		{"mobiledoc not JSON", `{"sections": [`, false, "the Mobiledoc document is not a JSON object"},
		{"mobiledoc an array", `[]`, false, "the Mobiledoc document is not a JSON object"},
		{"mobiledoc without sections", `{"version":"0.3.1","sections":{}}`, false, "the Mobiledoc document has no list of sections"},
		{"lexical not JSON", `nope`, true, "the Lexical document is not a JSON object"},
		{"lexical without root", `{"root": []}`, true, "the Lexical document has no root node"},
	} {
		read := Mobiledoc
		if tt.lexical {
			read = Lexical
		}
		if _, err := read([]byte(tt.src)); err == nil || err.Error() != tt.want {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestDeepNestingIsBounded(t *testing.T) {
	src := `{"root":{"children":[{"type":"paragraph","children":[` + strings.Repeat(`{"type":"link","url":"/","children":[`, 100) +
		`{"type":"text","text":"deep"}` + strings.Repeat(`]}`, 100) + `]}]}}`
	d, err := Lexical([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if d.Losses[LossNestedTooDeep] != 1 || strings.Contains(d.Blocks[0].HTML, "deep") || strings.Count(d.Blocks[0].HTML, "<a ") != maxDepth {
		t.Fatalf("losses %v, blocks %q", d.Losses, d.Blocks)
	}
}

// FuzzDocuments: any text read as Mobiledoc and as Lexical never panics,
// gives a document or an error (never both), the same twice; each block
// is Markdown or HTML and not blank; the paywall is -1 or within the
// blocks; every loss is counted at least once; valid UTF-8 in gives valid
// UTF-8 out.
func FuzzDocuments(f *testing.F) {
	for _, c := range mobiledocs {
		f.Add(c.src)
	}
	for _, c := range lexicals {
		f.Add(c.src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, read := range []func([]byte) (*Doc, error){Mobiledoc, Lexical} {
			d, err := read([]byte(src))
			again, errAgain := read([]byte(src))
			if (d == nil) == (err == nil) || !reflect.DeepEqual(d, again) || (err == nil) != (errAgain == nil) {
				t.Fatalf("doc %v err %v, again %v %v", d, err, again, errAgain)
			}
			if d == nil {
				continue
			}
			for _, b := range d.Blocks {
				if (b.HTML == "") == (b.Markdown == "") || strings.TrimSpace(b.HTML+b.Markdown) == "" {
					t.Fatalf("block %q", b)
				}
				if utf8.ValidString(src) && !utf8.ValidString(b.HTML+b.Markdown) {
					t.Fatalf("invalid UTF-8 in block %q", b)
				}
			}
			if d.Paywall < -1 || d.Paywall > len(d.Blocks) || d.MembersOnly < 0 {
				t.Fatalf("paywall %d of %d blocks, members-only %d", d.Paywall, len(d.Blocks), d.MembersOnly)
			}
			for k, n := range d.Losses {
				if n < 1 || k == "" {
					t.Fatalf("loss %q counted %d times", k, n)
				}
			}
		}
	})
}
