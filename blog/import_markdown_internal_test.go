package blog

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"folio/blog/htmltomd"
)

// testLinks resolves the targets the converter tests name.
func testLinks(kind, target string) (string, bool) {
	known := map[string]string{"ref:posts/other.md": "/posts/other", "ref:/posts/other": "/posts/other", "ref:about.md": "/pages/about",
		"post_url:2010-07-21-name": "/posts/name", "link:_posts/2010-07-21-name.md": "/posts/name"}
	t, anchor, _ := strings.Cut(strings.Trim(target, `"`), "#")
	addr, ok := known[kind+":"+t]
	if ok && anchor != "" {
		addr += "#" + anchor
	}
	return addr, ok
}

func TestConvertSiteBodyConvertsHugoShortcodes(t *testing.T) {
	tests := []struct {
		name, in, want string
		losses         map[string]int
	}{
		{"a figure", `{{< figure src="/a.png" alt="A [b]" title="T" caption="C" link="https://x.example/" >}}`,
			"[![A \\[b\\]](/a.png)](https://x.example/)\n\n*T: C*", nil},
		{"a figure in the other delimiters", "{{% figure src=\"/my pic.png\" %}}", "![](</my pic.png>)", nil},
		{"a self-closing figure", `{{< figure src="/a.png" />}}`, "![](/a.png)", nil},
		{"a figure without src", `{{< figure caption="x" >}}`, `{{< figure caption="x" >}}`, map[string]int{`Hugo shortcode "figure" kept as text`: 1}},
		{"videos", "{{< youtube id=\"abc\" title=\"Talk\" >}} {{< vimeo 123 >}}", "[Talk](https://www.youtube.com/watch?v=abc) [Vimeo video](https://vimeo.com/123)", nil},
		{"a tweet by id alone", "{{< tweet 42 >}}", "[Tweet](https://twitter.com/i/status/42)", nil},
		{"an X post", `{{< x user="a" id="42" >}}`, "[Post on X](https://x.com/a/status/42)", nil},
		{"a gist", "{{< gist u 1f2e file.go >}}", "[Gist u/1f2e](https://gist.github.com/u/1f2e)", nil},
		{"an instagram post", "{{< instagram BWNjjyYFxVx >}}", "[Instagram post](https://www.instagram.com/p/BWNjjyYFxVx/)", nil},
		{"highlight", "Code:\n{{< highlight go \"linenos=table\" >}}\nfmt.Println(\"```\")\n{{< /highlight >}}\nafter",
			"Code:\n````go\nfmt.Println(\"```\")\n````\nafter", nil},
		{"highlight without its end", "{{< highlight go >}}\nx", "{{< highlight go >}}\nx", map[string]int{`Hugo shortcode "highlight" kept as text`: 1}},
		{"refs", `[a]({{< ref "posts/other.md" >}}) [b]({{< relref path="/posts/other" >}}) [c]({{< ref "about.md#team" >}})`,
			"[a](/posts/other) [b](/posts/other) [c](/pages/about#team)", nil},
		{"a ref to a page not exported", `{{< ref "gone.md" >}}`, `{{< ref "gone.md" >}}`, map[string]int{"Hugo ref to a page not in the export kept as text": 1}},
		{"unknown shortcodes", "{{< notice >}}\nx\n{{< /notice >}} {{< notice >}}{{< /notice >}} {{% param name %}}",
			"{{< notice >}}\nx\n{{< /notice >}} {{< notice >}}{{< /notice >}} {{% param name %}}",
			map[string]int{`Hugo shortcode "notice" kept as text`: 2, `Hugo shortcode "param" kept as text`: 1}},
		{"escaped shortcodes", "{{</* youtube x */>}} and {{%/* note */%}}", "{{< youtube x >}} and {{% note %}}", nil},
		{"not shortcodes", "{{ .Title }} {{< }} {{<notclosed x", "{{ .Title }} {{< }} {{<notclosed x", nil},
		{"Liquid is text in Hugo", "{% highlight go %}x{% endhighlight %}", "{% highlight go %}x{% endhighlight %}", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, losses := convertSiteBody(tt.in, false, testLinks)
			if got != tt.want || !reflect.DeepEqual(lossMap(losses), orEmpty(tt.losses)) {
				t.Fatalf("got %q %v\nwant %q %v", got, losses, tt.want, tt.losses)
			}
		})
	}
}

