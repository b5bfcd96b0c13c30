package blog_test

import (
	"strings"
	"testing"

	"folio/blog"
)

// settingsFields is a full settings form; extra pairs replace or add
// fields.
func settingsFields(extra ...string) []string {
	f := map[string]string{
		"site.site_name": "Console Blog", "site.site_url": "", "site.description": "About things", "site.keywords": "a, b",
		"site.favicon": "", "site.logo": "", "site.icp": "", "site.footer": "Foot",
		"post.posts_per_page": "7", "post.summary_length": "150", "post.revisions_kept": "5", "post.default_cover_url": "", "post.enable_comment": "1",
		"render.render_mode": "classic", "ai.provider": "openai", "ai.base_url": "", "ai.model": "gpt-x", "ai.api_key": "",
	}
	for i := 0; i+1 < len(extra); i += 2 {
		f[extra[i]] = extra[i+1]
	}
	var out []string
	for k, v := range f {
		out = append(out, k, v)
	}
	return out
}

func TestBlogConsoleSettings(t *testing.T) {
	e := newConsoleSiteEnv(t)
	const key = "sk-secret-key-abcd1234"
	data(t, e.admin.Do("PUT", "/api/v1/admin/settings", map[string]any{"ai": map[string]any{"api_key": key}}), 200, nil)

	res, _ := consolePage(t, e.admin, "/console/blog/settings", 200)
	if !has(res, "<title>Blog settings · ", `name="site.site_name" type="text" value="Folio"`, `name="post.posts_per_page" type="text" value="10"`, `name="post.revisions_kept" type="text" value="20"`,
		`<option value="classic" selected>classic</option>`, `id="render-api-prefix" type="text" value="/api/v1" readonly`,
		`name="ai.api_key" type="password" autocomplete="off" value=""`, "A key ending in …1234 is stored; leave empty to keep it.",
		`name="remove_api_key"`) || has(res, key) {
		t.Fatalf("settings page: %s", res.Body)
	}

	// Saved with the key field empty: the key stays.
	consoleFlash(t, e.admin, e.submit("/console/blog/settings", settingsFields("post.enable_toc", "1")...), "Settings saved.")
	if k := e.settings.AI.Get(t.Context()).APIKey; k != key {
		t.Fatalf("key after an empty field: %q", k)
	}
	s := e.settings.Get(t.Context())
	if s.Site.SiteName != "Console Blog" || s.Post.PostsPerPage != 7 || s.Post.RevisionsKept != 5 || !s.Post.EnableComment || !s.Post.EnableTOC ||
		s.Render.EnableCORS || s.AI.Model != "gpt-x" || s.Render.APIPrefix != "/api/v1" {
		t.Fatalf("stored: %+v", s)
	}
	// The new name shows on the site and in the console's title.
	if site := e.anon.Do("GET", "/", nil).Expect(200); !has(site, "Console Blog") {
		t.Fatalf("site: %.500s", site.Body)
	}
	if res, _ := consolePage(t, e.admin, "/console/blog/settings", 200); !has(res, "<title>Blog settings · Console Blog</title>") {
		t.Fatalf("title: %.300s", res.Body)
	}

	// Refused values: 422 naming the field, the input kept, nothing stored.
	for _, tc := range []struct{ field, value, msg string }{
		{"post.posts_per_page", "0", "Not saved. Posts per page: must be between 1 and 100."},
		{"post.posts_per_page", "many", "Not saved. Posts per page: must be a whole number."},
		{"post.summary_length", "-1", "Not saved. Summary length: "},
		{"post.revisions_kept", "1001", "Not saved. Revisions kept: "},
		{"post.revisions_kept", "some", "Not saved. Revisions kept: must be a whole number."},
		{"render.render_mode", "fancy", "Not saved. Render mode: "},
		{"ai.provider", "other", "Not saved. Provider: "},
		{"ai.base_url", "ftp://x", "Not saved. Base URL: "},
	} {
		t.Run(tc.field+"="+tc.value, func(t *testing.T) {
			res := e.submit("/console/blog/settings", settingsFields(tc.field, tc.value, "site.site_name", "Not Stored", "ai.api_key", "sk-new-key-0000")...).Expect(422)
			if !has(res, tc.msg, `value="Not Stored"`, `aria-invalid="true"`) || has(res, "sk-new-key-0000", key) {
				t.Fatalf("422: %s", res.Body)
			}
			if got := e.settings.Get(t.Context()); got.Site.SiteName != "Console Blog" || got.AI.APIKey != key {
				t.Fatalf("stored after a refusal: %+v", got)
			}
		})
	}

	// A new key replaces the old; the remove box clears it.
	consoleFlash(t, e.admin, e.submit("/console/blog/settings", settingsFields("ai.api_key", "sk-another-key-9876")...), "Settings saved.")
	if k := e.settings.AI.Get(t.Context()).APIKey; k != "sk-another-key-9876" {
		t.Fatalf("new key: %q", k)
	}
	res, _ = consolePage(t, e.admin, "/console/blog/settings", 200)
	if !has(res, "A key ending in …9876 is stored") || has(res, "sk-another-key-9876") {
		t.Fatalf("page with the new key: %s", res.Body)
	}
	consoleFlash(t, e.admin, e.submit("/console/blog/settings", settingsFields("remove_api_key", "1", "ai.api_key", "ignored")...), "Settings saved.")
	if k := e.settings.AI.Get(t.Context()).APIKey; k != "" {
		t.Fatalf("key after removing: %q", k)
	}
	res, _ = consolePage(t, e.admin, "/console/blog/settings", 200)
	if !has(res, "No key is stored.") || has(res, `name="remove_api_key"`) {
		t.Fatalf("page without a key: %s", res.Body)
	}
}

// Every setting a blog page refuses is named by the label its form shows.
func TestSettingLabelsAreTheFormsLabels(t *testing.T) {
	e := newConsoleEnv(t)
	pages := ""
	for _, p := range []string{"/console/blog/settings", "/console/blog/federation"} {
		res, _ := consolePage(t, e.admin, p, 200)
		pages += string(res.Body)
	}
	for key, label := range blog.SettingLabels() {
		if !strings.Contains(pages, label) {
			t.Errorf("%s: the label %q is on no settings page", key, label)
		}
		if key != "render.api_prefix" /* shown, read-only */ && !strings.Contains(pages, `name="`+key+`"`) {
			t.Errorf("%s: no settings page has a field named so", key)
		}
	}
}
