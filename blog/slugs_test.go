package blog_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The slug rules of docs/blog-api.md#slugs, for posts and pages alike.

// slugOf creates a post or page (res) through the API and returns its
// slug and id.
func (e *env) slugOf(res string, body map[string]any) (slug, id string) {
	e.t.Helper()
	var got struct{ ID, Slug string }
	data(e.t, e.admin.Do("POST", "/api/v1/admin/"+res, body), 201, &got)
	return got.Slug, got.ID
}

// adminSlug reads the slug of a post or page through the admin API.
func (e *env) adminSlug(res, id string) string {
	e.t.Helper()
	var got struct{ Slug string }
	data(e.t, e.admin.Do("GET", "/api/v1/admin/"+res+"/"+id, nil), 200, &got)
	return got.Slug
}

func TestRepeatedTitlesGetTheNextFreeSlug(t *testing.T) {
	long := strings.Repeat("abcdefghi ", 12) // slugifies to 119 characters, cut to 100
	for _, res := range []string{"posts", "pages"} {
		t.Run(res, func(t *testing.T) {
			e := newEnv(t)
			for _, tt := range []struct {
				title string
				slug  any // nil: the field left out
				want  string
			}{
				{"Same title", "", "same-title"},
				{"Same title", nil, "same-title-2"},
				{"Same  title!", "", "same-title-3"},
				{"Same title", "", "same-title-4"},
				{long, "", slugify100(long)},
				{long, "", strings.TrimRight(slugify100(long)[:98], "-") + "-2"},
			} {
				body := map[string]any{"title": tt.title}
				if tt.slug != nil {
					body["slug"] = tt.slug
				}
				if got, _ := e.slugOf(res, body); got != tt.want {
					t.Errorf("slug of %q = %q, want %q", tt.title, got, tt.want)
				}
			}
			// A freed number is used again; the others stay.
			_, id := e.slugOf(res, map[string]any{"title": "Gap"})
			e.slugOf(res, map[string]any{"title": "Gap"})
			data(t, e.admin.Do("DELETE", "/api/v1/admin/"+res+"/"+id, nil), 200, nil)
			if got, _ := e.slugOf(res, map[string]any{"title": "Gap"}); got != "gap" {
				t.Errorf("after deleting gap: %q", got)
			}
			if got, _ := e.slugOf(res, map[string]any{"title": "Gap"}); got != "gap-3" {
				t.Errorf("third gap: %q", got)
			}
		})
	}
}

// slugify100 is what the server derives from a title of ASCII words.
func slugify100(title string) string {
	s := strings.Join(strings.Fields(strings.ToLower(title)), "-")
	return strings.TrimRight(s[:min(len(s), 100)], "-")
}

func TestAnExplicitTakenSlugIsAConflict(t *testing.T) {
	for _, res := range []string{"posts", "pages"} {
		t.Run(res, func(t *testing.T) {
			e := newEnv(t)
			_, first := e.slugOf(res, map[string]any{"title": "Taken", "slug": "taken"})
			_, other := e.slugOf(res, map[string]any{"title": "Other"})
			expectError(t, e.admin.Do("POST", "/api/v1/admin/"+res, map[string]any{"title": "Taken", "slug": "taken"}), 409, "duplicate slug")
			expectError(t, e.admin.Do("PATCH", "/api/v1/admin/"+res+"/"+other, map[string]any{"slug": "taken"}), 409, "duplicate slug")
			expectError(t, e.admin.Do("PUT", "/api/v1/admin/"+res+"/"+other, map[string]any{"title": "x", "slug": "taken"}), 409, "duplicate slug")
			if got := e.adminSlug(res, first); got != "taken" {
				t.Errorf("first slug = %q", got)
			}
		})
	}
}

func TestSlugOnUpdateFollowsTheTitleUntilPublished(t *testing.T) {
	past := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	tests := []struct {
		name   string
		res    string
		create map[string]any
		method string
		update map[string]any
		want   string
		moved  bool // the old slug answers 301 on the public API
	}{
		{"published post: title typo fixed by PATCH", "posts", map[string]any{"title": "Helo world", "status": "published"},
			"PATCH", map[string]any{"title": "Hello world"}, "helo-world", false},
		{"published post: PATCH with an empty slug", "posts", map[string]any{"title": "Helo world", "status": "published"},
			"PATCH", map[string]any{"title": "Hello world", "slug": ""}, "helo-world", false},
		{"published post: PUT without a slug", "posts", map[string]any{"title": "Helo world", "status": "published"},
			"PUT", map[string]any{"title": "Hello world", "status": "published"}, "helo-world", false},
		{"published post taken back to draft", "posts", map[string]any{"title": "Helo world", "status": "published"},
			"PUT", map[string]any{"title": "Hello world"}, "helo-world", false},
		{"scheduled post", "posts", map[string]any{"title": "Helo world", "status": "published", "published_at": future},
			"PUT", map[string]any{"title": "Hello world", "status": "published", "published_at": future}, "helo-world", false},
		{"archived post", "posts", map[string]any{"title": "Helo world", "status": "archived"},
			"PUT", map[string]any{"title": "Hello world", "status": "archived"}, "helo-world", false},
		{"draft with a past date", "posts", map[string]any{"title": "Helo world", "published_at": past},
			"PUT", map[string]any{"title": "Hello world", "published_at": past}, "helo-world", false},
		{"published post: slug changed on purpose", "posts", map[string]any{"title": "Helo world", "status": "published"},
			"PATCH", map[string]any{"title": "Hello world", "slug": "hello-world"}, "hello-world", true},
		{"draft: PUT follows the title", "posts", map[string]any{"title": "Helo world"},
			"PUT", map[string]any{"title": "Hello world"}, "hello-world", false},
		{"draft: empty slug follows the title", "posts", map[string]any{"title": "Helo world"},
			"PATCH", map[string]any{"title": "Hello world", "slug": ""}, "hello-world", false},
		{"draft: PATCH without a slug leaves it", "posts", map[string]any{"title": "Helo world"},
			"PATCH", map[string]any{"title": "Hello world"}, "helo-world", false},
		{"draft: a taken title gets a free slug", "posts", map[string]any{"title": "Helo world"},
			"PUT", map[string]any{"title": "Elsewhere"}, "elsewhere-2", false},
		{"published page: title typo fixed", "pages", map[string]any{"title": "Abuot", "status": "published"},
			"PUT", map[string]any{"title": "About", "status": "published"}, "abuot", false},
		{"published page: slug changed on purpose", "pages", map[string]any{"title": "Abuot", "status": "published"},
			"PATCH", map[string]any{"slug": "about"}, "about", true},
		{"draft page follows the title", "pages", map[string]any{"title": "Abuot"},
			"PUT", map[string]any{"title": "About"}, "about", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.slugOf(tt.res, map[string]any{"title": "Elsewhere", "status": "published"})
			old, id := e.slugOf(tt.res, tt.create)
			data(t, e.admin.Do(tt.method, "/api/v1/admin/"+tt.res+"/"+id, tt.update), 200, nil)
			if got := e.adminSlug(tt.res, id); got != tt.want {
				t.Fatalf("slug after %s = %q, want %q (was %q)", tt.method, got, tt.want, old)
			}
			if tt.moved {
				expectMoved(t, e, "/api/v1/"+tt.res+"/slug/"+old, id, tt.want, "/api/v1/"+tt.res+"/slug/"+tt.want)
			}
		})
	}
}

