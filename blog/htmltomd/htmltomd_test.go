package htmltomd

import (
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// conversions are the converter's cases, and FuzzConvert's seeds.
var conversions = []struct {
	name, html, want string
	notes            []string
}{
	{"paragraphs", "<p>One</p><p>Two\n  words</p>", "One\n\nTwo words\n", nil},
	{"bare text", "just text", "just text\n", nil},
	{"line break", "<p>a<br>b<br/>c</p>", "a\\\nb\\\nc\n", nil},
	{"headings", "<h1>T</h1><h3>Sub #1</h3>", "# T\n\n### Sub \\#1\n", nil},
	{"emphasis", "<p><strong>b</strong> <b> c </b> <em>e</em><i>i</i> <del>d</del></p>", "**b** **c** *e**i* ~~d~~\n", nil},
	{"link", `<a href="https://x.example/a b" title="T">the "x"</a>`, "[the \"x\"](https://x.example/a%20b \"T\")\n", nil},
	{"link without text", `<a href="/p"></a>`, "[/p](/p)\n", nil},
	{"image", `<img src="/i.png" alt="An [image]">`, "![An \\[image\\]](/i.png)\n", nil},
	{"lists nested", "<ul><li>a<ul><li>b</li></ul></li><li>c</li></ul>", "- a\n  - b\n- c\n", nil},
	{"ordered from 3", `<ol start="3"><li>x</li><li>y</li></ol>`, "3. x\n4. y\n", nil},
	{"unclosed items", "<ul><li>a<li>b</ul>", "- a\n- b\n", nil},
	{"blockquote", "<blockquote><p>q1</p><p>q2</p></blockquote>", "> q1\n>\n> q2\n", nil},
	{"inline code", "<p>run <code>a `b` c</code></p>", "run ``a `b` c``\n", nil},
	{"code block", "<pre><code class=\"language-go\">x := 1\n\nfmt.Println(x)</code></pre>", "```go\nx := 1\n\nfmt.Println(x)\n```\n", nil},
	{"fence longer than content", "<pre>```\nx\n```</pre>", "````\n```\nx\n```\n````\n", nil},
	{"rule", "<p>a</p><hr><p>b</p>", "a\n\n---\n\nb\n", nil},
	{"markdown characters escaped", "<p>*not em* _x_ [y] &lt;b&gt; a|b ~z~ `c`</p>", "\\*not em\\* \\_x\\_ \\[y\\] \\<b\\> a\\|b \\~z\\~ \\`c\\`\n", nil},
	{"line starts escaped", "<p># no</p><p>- no</p><p>1. no</p><p>+ no</p>", "\\# no\n\n\\- no\n\n1\\. no\n\n\\+ no\n", nil},
	{"no table from a line of text", "<p>a<br>:--<br>:-: b</p>", "a\\\n\\:--\\\n\\:-: b\n", nil},
	{"entities", "<p>Tom &amp; Jerry &copy; &amp;lt;</p>", "Tom & Jerry © \\&lt;\n", nil},
	{"image figure", `<figure class="kg-card"><img src="/d.jpg" alt="Desk"><figcaption>My desk</figcaption></figure>`, "![Desk](/d.jpg)\n\n*My desk*\n", nil},
	{"table", "<table><tr><td>1</td></tr>\n\n<tr><td>2</td></tr></table>", "| 1 |\n| --- |\n| 2 |\n", nil},
	{"iframe as a link", `<p>x</p><iframe src="https://v.example/e" onload="bad()"></iframe>`,
		"x\n\n[https://v.example/e](https://v.example/e)\n", []string{"embed kept as a link"}},
	{"script dropped", "<p>a</p><script>alert(1)</script><p>b<script>x</script></p>", "a\n\nb\n", []string{"script removed"}},
	{"style dropped", "<style>p{}</style>text", "text\n", []string{"style removed"}},
	{"comments dropped", "<!-- wp:paragraph --><p>x</p><!-- /wp:paragraph -->", "x\n", nil},
	{"unknown inline kept as text", "<p><span class=\"a\">in</span><u>u</u></p>", "inu\n", nil},
	{"stray end tags", "</div><p>x</b></p>", "x\n", nil},
	{"lone angle bracket", "<p>a < b</p>", "a \\< b\n", nil},
	{"empty", "", "", nil},
	{"two line breaks end a paragraph", "<p>a<br><br>b<br />\n<br/> <br>c<br>d</p>x<br><br>y", "a\n\nb\n\nc\\\nd\n\nx\n\ny\n", nil},
	{"line breaks inside an inline element", "<p><b>a<br><br>b</b></p>", "**a\\\nb**\n", nil},
	{"sup sub u mark give their text", "<p>x<sup>2</sup> H<sub>2</sub>O <u>u</u> <mark>m</mark></p>", "x2 H2O u m\n", nil},

	// Tables.
	{"table with a head, alignment and a caption", `<table><caption>Prices <em>now</em></caption><thead><tr><th align="left">Item</th>` +
		`<th style="color:red; text-align: center">Note</th><th class="has-text-align-right" data-align="right">Price</th></tr></thead>` +
		`<tbody><tr><td>Tea</td><td><a href="/t">see</a> <code>a|b</code></td><td>3</td></tr><tr><td>Cake &amp; pie | more</td></tr></tbody></table>`,
		"| Item | Note | Price |\n| :-- | :-: | --: |\n| Tea | [see](/t) `a\\|b` | 3 |\n| Cake & pie \\| more |\n\n*Prices *now**\n", nil},
	{"table without a head: the first row is the header", "<table><tr><td>a</td><td>b</td></tr><tr><td></td><td>d<br>e</td></tr><tr><td></td></tr></table>",
		"| a | b |\n| --- | --- |\n| | d e |\n", nil},
	{"table sections out of order", "<table><tfoot><tr><td>f</td></tr></tfoot><tbody><tr><td>b</td></tr><thead><tr><th>h</th></tr></table>",
		"| h |\n| --- |\n| b |\n| f |\n", nil},
	{"table cells with blocks flattened", "<table><tr><th>h</th><th>i</th></tr><tr><td><p>one</p><p>two</p></td><td><ul><li>x</li><li>y</li></ul></td></tr>" +
		"<tr><td><p>single</p></td><td><div><p>nested</p></div></td></tr></table>",
		"| h | i |\n| --- | --- |\n| one two | x y |\n| single | nested |\n", []string{lossCellFlattened}},
	{"merged cells split", `<table><tr><td rowspan="2">a</td><td>b</td><td>c</td></tr><tr><td>d</td><td>e</td></tr><tr><td colspan="2">f</td><td>g</td></tr></table>`,
		"| a | b | c |\n| --- | --- | --- |\n| | d | e |\n| f | | g |\n", []string{lossMergedCells}},
	{"table with an image and a nested table", `<table><tr><td><img src="/i.png" alt="I"></td><td><table><tr><td>in</td><td>ner</td></tr></table></td></tr></table>`,
		"| ![I](/i.png) | in ner |\n| --- | --- |\n", []string{lossCellFlattened}},
	{"text outside the cells comes first", "<table>loose<tr><td>a</td></tr></table>", "loose\n\n| a |\n| --- |\n", nil},
	{"table without rows", "<p>a</p><table></table><table><tr></tr></table><table><caption>Just a caption</caption></table>", "a\n\n*Just a caption*\n", nil},
	{"table inside a heading", "<h2>T <table><tr><td>a</td><td>b</td></tr></table></h2>", "## T a b\n", []string{lossInlineTable}},
	{"table of WordPress's table block", `<figure class="wp-block-table"><table class="has-fixed-layout"><tbody><tr><td>1</td><td>2</td></tr></tbody></table>` +
		`<figcaption class="wp-element-caption">Numbers</figcaption></figure>`, "| 1 | 2 |\n| --- | --- |\n\n*Numbers*\n", nil},

	{"table and code of Folio's own HTML: align classes, highlighted spans", `<table><thead><tr><th class="align-right">N</th>` +
		`<th class="align-center">M</th></tr></thead><tbody><tr><td class="align-right">1</td><td>2</td></tr></tbody></table>` +
		`<pre tabindex="0"><code class="language-go"><span class="hl-k">func</span> <span class="hl-f">f</span>()</code></pre>`,
		"| N | M |\n| --: | :-: |\n| 1 | 2 |\n\n```go\nfunc f()\n```\n", nil},

	// WordPress's blocks.
	{"image block with a link", `<figure class="wp-block-image size-large"><a href="/full.jpg"><img src="/s.jpg" alt="S" class="wp-image-9"/></a>` +
		`<figcaption class="wp-element-caption">A <em>view</em></figcaption></figure>`, "[![S](/s.jpg)](/full.jpg)\n\n*A *view**\n", nil},
	{"aligned image block", `<div class="wp-block-image"><figure class="aligncenter"><img src="/c.jpg" alt=""/></figure></div>`, "![](/c.jpg)\n", nil},
	{"gallery block (list of figures)", `<figure class="wp-block-gallery columns-2 is-cropped"><ul class="blocks-gallery-grid">` +
		`<li class="blocks-gallery-item"><figure><img src="/a.jpg" alt="A" data-id="1"/><figcaption class="blocks-gallery-item__caption">First</figcaption></figure></li>` +
		`<li class="blocks-gallery-item"><figure><a href="/b.jpg"><img src="/b-s.jpg" alt="B"/></a></figure></li></ul>` +
		`<figcaption class="blocks-gallery-caption">Our trip</figcaption></figure>`,
		"- ![A](/a.jpg)\\\n  *First*\n- [![B](/b-s.jpg)](/b.jpg)\n\n*Our trip*\n", nil},
	{"gallery block (figures of image blocks)", `<figure class="wp-block-gallery has-nested-images columns-default">` +
		`<figure class="wp-block-image size-large"><img src="/c.jpg" alt=""/><figcaption class="wp-element-caption">C</figcaption></figure>` +
		`<figure class="wp-block-image"><img src="/d.jpg" alt="D"/></figure></figure>`, "- ![](/c.jpg)\\\n  *C*\n- ![D](/d.jpg)\n", nil},
	{"classic gallery", `<div id="gallery-1" class="gallery galleryid-5"><dl class="gallery-item"><dt class="gallery-icon"><a href="/p/1"><img src="/g1.jpg" alt="G"></a></dt>` +
		`<dd class="wp-caption-text gallery-caption">One</dd></dl><dl class="gallery-item"><dt class="gallery-icon"><img src="/g2.jpg"></dt></dl></div>`,
		"- [![G](/g1.jpg)](/p/1)\\\n  *One*\n- ![](/g2.jpg)\n", nil},
	{"a div of class gallery without items is no gallery", `<div class="gallery"><p>Text</p><img src="/x.jpg"></div>`, "Text\n\n![](/x.jpg)\n", nil},
	{"quote block with its source", `<blockquote class="wp-block-quote"><p>To be.</p><cite>W. <a href="/ws">S.</a></cite></blockquote>`,
		"> To be.\n>\n> — W. [S.](/ws)\n", nil},
	{"pull quote block", `<figure class="wp-block-pullquote"><blockquote><p>Pull</p><cite>Someone</cite></blockquote></figure>`, "> Pull\n>\n> — Someone\n", nil},
	{"code and preformatted blocks", "<pre class=\"wp-block-code\"><code>&lt;?php echo 1; ?&gt;</code></pre><pre class=\"wp-block-preformatted\">a  b<br>c</pre>",
		"```\n<?php echo 1; ?>\n```\n\n```\na  b\nc\n```\n", nil},
	{"verse block", "<pre class=\"wp-block-verse\">Roses are red,\n  violets <em>blue</em>.\n\nAgain.</pre>", "Roses are red,\\\nviolets *blue*.\n\nAgain.\n", nil},
	{"embed block", `<figure class="wp-block-embed is-type-video is-provider-youtube wp-block-embed-youtube"><div class="wp-block-embed__wrapper">` +
		"\nhttps://www.youtube.com/watch?v=abc\n</div><figcaption>My talk</figcaption></figure>" +
		`<figure class="wp-block-embed"><div class="wp-block-embed__wrapper">https://example.org/a_b</div></figure>`,
		"[My talk](https://www.youtube.com/watch?v=abc)\n\n[https://example.org/a\\_b](https://example.org/a_b)\n", []string{lossEmbed}},
	{"embed block without an address", `<figure class="wp-block-embed"><div class="wp-block-embed__wrapper">not a link</div></figure>`, "not a link\n", nil},
	{"columns, group, cover, media and text, buttons, separator", `<div class="wp-block-columns"><div class="wp-block-column"><p>Left</p></div>` +
		`<div class="wp-block-column"><div class="wp-block-group"><div class="wp-block-group__inner-container"><p>Right</p></div></div></div></div>` +
		`<div class="wp-block-cover" style="background-image:url('/bg.jpg')"><div class="wp-block-cover__inner-container"><p>Over</p></div></div>` +
		`<div class="wp-block-media-text"><figure class="wp-block-media-text__media"><img src="/m.jpg" alt="M"/></figure><div class="wp-block-media-text__content"><p>Beside</p></div></div>` +
		`<div class="wp-block-buttons"><div class="wp-block-button"><a class="wp-block-button__link" href="/buy">Buy</a></div></div><hr class="wp-block-separator"/>`,
		"Left\n\nRight\n\n![](/bg.jpg)\n\nOver\n\n![M](/m.jpg)\n\nBeside\n\n[Buy](/buy)\n\n---\n", nil},
	{"file block", `<div class="wp-block-file"><object class="wp-block-file__embed" data="/doc.pdf" type="application/pdf"></object>` +
		`<a id="wp-block-file--media-1" href="/doc.pdf">The doc</a><a href="/doc.pdf" class="wp-block-file__button" download>Download</a></div>`, "[The doc](/doc.pdf)\n", nil},
	{"video and audio blocks", `<figure class="wp-block-video"><video controls src="/clip.mp4"></video><figcaption>A clip</figcaption></figure>` +
		`<figure class="wp-block-audio"><audio controls src="/song.mp3"></audio></figure>`, "[A clip](/clip.mp4)\n\n[song.mp3](/song.mp3)\n", []string{lossAudio, lossVideo}},
	{"classic caption", `<div class="wp-caption"><img src="/c.jpg" alt="C"><p class="wp-caption-text">Said</p></div>`, "![C](/c.jpg)\n\n*Said*\n", nil},

	// Ghost's cards.
	{"image card", `<figure class="kg-card kg-image-card kg-width-wide kg-card-hascaption"><img src="__GHOST_URL__/content/images/a.jpg" class="kg-image" alt="A" loading="lazy">` +
		`<figcaption><span style="white-space: pre-wrap;">Cap</span></figcaption></figure>`, "![A](__GHOST_URL__/content/images/a.jpg)\n\n*Cap*\n", nil},
	{"gallery card", `<figure class="kg-card kg-gallery-card kg-width-wide kg-card-hascaption"><div class="kg-gallery-container"><div class="kg-gallery-row">` +
		`<div class="kg-gallery-image"><img src="/1.jpg" width="6" height="4" loading="lazy" alt></div><div class="kg-gallery-image"><img src="/2.jpg" alt="Two"></div></div>` +
		`<div class="kg-gallery-row"><div class="kg-gallery-image"><img src="/3.jpg" alt=""></div></div></div><figcaption>All <b>three</b></figcaption></figure>`,
		"- ![](/1.jpg)\n- ![Two](/2.jpg)\n- ![](/3.jpg)\n\n*All **three***\n", nil},
	{"embed card", `<figure class="kg-card kg-embed-card kg-card-hascaption"><iframe width="200" height="113" src="https://v.example/embed/x?feature=oembed" ` +
		`frameborder="0" allowfullscreen title="A talk"></iframe><figcaption>The talk</figcaption></figure>` +
		`<figure class="kg-card kg-embed-card"><iframe src="https://v.example/embed/y" title="Another"></iframe></figure>`,
		"[The talk](https://v.example/embed/x?feature=oembed)\n\n[Another](https://v.example/embed/y)\n", []string{lossEmbed}},
	{"embed card of a post and its script", `<figure class="kg-card kg-embed-card"><blockquote class="twitter-tweet"><p>Hi</p>&mdash; A (@a) ` +
		`<a href="https://t.example/a/1">May 1</a></blockquote><script async src="https://t.example/w.js"></script></figure>`,
		"> Hi\n>\n> — A (@a) [May 1](https://t.example/a/1)\n", []string{lossScript}},
	{"bookmark card", `<figure class="kg-card kg-bookmark-card kg-card-hascaption"><a class="kg-bookmark-container" href="https://ex.example/post">` +
		`<div class="kg-bookmark-content"><div class="kg-bookmark-title">A *post*</div><div class="kg-bookmark-description">- about it</div>` +
		`<div class="kg-bookmark-metadata"><img class="kg-bookmark-icon" src="/i.png" alt=""><span class="kg-bookmark-author">Ex</span></div></div>` +
		`<div class="kg-bookmark-thumbnail"><img src="/t.jpg" alt=""></div></a><figcaption>Worth it</figcaption></figure>`,
		"[A \\*post\\*](https://ex.example/post)\\\n\\- about it\n\n*Worth it*\n", nil},
	{"callout card", `<div class="kg-card kg-callout-card kg-callout-card-grey"><div class="kg-callout-emoji">💡</div>` +
		`<div class="kg-callout-text">Mind <b>this</b><br>and that</div></div>`, "> 💡 Mind **this**\\\n> and that\n", nil},
	{"toggle card", `<div class="kg-card kg-toggle-card" data-kg-toggle-state="close"><div class="kg-toggle-heading"><h4 class="kg-toggle-heading-text">Why?</h4>` +
		`<button class="kg-toggle-card-icon"><svg viewBox="0 0 24 24"><path d="M0"></path></svg></button></div><div class="kg-toggle-content"><p>Because.</p></div></div>`,
		"**Why?**\n\nBecause.\n", nil},
	{"button card", `<div class="kg-card kg-button-card kg-align-center"><a href="https://ex.example/s" class="kg-btn kg-btn-accent">Subscribe</a></div>`,
		"[Subscribe](https://ex.example/s)\n", nil},
	{"video card", `<figure class="kg-card kg-video-card kg-card-hascaption"><div class="kg-video-container"><video src="/v.mp4" poster="/spacer.png" playsinline></video>` +
		`<div class="kg-video-overlay"><button class="kg-video-large-play-icon"><svg><path d="M1"/></svg></button></div><div class="kg-video-player-container">` +
		`<div class="kg-video-player"><span class="kg-video-current-time">0:00</span><div class="kg-video-time">/<span class="kg-video-duration">0:10</span></div>` +
		`<input type="range" class="kg-video-seek-slider" max="100" value="0"><button class="kg-video-playback-rate">1&#215;</button></div></div></div>` +
		`<figcaption>Our video</figcaption></figure>`, "[Our video](/v.mp4)\n", []string{lossVideo}},
	{"audio card", `<div class="kg-card kg-audio-card"><img src="" alt="audio-thumbnail" class="kg-audio-thumbnail kg-audio-hide"><div class="kg-audio-player-container">` +
		`<audio src="/a.mp3" preload="metadata"></audio><div class="kg-audio-title">Episode 1</div><div class="kg-audio-player"><button class="kg-audio-play-icon"><svg/></button>` +
		`<span class="kg-audio-current-time">0:00</span></div></div></div>`, "[Episode 1](/a.mp3)\n", []string{lossAudio}},
	{"file card", `<div class="kg-card kg-file-card"><a class="kg-file-card-container" href="/files/r.pdf" title="Download" download><div class="kg-file-card-contents">` +
		`<div class="kg-file-card-title">Report</div><div class="kg-file-card-caption">1. The report</div><div class="kg-file-card-metadata">` +
		`<div class="kg-file-card-filename">r.pdf</div><div class="kg-file-card-filesize">1 MB</div></div></div><div class="kg-file-card-icon"><svg><title>x</title></svg></div></a></div>` +
		`<div class="kg-card kg-file-card"><a class="kg-file-card-container" href="/files/s.zip"><div class="kg-file-card-title"></div><div class="kg-file-card-filename">s.zip</div></a></div>`,
		"[Report](/files/r.pdf)\\\n1\\. The report\n\n[s.zip](/files/s.zip)\n", nil},
	{"header card", `<div class="kg-card kg-header-card kg-v2"><picture><source srcset="/h.webp" type="image/webp"><img class="kg-header-card-image" src="/h.jpg" alt=""></picture>` +
		`<div class="kg-header-card-content"><div class="kg-header-card-text"><h2 class="kg-header-card-heading">Big news</h2>` +
		`<p class="kg-header-card-subheading">Read on</p><a href="/go" class="kg-header-card-button">Go</a></div></div></div>`,
		"![](/h.jpg)\n\n## Big news\n\nRead on\n\n[Go](/go)\n", nil},
	{"product card", `<div class="kg-card kg-product-card"><div class="kg-product-card-container"><img src="/p.jpg" class="kg-product-card-image">` +
		`<div class="kg-product-card-title-container"><h4 class="kg-product-card-title">Widget</h4></div><div class="kg-product-card-rating">` +
		`<span class="kg-product-card-rating-active kg-product-card-rating-star"><svg/></span><span class="kg-product-card-rating-active kg-product-card-rating-star"><svg/></span>` +
		`<span class=" kg-product-card-rating-star"><svg/></span></div><div class="kg-product-card-description"><p>Nice.</p></div>` +
		`<a href="/buy" class="kg-product-card-button"><span>Buy it</span></a></div></div>`,
		"![](/p.jpg)\n\n#### Widget\n\n★★☆\n\nNice.\n\n[Buy it](/buy)\n", nil},
	{"signup card", `<div class="kg-card kg-signup-card"><div class="kg-signup-card-text"><h2 class="kg-signup-card-heading">Sign up</h2>` +
		`<form class="kg-signup-card-form" data-members-form="signup"><input class="kg-signup-card-input" type="email" placeholder="Your email">` +
		`<button class="kg-signup-card-button" type="submit"><span>Subscribe</span></button><div class="kg-signup-card-success">Email sent!</div></form>` +
		`<p class="kg-signup-card-disclaimer">No spam.</p></div></div>`, "## Sign up\n\nNo spam.\n", []string{lossSignup}},

	// Elements without a Markdown form.
	{"video with sources", `<p>See <video controls><source src="/m/movie.webm" type="video/webm"><source src="/m/movie.mp4">Cannot play.</video> here</p>`,
		"See [movie.webm](/m/movie.webm) here\n", []string{lossVideo}},
	{"media without a file name or address", `<audio src="/a/b/" title="Talk  show"></audio><object data="/f.swf"></object>` +
		`<object><param name="movie" value="https://o.example/v/1"><embed src="https://o.example/v/1"></object><iframe src="about:blank"></iframe><video>Old browser</video>`,
		"[Talk show](/a/b/)[f.swf](/f.swf)[https://o.example/v/1](https://o.example/v/1)Old browser\n", []string{lossAudio, lossEmbed, lossNoAddress}},
	{"figure of a video alone", `<figure><div><video src="/v.mp4"></video></div><figcaption>Cap</figcaption></figure>`, "[Cap](/v.mp4)\n", []string{lossVideo}},
	{"figure of a video and more", `<figure><video src="/v.mp4"></video><p>Text</p><figcaption>Cap</figcaption></figure>`,
		"[v.mp4](/v.mp4)\n\nText\n\n*Cap*\n", []string{lossVideo}},
	{"figure of other content", `<figure><blockquote>Q</blockquote><figcaption>Who</figcaption></figure>`, "> Q\n\n*Who*\n", nil},
	{"details", "<details open><summary>More <i>info</i></summary><p>Hidden</p><p>Text</p></details>", "**More *info***\n\nHidden\n\nText\n", nil},
	{"definition list", "<dl><dt>Term</dt><dd>Its meaning</dd></dl>", "**Term**\n\nIts meaning\n", nil},
	{"form", `<form action="/x"><fieldset><legend>About you</legend><label>Name <input name="n"></label>` +
		`<select><option>Red</option><option>Blue</option></select><textarea>Hi</textarea><button>Send</button></fieldset></form>`,
		"About you\n\nName Red Blue Hi Send\n", []string{lossForm}},
	{"form controls outside a form", `<p>Pick <select><option>Red</option><option>Blue</option></select> or <button>Go</button> <input value="x"></p>`,
		"Pick Red Blue or Go\n", []string{lossControl}},
	{"drawings and formulas", `<p>A <svg><title>icon</title><text>Chart</text><style>.a{}</style></svg> and <canvas>Fallback</canvas> ` +
		`<math alttext="x^2"><mi>x</mi></math> <math><mi>y</mi><annotation encoding="TeX">y</annotation></math></p><svg><path d="M0"/></svg>`,
		"A Chart and Fallback x^2 y\n", []string{lossDrawing, lossMath}},
	{"image map", `<map name="m"><area href="/a" alt="A"><area href="/b"><area alt="none"></map>`, "[A](/a)[/b](/b)\n", nil},
}

func TestHTMLToMarkdownConvertsWhatMarkdownCanSay(t *testing.T) {
	for _, tt := range conversions {
		t.Run(tt.name, func(t *testing.T) {
			got, losses := Convert(tt.html)
			notes := kinds(losses)
			if got != tt.want {
				t.Errorf("Convert(%q)\n got %q\nwant %q", tt.html, got, tt.want)
			}
			if !slices.Equal(notes, tt.notes) {
				t.Errorf("notes %q, want %q", notes, tt.notes)
			}
		})
	}
}

// TestHTMLToMarkdownOfBlocksAndCards converts a post of WordPress's
// blocks and one of Ghost's cards, written the way the editors save them,
// into the Markdown beside them (testdata/import/html/*.md).
func TestHTMLToMarkdownOfBlocksAndCards(t *testing.T) {
	for _, tt := range []struct {
		name  string
		notes []string
	}{
		{"wordpress-blocks", []string{lossEmbed, lossVideo}},
		{"ghost-cards", []string{lossAudio, lossEmbed, lossSignup, lossVideo}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src, err := os.ReadFile("../../testdata/import/html/" + tt.name + ".html")
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile("../../testdata/import/html/" + tt.name + ".md")
			if err != nil {
				t.Fatal(err)
			}
			md, losses := Convert(string(src))
			if md != string(want) {
				t.Errorf("Markdown of %s.html\n%s\nwant\n%s", tt.name, md, want)
			}
			if got := kinds(losses); !slices.Equal(got, tt.notes) {
				t.Errorf("losses %q, want %q", got, tt.notes)
			}
		})
	}
}

