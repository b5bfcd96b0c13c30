package blog_test

import (
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"folio/blog"
)

// ghostPage is what the Ghost tests check of an imported page.
type ghostPage struct{ Status, Published, Markdown string }

// importGhost posts a Ghost export of testdata/import/ghost and returns the
// whole result, changed counts and losses included.
func (e *env) importGhost(name string) blog.ImportResult {
	e.t.Helper()
	export, err := os.ReadFile("../testdata/import/ghost/" + name)
	if err != nil {
		e.t.Fatal(err)
	}
	var res blog.ImportResult
	data(e.t, e.admin.Upload("/api/v1/admin/import", "file", name, export, "format", "ghost"), 200, &res)
	return res
}

func (e *env) ghostPages() map[string]ghostPage {
	e.t.Helper()
	out := map[string]ghostPage{}
	for _, p := range e.snapshot().Pages {
		gp := ghostPage{Status: p["status"].(string), Markdown: p["content_markdown"].(string)}
		if v, ok := p["published_at"].(string); ok {
			gp.Published = v
		}
		out[p["slug"].(string)] = gp
	}
	return out
}

func (e *env) postMarkdown() map[string]string {
	e.t.Helper()
	out := map[string]string{}
	for _, p := range e.snapshot().Posts {
		out[p["slug"].(string)] = p["content_markdown"].(string)
	}
	return out
}

