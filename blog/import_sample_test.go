package blog_test

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// postSummary is what the sample tests check of an imported post.
type postSummary struct {
	Slug, Title, Status, Published, Summary, Category, Cover string
	Tags                                                     []string
	ShowComments                                             bool
}

func (e *env) postSummaries() map[string]postSummary {
	e.t.Helper()
	out := map[string]postSummary{}
	for _, p := range e.snapshot().Posts {
		s := postSummary{Slug: p["slug"].(string), Title: p["title"].(string), Status: p["status"].(string),
			Summary: p["summary"].(string), Cover: p["cover_image"].(string), ShowComments: p["show_comments"].(bool), Tags: []string{}}
		if v, ok := p["published_at"].(string); ok {
			s.Published = v
		}
		if c, ok := p["category"].(map[string]any); ok {
			s.Category = c["slug"].(string)
		}
		for _, tg := range p["tags"].([]any) {
			s.Tags = append(s.Tags, tg.(map[string]any)["slug"].(string))
		}
		slices.Sort(s.Tags)
		out[s.Slug] = s
	}
	return out
}

func readSample(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../testdata/import/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestImportOfAGhostExport(t *testing.T) {
	e := newEnv(t)
	res := e.importFile("ghost-5.json", readSample(t, "ghost-5.json"))
	want := importResult{Format: "ghost", Posts: count{4, 0}, Pages: count{1, 0}, Tags: count{2, 0},
		Settings: map[string]int{"updated": 0, "skipped": 0},
		Warnings: []string{
			"1 internal Ghost tags (#name) skipped",
			`Ghost post "members-only": visible to members only in Ghost; imported as a draft`,
		}}
	if !reflect.DeepEqual(res, want) {
		t.Fatalf("result\n got %+v\nwant %+v", res, want)
	}
	wantPosts := map[string]postSummary{
		"welcome-to-ghost": {Slug: "welcome-to-ghost", Title: "Welcome to Ghost", Status: "published", Published: "2024-11-20T12:00:00Z",
			Summary: "A first look at Ghost.", Cover: "/content/images/2024/11/cover.jpg", Tags: []string{"getting-started", "news"}, ShowComments: true},
		"coming-soon": {Slug: "coming-soon", Title: "Coming soon", Status: "draft", Summary: "Work in progress.", Tags: []string{"news"}, ShowComments: true},
		"markdown-editor": {Slug: "markdown-editor", Title: "From the Markdown editor", Status: "published", Published: "2099-01-01T00:00:00Z",
			Summary: "Written in Markdown.", Tags: []string{}, ShowComments: true},
		"members-only": {Slug: "members-only", Title: "Members only", Status: "draft", Summary: "For members.", Tags: []string{}, ShowComments: true},
	}
	if got := e.postSummaries(); !reflect.DeepEqual(got, wantPosts) {
		t.Fatalf("posts\n got %+v\nwant %+v", got, wantPosts)
	}
	var p post
	data(t, e.admin.Do("GET", "/api/v1/admin/posts/slug/welcome-to-ghost", nil), 200, &p)
	wantMD := "This is **Ghost**, a *publishing* platform. Read [about us](/about/) or visit [the project](https://ghost.org \"Ghost\").\n\n" +
		"## Features\n\n- Fast\n- Open source\n  - MIT licence\n\n1. Write\n2. Publish\n\n> Quotes work too.\n\n" +
		"Use `ghost install` to start.\n\n```bash\nnpm install ghost-cli -g\nghost install local\n```\n\n" +
		"![A desk](/content/images/2024/11/desk.jpg)\n\n*My **desk***\n\n" +
		"| Plan | Price |\n| --- | --- |\n| Free | $0 |\n\n---\n\nThe end.\n"
	if *p.ContentMarkdown != wantMD {
		t.Fatalf("content\n got %q\nwant %q", *p.ContentMarkdown, wantMD)
	}
	if p.CreatedAt.Format("2006-01-02T15:04:05Z") != "2024-11-20T09:00:00Z" || p.UpdatedAt.Format("2006-01-02T15:04:05Z") != "2024-11-21T10:30:00Z" {
		t.Fatalf("times %v %v", p.CreatedAt, p.UpdatedAt)
	}
	var data2 page[map[string]any]
	data(t, e.admin.Do("GET", "/api/v1/admin/pages", nil), 200, &data2)
	if len(data2.Items) != 1 || data2.Items[0]["slug"] != "about" || data2.Items[0]["status"] != "published" ||
		data2.Items[0]["content_markdown"] != "We write about [things](https://example.org/).\n" {
		t.Fatalf("pages %+v", data2.Items)
	}

	again := e.importFile("ghost-5.json", readSample(t, "ghost-5.json"), "format", "ghost")
	if again.Posts != (count{0, 4}) || again.Pages != (count{0, 1}) || again.Tags != (count{0, 2}) {
		t.Fatalf("second import %+v, want everything skipped", again)
	}
}

func TestImportOfAWordPressExport(t *testing.T) {
	e := newEnv(t)
	res := e.importFile("wordpress.xml", readSample(t, "wordpress.xml"))
	want := importResult{Format: "wxr", Posts: count{2, 0}, Pages: count{1, 0}, Categories: count{2, 0}, Tags: count{2, 0},
		Comments: count{2, 0}, Settings: map[string]int{"updated": 0, "skipped": 0},
		Warnings: []string{
			`WordPress post "a-week-in-rome": script removed`,
			`1 items of type "attachment" skipped`,
			`1 items of type "nav_menu_item" skipped`,
			`1 comments marked "spam" skipped`,
			`1 pending comments skipped`,
		}}
	if !reflect.DeepEqual(res, want) {
		t.Fatalf("result\n got %+v\nwant %+v", res, want)
	}
	wantPosts := map[string]postSummary{
		"a-week-in-rome": {Slug: "a-week-in-rome", Title: "A week in Rome", Status: "published", Published: "2024-11-20T12:00:00Z",
			Summary: "Our week in Rome.", Category: "travel", Tags: []string{"italy", "pasta"}, ShowComments: true,
			Cover: "https://wp.example.org/wp-content/uploads/2024/11/rome.jpg"},
		"notes-for-later": {Slug: "notes-for-later", Title: "Notes for later", Status: "draft", Category: "uncategorized",
			Summary: "1. Not a list, just a number. Pack Go", Tags: []string{}},
	}
	if got := e.postSummaries(); !reflect.DeepEqual(got, wantPosts) {
		t.Fatalf("posts\n got %+v\nwant %+v", got, wantPosts)
	}
	var p post
	data(t, e.admin.Do("GET", "/api/v1/admin/posts/slug/a-week-in-rome", nil), 200, &p)
	wantMD := "We spent a week in **Rome**.\\\nIt was *wonderful*.\n\nThings we loved:\n\n- The [Forum](https://example.org/forum)\n- Gelato\n\n" +
		"![The Colosseum](https://wp.example.org/wp-content/uploads/2024/11/rome.jpg)\n\n" +
		"| Day | Sight |\n| --- | --- |\n| 1 | Colosseum |\n\nMore soon.\n"
	if *p.ContentMarkdown != wantMD {
		t.Fatalf("content\n got %q\nwant %q", *p.ContentMarkdown, wantMD)
	}
	s := e.snapshot()
	if len(s.Categories) != 2 || s.Categories[0]["name"] != "Travel & Food" && s.Categories[1]["name"] != "Travel & Food" {
		t.Fatalf("categories %+v", s.Categories)
	}
	var got []string
	for _, c := range s.Comments {
		got = append(got, c["author"].(string)+"|"+c["email"].(string)+"|"+c["content"].(string)+"|"+c["status"].(string)+"|"+c["created_at"].(string))
	}
	wantComments := []string{
		"Ann Reader|ann@example.org|Lovely! My trip was similar.|approved|2024-11-21T09:00:00Z",
		"Jo|jo@example.org|Thanks, Ann!|approved|2024-11-21T10:00:00Z",
	}
	if !slices.Equal(got, wantComments) {
		t.Fatalf("comments\n got %q\nwant %q", got, wantComments)
	}
	if len(s.Pages) != 1 || s.Pages[0]["slug"] != "about" || s.Pages[0]["sort_order"] != float64(3) ||
		s.Pages[0]["content_markdown"] != "## Hi!\n\nI am Jo. Write to [jo@example.org](mailto:jo@example.org).\n" {
		t.Fatalf("pages %+v", s.Pages)
	}

	again := e.importFile("wordpress.xml", readSample(t, "wordpress.xml"), "format", "wxr")
	if again.Posts != (count{0, 2}) || again.Pages != (count{0, 1}) || again.Categories != (count{0, 2}) ||
		again.Tags != (count{0, 2}) || again.Comments != (count{0, 2}) {
		t.Fatalf("second import %+v, want everything skipped", again)
	}
}

// TestImportedScriptNeverReachesThePage imports the WordPress sample, whose
// post holds a script and a table, and reads the post's public page: no
// script, and the table a table, not its escaped tags.
func TestImportedScriptNeverReachesThePage(t *testing.T) {
	e := newSiteEnv(t)
	e.importFile("wordpress.xml", readSample(t, "wordpress.xml"))
	r := e.anon.Do("GET", "/posts/a-week-in-rome", nil).Expect(200)
	body := string(r.Body)
	for _, bad := range []string{"tracking", "&lt;table", "&lt;th"} {
		if strings.Contains(body, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	for _, good := range []string{"<strong>Rome</strong>", `<a href="https://example.org/forum">Forum</a>`, "<th>Day</th>", "<td>Colosseum</td>"} {
		if !strings.Contains(body, good) {
			t.Errorf("the page lacks %q", good)
		}
	}
}