func TestConvertSiteBodyConvertsLiquid(t *testing.T) {
	tests := []struct {
		name, in, want string
		losses         map[string]int
	}{
		{"highlight", "{% highlight ruby linenos %}\nputs 1\n{% endhighlight %}", "```ruby\nputs 1\n```", nil},
		{"highlight with whitespace control", "{%- highlight js -%}\nx\n{%- endhighlight -%}", "```js\nx\n```", nil},
		{"raw", "{% raw %}{{ page.title }} {% if %}{% endraw %}", "{{ page.title }} {% if %}", nil},
		{"comments are dropped", "a{% comment %}hidden {{ x }}{% endcomment %}b", "ab", nil},
		{"post_url and link", "[a]({% post_url 2010-07-21-name %}) [b]({{ site.baseurl }}{% link _posts/2010-07-21-name.md %})",
			"[a](/posts/name) [b](/posts/name)", nil},
		{"site addresses", "{{ site.url }}{{site.baseurl}}/x {{ \"/img/a.png\" | relative_url }} {{ '/b' | absolute_url }}", "/x /img/a.png /b", nil},
		{"a post_url to a post not exported", "{% post_url 2001-01-01-gone %}", "{% post_url 2001-01-01-gone %}",
			map[string]int{"Liquid post_url to a file not in the export kept as text": 1}},
		{"other tags and outputs", "{% include a.html %}{% if x %}y{% endif %}{{ page.title }}",
			"{% include a.html %}{% if x %}y{% endif %}{{ page.title }}",
			map[string]int{`Liquid tag "include" kept as text`: 1, `Liquid tag "if" kept as text`: 1, `Liquid tag "endif" kept as text`: 1, "Liquid {{ … }} kept as text": 1}},
		{"a raw without its end", "{% raw %}x", "{% raw %}x", map[string]int{`Liquid tag "raw" kept as text`: 1}},
		{"not closed", "{{ x {% y", "{{ x {% y", nil},
		{"shortcodes are text in Jekyll", "{{< youtube x >}}", "{{< youtube x >}}", map[string]int{"Liquid {{ … }} kept as text": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, losses := convertSiteBody(tt.in, true, testLinks)
			if got != tt.want || !reflect.DeepEqual(lossMap(losses), orEmpty(tt.losses)) {
				t.Fatalf("got %q %v\nwant %q %v", got, losses, tt.want, tt.losses)
			}
		})
	}
}

func lossMap(losses []htmltomd.Loss) map[string]int {
	m := map[string]int{}
	for _, l := range losses {
		m[l.Kind] = l.Count
	}
	return m
}

func orEmpty(m map[string]int) map[string]int {
	if m == nil {
		return map[string]int{}
	}
	return m
}

func TestCutMoreSplitsTheTeaser(t *testing.T) {
	tests := []struct{ md, sep, teaser, rest string }{
		{"One.\n\n<!--more-->\n\nTwo.\n", "<!--more-->", "One.", "One.\n\nTwo.\n"},
		{"One.\n<!-- more -->\nTwo.\n", "<!--more-->", "One.", "One.\n\nTwo.\n"},
		{"One. <!--more--> Two.", "<!--more-->", "One.", "One.  Two."},
		{"<!--more-->\nTwo.", "<!--more-->", "", "Two."},
		{"One.\n<!--more-->", "<!--more-->", "One.", "One.\n"},
		{"One.\n\n<!-- cut -->\r\nTwo.", "<!-- cut -->", "One.", "One.\n\nTwo."},
	}
	for _, tt := range tests {
		teaser, rest, ok := cutMore(tt.md, tt.sep)
		if !ok || teaser != tt.teaser || rest != tt.rest {
			t.Errorf("%q: %q %q %v, want %q %q", tt.md, teaser, rest, ok, tt.teaser, tt.rest)
		}
	}
	if _, rest, ok := cutMore("no mark", "<!--more-->"); ok || rest != "no mark" {
		t.Errorf("without a mark: %q %v", rest, ok)
	}
}

