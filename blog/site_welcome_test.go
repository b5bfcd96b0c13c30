package blog_test

import (
	"testing"
	"time"
)

// The first-run welcome of docs/operating.md#first-start.

const welcomeTitle = `<h2 id="welcome-title">Your new site is running</h2>`

func TestEmptySiteWelcomesUntilTheFirstPostIsPublished(t *testing.T) {
	e := newSiteEnv(t)
	e.setMode("classic")
	home := e.html("/", 200)
	siteHas(t, "empty home", home, welcomeTitle, `<meta name="robots" content="noindex">`, "POST /api/v1/admin/posts")
	siteLacks(t, "empty home", home, "No posts here yet.", "/console/login") // no console in this site

	// A draft and a scheduled post are nothing to read yet.
	e.createPost(map[string]any{"title": "Draft"})
	e.publish("Later", "slug", "later", "published_at", time.Now().Add(time.Hour))
	siteHas(t, "home with a draft and a scheduled post", e.html("/", 200), welcomeTitle)

	// The scheduled post's time comes: the welcome is gone, the cached
	// page with it.
	e.clock.advance(2 * time.Hour)
	home = e.html("/", 200)
	siteHas(t, "home once a post is visible", home, `href="/posts/later"`)
	siteLacks(t, "home once a post is visible", home, welcomeTitle, `content="noindex"`)

	// Other lists of an empty site say they are empty, without a welcome.
	siteLacks(t, "search", e.html("/search?q=nothing", 200), welcomeTitle)
}

func TestWelcomeGoesWithThePublishedPost(t *testing.T) {
	e := newConsoleSiteEnv(t)
	home := string(e.anon.Do("GET", "/", nil).Expect(200).Body)
	siteHas(t, "empty home", home, welcomeTitle,
		`<a class="welcome-action" href="/console/login?next=%2Fconsole%2Fblog%2Fposts%2Fnew">Sign in to write the first post</a>`)

	e.publish("First", "slug", "first")
	home = string(e.anon.Do("GET", "/", nil).Expect(200).Body)
	siteHas(t, "home after the first post", home, `href="/posts/first"`)
	siteLacks(t, "home after the first post", home, welcomeTitle, "/console/login")
}