func TestConsoleSlugRules(t *testing.T) {
	e := newConsoleEnv(t)
	tok := e.editorToken()

	// The editor sends the slug as typed: empty lets the server choose.
	first := e.createInConsole(tok, "title", "Same title")
	second := e.createInConsole(tok, "title", "Same title")
	if a, b := e.adminPost(first).Slug, e.adminPost(second).Slug; a != "same-title" || b != "same-title-2" {
		t.Fatalf("repeated titles: %q, %q", a, b)
	}
	// A taken slug typed on purpose is refused, with what was typed kept.
	res := e.admin.PostForm("/console/blog/posts", consolePostForm(tok, "title", "Third", "slug", "same-title")...).Expect(409)
	if !has(res, "duplicate slug", `value="Third"`) {
		t.Fatalf("taken slug: %s", res.Body)
	}

	// A draft follows its title; once published the slug stays.
	e.admin.PostForm("/console/blog/posts/"+first, consolePostForm(tok, "title", "Helo world")...).Expect(303)
	if got := e.adminPost(first).Slug; got != "helo-world" {
		t.Fatalf("draft after a new title: %q", got)
	}
	e.admin.PostForm("/console/blog/posts/"+first, consolePostForm(tok, "title", "Helo world", "status", "published")...).Expect(303)
	e.admin.PostForm("/console/blog/posts/"+first, consolePostForm(tok, "title", "Hello world", "status", "published")...).Expect(303)
	if got := e.adminPost(first).Slug; got != "helo-world" {
		t.Fatalf("published post after a typo fix: %q", got)
	}
	// Changing it on purpose moves the post; the old address redirects.
	e.admin.PostForm("/console/blog/posts/"+first, consolePostForm(tok, "title", "Hello world", "slug", "hello-world", "status", "published")...).Expect(303)
	expectMoved(t, e, "/api/v1/posts/slug/helo-world", first, "hello-world", "/api/v1/posts/slug/hello-world")

	// Pages alike.
	var ids []string
	for range 2 {
		r := e.submit("/console/blog/pages", "title", "Contact", "template", "default", "status", "published").Expect(303)
		ids = append(ids, strings.TrimPrefix(r.Location(), "/console/blog/pages/"))
	}
	if a, b := e.adminSlug("pages", ids[0]), e.adminSlug("pages", ids[1]); a != "contact" || b != "contact-2" {
		t.Fatalf("repeated page titles: %q, %q", a, b)
	}
	e.submit("/console/blog/pages/"+ids[1], "title", "Contact us", "template", "default", "status", "published").Expect(303)
	if got := e.adminSlug("pages", ids[1]); got != "contact-2" {
		t.Fatalf("published page after a new title: %q", got)
	}
}

func TestConcurrentCreatesWithOneTitleAllGetASlug(t *testing.T) {
	const n = 8
	for _, res := range []string{"posts", "pages"} {
		t.Run(res, func(t *testing.T) {
			e := newEnv(t)
			var wg sync.WaitGroup
			slugs := make([]string, n)
			problems := make([]string, n)
			for i := range n {
				wg.Go(func() {
					r := e.admin.Do("POST", "/api/v1/admin/"+res, map[string]any{"title": "Rush hour", "status": "published"})
					var body struct{ Data struct{ Slug string } }
					if err := json.Unmarshal(r.Body, &body); r.Status != 201 || err != nil {
						problems[i] = fmt.Sprintf("%d %s", r.Status, r.Body)
						return
					}
					slugs[i] = body.Data.Slug
				})
			}
			wg.Wait()
			for _, p := range problems {
				if p != "" {
					t.Errorf("create: %s", p)
				}
			}
			slices.Sort(slugs)
			want := []string{"rush-hour"}
			for i := 2; i <= n; i++ {
				want = append(want, fmt.Sprintf("rush-hour-%d", i))
			}
			slices.Sort(want)
			if !slices.Equal(slugs, want) {
				t.Errorf("slugs = %q, want %q", slugs, want)
			}
		})
	}
}