// TestImportOfGhostExportsOfEveryVersion imports an export of each shape
// Ghost has written, 0.x to 6.x, and checks what each item became, the
// counts, notes and losses, and that a second import adds nothing.
func TestImportOfGhostExportsOfEveryVersion(t *testing.T) {
	tests := []struct {
		file          string
		postCount     blog.ImportCount
		pageCount     blog.ImportCount
		tagCount      blog.ImportCount
		losses        map[string]int // nil: not compared (those of a converted post are htmltomd's)
		warnings      []string
		wantPosts     map[string]postSummary
		markdown      map[string]string   // exact content of these posts
		contains      map[string][]string // parts of the content of these posts
		pages         map[string]ghostPage
		againWarnings []string
		// converted names a post whose content is the HTML Ghost
		// exported, whose conversion (blog/htmltomd's) its own tests
		// pin: its warnings are left out of those compared, and it counts
		// as changed or not as they say.
		converted string
	}{
		{
			file:      "ghost-0.5.json", // export version 003: integer ids, milliseconds, page 0/1, Markdown
			postCount: blog.ImportCount{Created: 2}, pageCount: blog.ImportCount{Created: 1}, tagCount: blog.ImportCount{Created: 2},
			losses: map[string]int{}, warnings: []string{},
			wantPosts: map[string]postSummary{
				"welcome-to-ghost": {Slug: "welcome-to-ghost", Title: "Welcome to Ghost", Status: "published", Published: "2014-05-09T12:00:00Z",
					Summary: "The first post of a new Ghost blog.", Cover: "/content/images/2014/05/cover.jpg", Tags: []string{"getting-started", "ghost"}, ShowComments: true},
				"half-finished": {Slug: "half-finished", Title: "Half finished", Status: "draft", Summary: "Some notes for later.", Tags: []string{"ghost"}, ShowComments: true},
			},
			markdown: map[string]string{
				"welcome-to-ghost": "You're live! This is **Ghost**, written in Markdown.\n\n## Getting started\n\n* Write in the editor on the left\n* See it on the right\n\n" +
					"Read the [guide](http://docs.example.org/guide/ \"The guide\").\n\n![Ghost logo](/content/images/2014/05/ghost.png)\n\n```\nnpm install --production\n```\n",
				"half-finished": "Some notes for later.\n",
			},
			pages: map[string]ghostPage{"about": {Status: "published", Published: "2014-05-09T09:01:40Z", Markdown: "I write about *small* things.\n"}},
		},
		{
			file:      "ghost-0.11.json", // export version 004: no db wrapper, times as text, page true, a scheduled page
			postCount: blog.ImportCount{Created: 1}, pageCount: blog.ImportCount{Created: 1, Changed: 1}, tagCount: blog.ImportCount{Created: 1},
			losses:   map[string]int{},
			warnings: []string{`Ghost page "colophon": scheduled in Ghost; imported as a draft (pages cannot be scheduled)`},
			wantPosts: map[string]postSummary{
				"moving-house": {Slug: "moving-house", Title: "Moving house", Status: "published", Published: "2016-10-03T10:00:00Z",
					Summary: "We moved. Home is where the wifi connects automatically. Pack Carry Unpack", Tags: []string{"life"}, ShowComments: true},
			},
			markdown: map[string]string{"moving-house": "We moved.\n\n> Home is where the wifi connects automatically.\n\n1. Pack\n2. Carry\n3. Unpack\n"},
			pages:    map[string]ghostPage{"colophon": {Status: "draft", Markdown: "Made with Ghost.\n"}},
		},
		{
			file:      "ghost-1.x.json", // Mobiledoc of Markdown cards, page true, an internal tag
			postCount: blog.ImportCount{Created: 2}, pageCount: blog.ImportCount{Created: 1}, tagCount: blog.ImportCount{Created: 1},
			losses: map[string]int{}, warnings: []string{"1 internal Ghost tags (#name) skipped"},
			wantPosts: map[string]postSummary{
				"moved-from-0x": {Slug: "moved-from-0x", Title: "Moved from Ghost 0.x", Status: "published", Published: "2014-05-09T12:00:00Z",
					Summary: "An old post, moved.", Cover: "/content/images/2018/06/old.jpg", Tags: []string{"archive"}, ShowComments: true},
				"two-markdown-cards": {Slug: "two-markdown-cards", Title: "Two Markdown cards", Status: "draft", Summary: "First card with a link. Second card.",
					Tags: []string{}, ShowComments: true},
			},
			markdown: map[string]string{
				"moved-from-0x":      "Written in **Markdown** in 2014.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nRaw HTML stays as written.\n",
				"two-markdown-cards": "First card with a [link](/moved-from-0x/).\n\nSecond card.\n",
			},
			pages:         map[string]ghostPage{"imprint": {Status: "published", Published: "2017-08-01T09:00:00Z", Markdown: "Jo Writer, Example Street 1.\n"}},
			againWarnings: []string{"1 internal Ghost tags (#name) skipped"},
		},
		{
			file:      "ghost-4.x.json", // Mobiledoc with cards, with and without HTML; members and paid posts
			postCount: blog.ImportCount{Created: 4, Changed: 2}, pageCount: blog.ImportCount{Created: 1}, tagCount: blog.ImportCount{Created: 1},
			wantPosts: map[string]postSummary{
				"every-card": {Slug: "every-card", Title: "Every card", Status: "published", Published: "2021-05-11T12:00:00Z",
					Summary: "Every card Ghost 4 has.", Tags: []string{"cards"}, ShowComments: true},
				"no-html": {Slug: "no-html", Title: "No HTML exported", Status: "published", Published: "2021-05-12T12:00:00Z",
					Summary: "Intro with a link and bold. My desk Two pictures A post elsewhere A talk The talk An HTML card. A Markdown card among others. one two A quote on two lines",
					Tags:    []string{"cards"}, ShowComments: true},
				"for-members": {Slug: "for-members", Title: "For members", Status: "draft", Summary: "Members read this.", Tags: []string{}, ShowComments: true},
				"for-paying-members": {Slug: "for-paying-members", Title: "For paying members", Status: "draft", Summary: "The free preview.",
					Tags: []string{}, ShowComments: true},
			},
			markdown: map[string]string{
				"no-html": "Intro with [a link](https://example.org/) and **bold**.\n\n## Cards\n\n" +
					"![A desk](/content/images/2021/05/desk.jpg)\n\n*My *desk**\n\n" +
					"![](/content/images/2021/05/a.jpg)\n\n![Bee](/content/images/2021/05/b.jpg)\n\n*Two pictures*\n\n" +
					"[A post elsewhere](https://example.org/post)\n\n[A talk](https://video.example.org/watch?v=abc123)\n\n*The talk*\n\n" +
					"An **HTML** card.\n\n" +
					"```go\nfmt.Println(\"hi\")\n```\n\n---\n\nA *Markdown* card among others.\n\n- one\n- *two*\n\n> A quote\\\n> on two lines\n",
				"for-paying-members": "The free preview.\n\nThe paid part.\n",
			},
			contains: map[string][]string{
				"every-card": {"Intro with [a link](https://example.org/) and **bold**.\n\n## Cards\n\n", "![A desk](/content/images/2021/05/desk.jpg)",
					"/content/images/2021/05/b.jpg", "https://example.org/post", "```go\nfmt.Println(\"hi\")\n```", "A *Markdown* card among others."},
			},
			pages: map[string]ghostPage{"contact": {Status: "published", Published: "2021-05-15T12:00:00Z", Markdown: "Write to [Jo](mailto:jo@example.org).\n"}},
			warnings: []string{
				`Ghost post "for-members": visible to members only in Ghost; imported as a draft`,
				`Ghost post "for-paying-members": visible to paying members only in Ghost; imported as a draft`,
			},
			converted: "every-card",
		},
		{
			file:      "ghost-6.x.json", // Lexical with and without HTML; a newsletter, tiers, a members-only card, a scheduled page
			postCount: blog.ImportCount{Created: 5, Changed: 4}, pageCount: blog.ImportCount{Created: 2, Changed: 1}, tagCount: blog.ImportCount{Created: 1},
			losses: map[string]int{`Ghost card "signup" left out`: 1, "Ghost card shown only in emails left out": 1},
			warnings: []string{
				`Ghost post "lexical-alone": Ghost card "signup" left out`,
				`Ghost post "lexical-alone": Ghost card shown only in emails left out`,
				`Ghost post "this-weeks-letter": an email-only newsletter in Ghost; imported as a draft`,
				`Ghost post "gold-tier-only": visible to members of some tiers only in Ghost; imported as a draft`,
				`Ghost post "public-with-members-part": parts of it are visible to members only in Ghost; imported as a draft`,
				`Ghost page "launch": scheduled in Ghost; imported as a draft (pages cannot be scheduled)`,
			},
			wantPosts: map[string]postSummary{
				"lexical-and-html": {Slug: "lexical-and-html", Title: "Lexical and HTML", Status: "published", Published: "2025-02-01T12:00:00Z",
					Summary: "Written in Ghost 6. 💡 Mind the gap.", Cover: "/content/images/2025/02/cover.jpg", Tags: []string{}, ShowComments: true},
				"lexical-alone": {Slug: "lexical-alone", Title: "Lexical alone", Status: "published", Published: "2025-02-02T12:00:00Z",
					Summary: "Hello bold and italic and code. first second Quoted words See the docs. The lake Example 💡 Mind the gap. Why? Because. Subscribe Some Markdown too. The end.",
					Tags:    []string{}, ShowComments: true},
				"this-weeks-letter":        {Slug: "this-weeks-letter", Title: "This week's letter", Status: "draft", Summary: "Dear reader,", Tags: []string{"letters"}, ShowComments: true},
				"gold-tier-only":           {Slug: "gold-tier-only", Title: "Gold tier only", Status: "draft", Summary: "For gold.", Tags: []string{}, ShowComments: true},
				"public-with-members-part": {Slug: "public-with-members-part", Title: "Public, with a members part", Status: "draft", Summary: "Everyone reads this. Only members read this.", Tags: []string{}, ShowComments: true},
			},
			markdown: map[string]string{
				"lexical-alone": "Hello **bold** and *italic* and `code`.\n\n## A heading\n\n1. first\n2. second\n\n> Quoted words\n\nSee [the docs](/docs/).\n\n" +
					"![A lake](/content/images/2025/01/lake.jpg)\n\n*The lake*\n\n```sh\ngo run .\n```\n\n[Example](https://example.org/)\n\n> 💡 Mind the gap.\n\n" +
					"**Why?**\n\nBecause.\n\n[Subscribe](/#/portal/signup)\n\nSome **Markdown** too.\n\n---\n\nThe end.\n",
				"this-weeks-letter": "Dear reader,\n",
			},
			contains: map[string][]string{"lexical-and-html": {"Written in **Ghost 6**.\n\n![A hill](/content/images/2025/02/hill.jpg)", "Mind the gap."}},
			pages: map[string]ghostPage{
				"team":   {Status: "published", Published: "2025-02-07T12:00:00Z", Markdown: "We are two.\n"},
				"launch": {Status: "draft", Markdown: "Soon.\n"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			e := newEnv(t)
			res := e.importGhost(tt.file)
			if tt.converted != "" {
				of := fmt.Sprintf("Ghost post %q: ", tt.converted)
				n := len(res.Warnings)
				res.Warnings = slices.DeleteFunc(res.Warnings, func(w string) bool { return strings.HasPrefix(w, of) })
				if len(res.Warnings) < n {
					res.Posts.Changed--
				}
			}
			if res.Posts != tt.postCount || res.Pages != tt.pageCount || res.Tags != tt.tagCount || res.Categories != (blog.ImportCount{}) {
				t.Errorf("counts: posts %+v pages %+v tags %+v categories %+v, want %+v %+v %+v none", res.Posts, res.Pages, res.Tags, res.Categories, tt.postCount, tt.pageCount, tt.tagCount)
			}
			if !slices.Equal(res.Warnings, tt.warnings) {
				t.Errorf("warnings\n got %q\nwant %q", res.Warnings, tt.warnings)
			}
			if tt.losses != nil && !maps.Equal(res.Losses, tt.losses) {
				t.Errorf("losses %v, want %v", res.Losses, tt.losses)
			}
			if got := e.postSummaries(); !reflect.DeepEqual(got, tt.wantPosts) {
				t.Errorf("posts\n got %+v\nwant %+v", got, tt.wantPosts)
			}
			md := e.postMarkdown()
			for slug, want := range tt.markdown {
				if md[slug] != want {
					t.Errorf("content of %s\n got %q\nwant %q", slug, md[slug], want)
				}
			}
			for slug, parts := range tt.contains {
				for _, p := range parts {
					if !strings.Contains(md[slug], p) {
						t.Errorf("content of %s lacks %q: %q", slug, p, md[slug])
					}
				}
			}
			for slug, m := range md {
				if strings.Contains(m, "__GHOST_URL__") {
					t.Errorf("content of %s keeps Ghost's placeholder: %q", slug, m)
				}
			}
			if got := e.ghostPages(); !reflect.DeepEqual(got, tt.pages) {
				t.Errorf("pages\n got %+v\nwant %+v", got, tt.pages)
			}

			again := e.importGhost(tt.file)
			want := blog.ImportCount{Skipped: tt.postCount.Created}
			if again.Posts != want || again.Pages != (blog.ImportCount{Skipped: tt.pageCount.Created}) || again.Tags != (blog.ImportCount{Skipped: tt.tagCount.Created}) ||
				len(again.Losses) != 0 || !slices.Equal(again.Warnings, append([]string{}, tt.againWarnings...)) {
				t.Errorf("second import %+v, want everything skipped, quietly", again)
			}
		})
	}
}

// TestGhostPostsNotPublicInGhostAreNotPublic imports the members, paid,
// tiers, newsletter and members-card posts and the scheduled page, and
// reads the public site: none of them is there; the public ones are.
func TestGhostPostsNotPublicInGhostAreNotPublic(t *testing.T) {
	e := newSiteEnv(t)
	e.importGhost("ghost-4.x.json")
	e.importGhost("ghost-6.x.json")
	hidden := []string{"for-members", "for-paying-members", "this-weeks-letter", "gold-tier-only", "public-with-members-part"}
	shown := []string{"every-card", "no-html", "lexical-and-html", "lexical-alone"}
	for _, slug := range hidden {
		e.html("/posts/"+slug, 404)
	}
	for _, slug := range shown {
		e.html("/posts/"+slug, 200)
	}
	e.html("/pages/launch", 404)
	e.html("/pages/team", 200)
	home := e.html("/", 200)
	feed := string(e.anon.Do("GET", "/feed.xml", nil).Expect(200).Body)
	for _, what := range []struct{ name, body string }{{"home", home}, {"feed", feed}} {
		siteLacks(t, what.name, what.body, "/posts/for-members", "/posts/for-paying-members", "/posts/this-weeks-letter",
			"/posts/gold-tier-only", "/posts/public-with-members-part", "Members read this", "The paid part", "Only members read this", "For gold.")
		siteHas(t, what.name, what.body, "/posts/lexical-alone", "/posts/every-card")
	}
	page := e.html("/posts/lexical-alone", 200)
	siteHas(t, "the Lexical post", page, "<strong>bold</strong>", `<img src="/content/images/2025/01/lake.jpg" alt="A lake"`, "Mind the gap.")
	siteLacks(t, "the Lexical post", page, "__GHOST_URL__", "Sign up", "{first_name}", "&lt;figure")
}

// TestGhostExportErrorsNameTheItemAndField refuses exports whose JSON is
// broken or whose fields have a type no Ghost version wrote, with a
// message naming the place in plain words, and writes nothing.
func TestGhostExportErrorsNameTheItemAndField(t *testing.T) {
	posts := func(items string) string {
		return `{"db": [{"meta": {"version": "5.0.0"}, "data": {"posts": [` + items + `]}}]}`
	}
	ok := `{"id": "1", "slug": "fine", "title": "Fine", "status": "published", "html": "<p>fine</p>"}`
	tests := []struct {
		name, export, want string
	}{
		{"id of the wrong type", posts(ok + `, {"id": true, "slug": "hello", "title": "Hello", "status": "published"}`),
			`not a valid Ghost export: posts item 2 ("hello"): field "id" is true, expected an id (a text or a whole number)`},
		{"id with a fraction", posts(`{"id": 1.5, "title": "Hello", "status": "draft"}`),
			`not a valid Ghost export: posts item 1 ("Hello"): field "id" is a number, expected an id (a text or a whole number)`},
		{"title a number", posts(`{"id": 1, "slug": "second", "title": 2, "status": "draft"}`),
			`not a valid Ghost export: posts item 1 ("second"): field "title" is a number, expected a text`},
		{"status an object", posts(`{"id": 1, "title": "Hello", "status": {"value": "published"}}`),
			`not a valid Ghost export: posts item 1 ("Hello"): field "status" is an object, expected a text`},
		{"date of the wrong type", posts(ok + `, {"id": 2, "slug": "hello", "status": "published", "published_at": false}`),
			`not a valid Ghost export: posts item 2 ("hello"): field "published_at" is false, expected a date`},
		{"date that is no date", posts(`{"id": 2, "slug": "hello", "status": "published", "created_at": "yesterday"}`),
			`not a valid Ghost export: posts item 1 ("hello"): field "created_at" is "yesterday", expected a date such as 2024-11-20T12:00:00.000Z`},
		{"page a text", posts(`{"id": 2, "slug": "hello", "status": "published", "page": "yes"}`),
			`not a valid Ghost export: posts item 1 ("hello"): field "page" is a text, expected true or false`},
		{"html a list", posts(`{"id": 2, "status": "published", "html": ["<p>"]}`),
			`not a valid Ghost export: posts item 1: field "html" is a list, expected a text`},
		{"item not an object", posts(ok + `, 42`), `not a valid Ghost export: posts item 2 is a number, expected an object`},
		{"tag id a list", `{"data": {"tags": [{"id": [1], "name": "News", "slug": "news"}], "posts": [` + ok + `]}}`,
			`not a valid Ghost export: tags item 1 ("news"): field "id" is a list, expected an id (a text or a whole number)`},
		{"link of the wrong type", `{"data": {"posts": [` + ok + `], "posts_tags": [{"post_id": "1", "tag_id": "1"}, {"post_id": false, "tag_id": "1"}]}}`,
			`not a valid Ghost export: posts_tags item 2: field "post_id" is false, expected an id (a text or a whole number)`},
		{"sort order a text", `{"data": {"posts_tags": [{"post_id": 1, "tag_id": 1, "sort_order": "first"}]}}`,
			`not a valid Ghost export: posts_tags item 1: field "sort_order" is a text, expected a whole number`},
		{"table not a list", `{"data": {"posts": {"id": 1}}}`, `not a valid Ghost export: data.posts is not a list`},
		{"db not a list", `{"db": {"data": {}}}`, `not a valid Ghost export: db is not a list`},
		{"db broken where a list starts", `{"db": nope}`, `not a valid Ghost export: the JSON is broken at line 1, column 8: 'n' is not expected there`},
		{"broken JSON", "{\n  \"db\": [{\n    \"data\": {\"posts\": [\n      {\"title\": \"x\",}\n    ]}\n  }]\n}",
			`not a valid Ghost export: the JSON is broken at line 4, column 21: '}' is not expected there`},
		{"broken JSON after a multi-byte character", "{\"data\": {\"posts\": [{\"title\": \"Grüße\" \"slug\": \"x\"}]}}",
			`not a valid Ghost export: the JSON is broken at line 1, column 39: '"' is not expected there`},
		{"line break in a text", "{\"data\": {\"posts\": [\n{\"title\": \"two\nlines\"}]}}",
			`not a valid Ghost export: the JSON is broken at line 2, column 15: a line break inside a text is not expected there`},
		{"bad escape", "{\"data\": {\"posts\": [{\"title\": \"C:\\Users\"}]}}",
			`not a valid Ghost export: the JSON is broken at line 1, column 34: a backslash starts no escape JSON knows`},
		{"cut short", "{\"db\": [{\"data\": {\"posts\": [\n{\"title\": \"x\"},\n", `not a valid Ghost export: the file ends at line 2 before its JSON does (is it cut short?)`},
	}
	e := newEnv(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expectError(t, e.admin.Upload("/api/v1/admin/import", "file", "ghost.json", []byte(tt.export), "format", "ghost"), 400, tt.want)
			if s := e.snapshot(); len(s.Posts) != 0 || len(s.Pages) != 0 || len(s.Tags) != 0 {
				t.Fatalf("a refused import wrote %d posts, %d pages, %d tags", len(s.Posts), len(s.Pages), len(s.Tags))
			}
		})
	}
}

