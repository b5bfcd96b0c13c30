package blog_test

import (
	"strings"
	"testing"
)

// The post: prose around a Go code block and a metric table.
const proseCodeTable = "Folio is one binary: a blog engine and an image host.\n\n" +
	"```go\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n```\n\n" +
	"| Metric | Before | After |\n|---|---:|---:|\n| p50 latency | 11 ms | 4 ms |\n\n" +
	"Start it and sign in.\n"

const proseOnly = "Folio is one binary: a blog engine and an image host. Start it and sign in."

func TestDerivedSummaryIsProseOnlyEverywhere(t *testing.T) {
	e := newSiteEnv(t)
	e.setMode("classic")
	p := e.publish("Benchmarks", "slug", "benchmarks", "content_markdown", proseCodeTable)
	code := e.publish("Only code", "slug", "only-code", "content_markdown", "```go\npackage main\n```\n")
	if p.Summary != proseOnly {
		t.Fatalf("summary = %q, want %q", p.Summary, proseOnly)
	}
	if code.Summary != "" {
		t.Fatalf("summary of a post of code alone = %q, want none", code.Summary)
	}
	var list page[post]
	data(t, e.anon.Do("GET", "/api/v1/posts", nil), 200, &list)
	for _, it := range list.Items {
		if it.ID == p.ID && it.Summary != proseOnly {
			t.Errorf("API list summary = %q", it.Summary)
		}
	}
	for _, tt := range []struct{ name, path, want string }{
		{"home page", "/", `<p class="summary">` + proseOnly + "</p>"},
		{"meta description", "/posts/benchmarks", `<meta name="description" content="` + proseOnly + `">`},
		{"OpenGraph", "/posts/benchmarks", `<meta property="og:description" content="` + proseOnly + `">`},
		{"Atom", "/atom.xml", `<summary type="text">` + proseOnly + "</summary>"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := string(e.anon.Do("GET", tt.path, nil).Expect(200).Body)
			if !strings.Contains(body, tt.want) {
				t.Errorf("%s lacks %q:\n%.3000s", tt.path, tt.want, body)
			}
		})
	}
	home := string(e.anon.Do("GET", "/", nil).Expect(200).Body)
	siteLacks(t, "home page", home, "Metric", "p50 latency", "fmt.Println", "package main")
}

func TestStoredDerivedSummariesAreMadeAgainWhenTheBlogStarts(t *testing.T) {
	e := newEnv(t)
	auto := e.createPost(map[string]any{"title": "Auto", "content_markdown": proseCodeTable})
	manual := e.createPost(map[string]any{"title": "Manual", "content_markdown": proseCodeTable, "summary": "By hand: func main()"})
	// As an older Folio stored them: code and table in the derived summary.
	const old = "Folio is one binary: a blog engine and an image host. func main() { fmt.Println(\"hello\") } Metric Before After…"
	e.exec(`UPDATE posts SET summary = $1, render_version = 1 WHERE id = $2`, old, auto.ID)
	e.exec(`UPDATE posts SET render_version = 1 WHERE id = $1`, manual.ID)

	e.startAgain(t, nil)
	for _, tt := range []struct{ id, want string }{{auto.ID, proseOnly}, {manual.ID, "By hand: func main()"}} {
		var got post
		data(t, e.admin.Do("GET", "/api/v1/admin/posts/"+tt.id, nil), 200, &got)
		if got.Summary != tt.want {
			t.Errorf("summary after start = %q, want %q", got.Summary, tt.want)
		}
	}
}
