package blog

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// lossKinds are the kinds of loss convertSiteBody may report.
var lossKinds = regexp.MustCompile(`^(Hugo shortcode ".*" kept as text|Hugo ref to a page not in the export kept as text|` +
	`Liquid tag ".*" kept as text|Liquid \{\{ … \}\} kept as text|Liquid (post_url|link) to a file not in the export kept as text)$`)

// FuzzSiteBody converts any body as a Hugo post (shortcodes) and as a
// Jekyll one (Liquid), with links that resolve for some targets: the same
// Markdown and losses twice; the losses sorted, each kind once, one of the
// phrases the converter writes, with a count of at least one; a body
// without "{{" or "{%" unchanged and without loss; Markdown that is valid
// UTF-8 whenever the body is.
func FuzzSiteBody(f *testing.F) {
	for _, s := range []string{
		"Intro\n\n{{< figure src=\"/a.png\" alt=\"A\" caption=\"*C*\" link=\"/b\" >}}\n{{< youtube abc >}} {{< tweet user=\"u\" id=\"1\" >}}",
		"{{< highlight go \"linenos=table\" >}}\ncode\n{{< /highlight >}} {{% notice %}}x{{% /notice %}} {{</* x */>}}",
		"[a]({{< ref \"posts/other.md#h\" >}}) {{< gist u 1 >}} {{< figure src=`raw` />}} {{< param \"x\" >}}",
		"{% highlight ruby %}\nputs 1\n{% endhighlight %}{% raw %}{{ x }}{% endraw %}{% comment %}c{% endcomment %}",
		"[a]({% post_url 2010-07-21-name %}) {{ site.baseurl }}{% link about.md %} {{ '/x' | relative_url }} {% include a %}",
		"{{ {% {{< {{% }} %} >}}", "é{{<\xff figure src=\"\xc3\" >}}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, liquid := range []bool{false, true} {
			md, losses := convertSiteBody(body, liquid, testLinks)
			md2, losses2 := convertSiteBody(body, liquid, testLinks)
			if md != md2 || !slices.Equal(losses, losses2) {
				t.Fatalf("two conversions differ: %q %v / %q %v", md, losses, md2, losses2)
			}
			for i, l := range losses {
				if l.Count < 1 || !lossKinds.MatchString(l.Kind) || i > 0 && losses[i-1].Kind >= l.Kind {
					t.Fatalf("losses %v", losses)
				}
			}
			if !strings.Contains(body, "{{") && !strings.Contains(body, "{%") && (md != body || len(losses) != 0) {
				t.Fatalf("a body without template syntax changed: %q → %q %v", body, md, losses)
			}
			if utf8.ValidString(body) && !utf8.ValidString(md) {
				t.Fatalf("%q gave invalid UTF-8 %q", body, md)
			}
		}
	})
}