// TestHTMLToMarkdownBoundsTables: spans and width cost a bounded number of
// empty cells, the columns stop at maxTableColumns (the rest joined into
// the last), so a table's Markdown stays within a few times its HTML.
func TestHTMLToMarkdownBoundsTables(t *testing.T) {
	for _, tt := range []struct{ name, html string }{
		{"row spans", "<table><tr>" + strings.Repeat("<td rowspan=99999>x", 80) + strings.Repeat("<tr><td>y", 2000) + "</table>"},
		{"column spans", "<table>" + strings.Repeat("<tr><td colspan=99999></td><td>x", 2000) + "</table>"},
		{"wide rows", "<table>" + strings.Repeat("<tr>"+strings.Repeat("<td>x", 100), 100) + "</table>"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			md, _ := Convert(tt.html)
			if len(md) > 6*len(tt.html) {
				t.Errorf("%d bytes of Markdown from %d of HTML", len(md), len(tt.html))
			}
			for _, l := range strings.Split(strings.TrimSpace(md), "\n") {
				if cells := strings.Count(l, "|") - 1; cells > maxTableColumns {
					t.Fatalf("a row of %d cells: %q", cells, l)
				}
			}
		})
	}
	md, losses := Convert("<table><tr>" + strings.Repeat("<td>a", maxTableColumns) + "<td>b<td>c</table>")
	if want := "| a b c |\n"; !strings.HasSuffix(strings.SplitN(md, "\n", 2)[0]+"\n", want) {
		t.Errorf("header row %q does not end in %q", strings.SplitN(md, "\n", 2)[0], want)
	}
	if !slices.Equal(kinds(losses), []string{lossWideTable}) {
		t.Errorf("losses %q", kinds(losses))
	}
}