// TestGhostExportsAcceptWhatEachVersionWrote reads the forms fields take
// across Ghost's versions, and ignores fields it does not know.
func TestGhostExportsAcceptWhatEachVersionWrote(t *testing.T) {
	e := newEnv(t)
	export := "\ufeff" + `{"db": [{"meta": {"version": "003"}, "data": {
		"tags": [{"id": 9, "name": "Nine", "slug": "nine", "created_at": "2015-01-02 03:04:05"}],
		"posts_tags": [{"id": 1, "post_id": 1, "tag_id": 9, "sort_order": null}],
		"posts": [
			{"id": 1, "title": "Numbers", "slug": "numbers", "markdown": "as is", "page": 0, "status": "published", "published_at": 1420167845000,
			 "created_at": "2015-01-02 03:04:05", "updated_at": "2015-01-03", "future_field": {"x": [1, 2]}, "featured": true},
			{"id": 2, "title": "A page", "slug": "a-page", "markdown": "page", "page": true, "status": "published", "published_at": null},
			{"id": "3", "title": "Object mobiledoc", "slug": "object-mobiledoc", "status": "draft",
			 "mobiledoc": {"version": "0.3.1", "markups": [], "atoms": [], "cards": [["markdown", {"markdown": "from an object"}]], "sections": [[10, 0]]}}]}}]}`
	res := e.importFileResult(export)
	if res.Posts != (blog.ImportCount{Created: 2}) || res.Pages != (blog.ImportCount{Created: 1}) || res.Tags != (blog.ImportCount{Created: 1}) || len(res.Warnings) != 0 {
		t.Fatalf("result %+v", res)
	}
	var p post
	data(t, e.admin.Do("GET", "/api/v1/admin/posts/slug/numbers", nil), 200, &p)
	if *p.ContentMarkdown != "as is\n" || p.PublishedAt.Format("2006-01-02T15:04:05Z") != "2015-01-02T03:04:05Z" || len(p.Tags) != 1 || p.Tags[0].Slug != "nine" ||
		p.CreatedAt.Format("2006-01-02T15:04:05Z") != "2015-01-02T03:04:05Z" || p.UpdatedAt.Format("2006-01-02T15:04:05Z") != "2015-01-03T00:00:00Z" {
		t.Fatalf("post %+v", p)
	}
	data(t, e.admin.Do("GET", "/api/v1/admin/posts/slug/object-mobiledoc", nil), 200, &p)
	if *p.ContentMarkdown != "from an object\n" {
		t.Fatalf("content %q", *p.ContentMarkdown)
	}
}

func (e *env) importFileResult(export string) blog.ImportResult {
	e.t.Helper()
	var res blog.ImportResult
	data(e.t, e.admin.Upload("/api/v1/admin/import", "file", "ghost.json", []byte(export)), 200, &res)
	return res
}