// TestPlanSiteSortsFilesIntoPostsAndPages: which files of a site are
// posts, drafts and pages, with the slug and date their names give.
func TestPlanSiteSortsFilesIntoPostsAndPages(t *testing.T) {
	tests := []struct {
		name    string
		files   []string
		want    []string // "name: post|draft|page slug [date] [liquid]"
		ignored int
		badName []string
	}{
		{"a Hugo site", []string{"hugo.toml", "content/_index.md", "content/about.md", "content/contact/index.md",
			"content/posts/_index.md", "content/posts/a.md", "content/blog/2020/b.markdown", "content/posts/c/index.md",
			"content/posts/c/notes.md", "content/posts/c/img.png", "content/posts/d.fr.md", "content/posts/2019-03-04-e.md",
			"themes/x/archetypes/default.md", "layouts/index.html", "content/.hidden.md", "static/readme.md"},
			[]string{"content/about.md: page about", "content/blog/2020/b.markdown: post b", "content/contact/index.md: page contact",
				"content/posts/2019-03-04-e.md: post e 2019-03-04", "content/posts/a.md: post a", "content/posts/c/index.md: post c",
				"content/posts/d.fr.md: post d"}, 9, nil},
		{"a Jekyll site", []string{"_config.yml", "index.md", "about.markdown", "README.md", "_pages/team.md", "_posts/2015-01-02-a.md",
			"blog/_posts/2016-03-04-b.markdown", "_posts/undated.md", "_drafts/c.md", "_drafts/2020-01-01-d.md", "_layouts/post.html",
			"_includes/x.md", "docs/guide.md", "_site/2015/01/02/a.html", "node_modules/p/readme.md"},
			[]string{"_drafts/2020-01-01-d.md: draft d 2020-01-01 liquid", "_drafts/c.md: draft c liquid", "_pages/team.md: page team liquid",
				"_posts/2015-01-02-a.md: post a 2015-01-02 liquid", "about.markdown: page about liquid",
				"blog/_posts/2016-03-04-b.markdown: post b 2016-03-04 liquid"}, 9, []string{"_posts/undated.md"}},
		{"a site in a folder", []string{"site-main/_posts/2015-01-02-a.md", "site-main/Gemfile"},
			[]string{"site-main/_posts/2015-01-02-a.md: post a 2015-01-02 liquid"}, 1, nil},
		{"a folder that holds no site stays", []string{"posts/a.md", "posts/b/index.md"},
			[]string{"posts/a.md: post a", "posts/b/index.md: post b"}, 0, nil},
		{"a content folder", []string{"about.md", "posts/a.md", "_index.md"}, []string{"about.md: page about", "posts/a.md: post a"}, 1, nil},
		{"loose files", []string{"a.md", "b.md", "2019-01-02-c.md", "x.txt", "__MACOSX/._a.md"},
			[]string{"2019-01-02-c.md: post c 2019-01-02 liquid", "a.md: post a", "b.md: post b"}, 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := planSite(tt.files)
			var got []string
			for _, n := range slices.Sorted(maps.Keys(p.items)) {
				it := p.items[n]
				kind := "post"
				if it.page {
					kind = "page"
				} else if it.draft {
					kind = "draft"
				}
				s := fmt.Sprintf("%s: %s %s", n, kind, it.slug)
				if it.date != nil {
					s += " " + it.date.Format("2006-01-02")
				}
				if it.liquid {
					s += " liquid"
				}
				got = append(got, s)
			}
			if !slices.Equal(got, tt.want) || p.ignored != tt.ignored || !slices.Equal(p.badName, tt.badName) {
				t.Fatalf("got %q, %d ignored, bad names %v\nwant %q, %d, %v", got, p.ignored, p.badName, tt.want, tt.ignored, tt.badName)
			}
		})
	}
}

// TestConvertSiteBodyTakesTimeInProportionToTheBody converts bodies of a
// megabyte (what a post may hold) made of tags that are never closed, or
// closed only at the end, each of which a naive reader would follow to
// the end of the body: each conversion must take less than 5 s of CPU
// time (cpuTime, which a busy machine does not stretch), even under the
// race detector.
func TestConvertSiteBodyTakesTimeInProportionToTheBody(t *testing.T) {
	const size = 1 << 20
	fill := func(s string) string { return strings.Repeat(s, size/len(s)) }
	for name, body := range map[string]string{
		"unclosed shortcodes":        fill("{{< a "),
		"unclosed quotes":            fill("{{< a \"") + ">}}",
		"highlights without end":     fill("{{< highlight go >}}x"),
		"escapes without end":        fill("{{</* "),
		"unclosed Liquid tags":       fill("{% x "),
		"unclosed Liquid outputs":    fill("{{ x ") + "%}",
		"raws without end":           fill("{% raw %}"),
		"highlights without endings": fill("{% highlight go %}") + "}}",
	} {
		for _, liquid := range []bool{false, true} {
			start := cpuTime()
			convertSiteBody(body, liquid, testLinks)
			if d := cpuTime() - start; d > 5*time.Second {
				t.Errorf("%s (liquid %v): %v", name, liquid, d)
			}
		}
	}
}