func TestHTMLToTextKeepsParagraphsAndDropsMarkup(t *testing.T) {
	got := Text("<p>Lovely! <a href=\"x\">My trip</a></p>\n<p>Was  <b>similar</b>.<br>Bye</p><script>x</script>")
	if want := "Lovely! My trip\n\nWas  similar.\nBye"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestHTMLToMarkdownFlattensDeepNesting: lists and quotes deeper than
// maxNesting are flattened, so the Markdown cannot grow with the square of
// the HTML.
func TestHTMLToMarkdownFlattensDeepNesting(t *testing.T) {
	md, _ := Convert(strings.Repeat("<ul><li>a", 20))
	if n := strings.Count(md, "a"); n != 20 {
		t.Fatalf("%d items of 20 in %q", n, md)
	}
	for _, l := range strings.Split(md, "\n") {
		if indent := len(l) - len(strings.TrimLeft(l, " ")); indent > 2*maxNesting {
			t.Fatalf("line %q indented %d", l, indent)
		}
	}
	md, _ = Convert(strings.Repeat("<blockquote>", 20) + "q")
	if want := strings.Repeat("> ", maxNesting) + "q\n"; md != want {
		t.Fatalf("got %q, want %q", md, want)
	}
}

// FuzzConvert: any HTML converts, and the same way twice; the Markdown is
// empty or ends in a newline, is valid UTF-8 when the HTML is, stays
// within a bound linear in the size of the HTML, and has no line that
// Markdown would read as HTML; the losses are sorted, each said once,
// counted at least once, and each one of the converter's kinds; no element
// nests deeper than maxHTMLDepth; Text gives trimmed lines with at most one
// blank line between them. Rendering the Markdown safely, with no raw HTML
// in it, is the blog's FuzzHTMLToMarkdown.
func FuzzConvert(f *testing.F) {
	for _, c := range conversions {
		f.Add(c.html)
	}
	f.Add(strings.Repeat("<ol start=999999999><li><blockquote>", 12) + "<pre>a\n\nb</pre><table>\"\n<</table>")
	f.Add(strings.Repeat("<div>", maxHTMLDepth+5) + "<script>x</script><br>")
	f.Add("<p a='x' b=\"y\" c=z d e = f/ g/><x/y z=>t</p><!- -><!--x--><?x><a href=\"&#xD800;\">&#0;</a>")
	f.Add(strings.Repeat(`<pre class="wp-block-verse">a`+"\n\n", 20) + "<table><tr><td rowspan=40 colspan=70>x<tr><td>|`|`\\</table>")
	f.Add(`<figure class="wp-block-gallery"><figure><a href="x"><img src="y"></a><figcaption>*</figcaption></figure></figure><td>a<th>b`)
	f.Fuzz(func(t *testing.T, src string) {
		md, losses := Convert(src)
		again, lossesAgain := Convert(src)
		notes, notesAgain := kinds(losses), kinds(lossesAgain)
		if md != again || !slices.Equal(losses, lossesAgain) {
			t.Fatalf("two conversions differ: %q %q and %q %q", md, notes, again, notesAgain)
		}
		if md != "" && !strings.HasSuffix(md, "\n") {
			t.Fatalf("Markdown %q does not end in a newline", md)
		}
		for i, n := range notes {
			if losses[i].Count < 1 {
				t.Fatalf("loss %q counted %d times", n, losses[i].Count)
			}
			if i > 0 && notes[i-1] >= n {
				t.Fatalf("notes not sorted or repeated: %q", notes)
			}
			if !knownLosses[n] {
				t.Fatalf("unknown loss %q", n)
			}
		}
		if max := 32*len(src) + 64; len(md) > max {
			t.Fatalf("%d bytes of Markdown from %d of HTML (at most %d)", len(md), len(src), max)
		}
		if l, ok := htmlBlockLine(md); ok {
			t.Fatalf("line %q of %q would be read as HTML", l, md)
		}
		text := Text(src)
		if utf8.ValidString(src) && (!utf8.ValidString(md) || !utf8.ValidString(text)) {
			t.Fatalf("invalid UTF-8 out of valid UTF-8: %q, %q", md, text)
		}
		if strings.TrimSpace(text) != text || strings.Contains(text, "\n\n\n") {
			t.Fatalf("text %q: untrimmed, or more than one blank line", text)
		}
		for _, l := range strings.Split(text, "\n") {
			if strings.TrimSpace(l) != l {
				t.Fatalf("untrimmed line %q in text %q", l, text)
			}
		}
		if d := depth(parseHTML(src)) - 1; d > maxHTMLDepth { // the root is no element of the input
			t.Fatalf("elements nest %d deep", d)
		}
	})
}

// knownLosses are the kinds of loss Convert may report.
var knownLosses = map[string]bool{
	lossAudio: true, lossVideo: true, lossEmbed: true, lossNoAddress: true, lossCellFlattened: true,
	lossMergedCells: true, lossWideTable: true, lossInlineTable: true, lossForm: true, lossControl: true,
	lossSignup: true, lossDrawing: true, lossMath: true, lossScript: true, lossStyle: true,
}

// htmlBlockLine finds a line of Markdown that would start an HTML block
// (or raw HTML): one whose text, past the markers of the lists and quotes
// it is in, starts with '<'. Lines of fenced code are code.
func htmlBlockLine(md string) (string, bool) {
	fence := ""
	for _, l := range strings.Split(md, "\n") {
		body := l
		for {
			body = strings.TrimLeft(body, " ")
			digits := len(body) - len(strings.TrimLeft(body, "0123456789"))
			switch {
			case strings.HasPrefix(body, ">"):
				body = body[1:]
				continue
			case strings.HasPrefix(body, "- "):
				body = body[2:]
				continue
			case digits > 0 && strings.HasPrefix(body[digits:], ". "):
				body = body[digits+2:]
				continue
			}
			break
		}
		if fence != "" {
			if strings.TrimSpace(body) == fence {
				fence = ""
			}
			continue
		}
		if ticks := len(body) - len(strings.TrimLeft(body, "`")); ticks >= 3 && !strings.Contains(body[ticks:], "`") {
			fence = body[:ticks]
			continue
		}
		if strings.HasPrefix(body, "<") {
			return l, true
		}
	}
	return "", false
}

// depth counts the levels of elements of a tree, n's included.
func depth(n *htmlNode) int {
	d := 0
	for _, k := range n.kids {
		if k.name != "" {
			d = max(d, depth(k))
		}
	}
	return d + 1
}

// kinds lists the kinds of losses, in their order.
func kinds(losses []Loss) []string {
	var out []string
	for _, l := range losses {
		out = append(out, l.Kind)
	}
	return out
}
