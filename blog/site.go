package blog

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"folio/httpx"
	"folio/sqlstore"
	"folio/templates"
)

// Site is the classic, server-rendered blog: HTML pages, feeds, sitemap and
// the comment form. Its routes answer only while render.render_mode is
// classic; in headless mode they give the API's JSON 404.
type Site struct {
	b       *Blog
	engine  *templates.Engine
	started time.Time // the site may look different after a restart (theme, file settings)
	cache   *pageCache
	changed changedChecks
	state   atomic.Pointer[siteState] // the last one checked
	renders renderCalls
	side    atomic.Pointer[sidebarTerms] // the sidebar's, for one state
	hdr     struct {
		csp, noCache []string
		lastMod      atomic.Pointer[formattedTime]
	}
}

// NewSite builds the site on b, rendering with e. e must have been built
// with the same page templates as b (templates.FS, or its theme overlay).
func NewSite(b *Blog, e *templates.Engine) (*Site, error) {
	if b == nil || e == nil {
		return nil, errors.New("blog: NewSite needs a blog and a template engine")
	}
	s := &Site{b: b, engine: e, started: b.now(), cache: newPageCache()}
	s.hdr.csp = []string{siteCSP}
	s.hdr.noCache = []string{"no-cache"}
	return s, nil
}

// Feed and search bounds.
const (
	feedEntries     = 20
	maxQueryRunes   = 200
	maxFormBytes    = 64 << 10
	maxSiteComments = 500 // shown under one post
)

// baseURL is the origin of absolute links: site.site_url when it is an
// absolute http(s) URL, else the request's own (server.base_url or Host).
func (s *Site) baseURL(r *http.Request) string {
	if u := s.b.siteURL(r.Context()); u != "" {
		return u
	}
	return httpx.BaseURL(r)
}

// view starts a page's view: site settings, navigation and sidebar.
func (s *Site) view(r *http.Request, title string) (*templates.View, error) {
	ctx := r.Context()
	set := s.b.settings.Get(ctx)
	base := s.baseURL(r)
	v := &templates.View{
		Site: templates.Site{
			Name:        set.Site.SiteName,
			Description: set.Site.Description,
			Keywords:    set.Site.Keywords,
			Logo:        set.Site.Logo,
			Favicon:     set.Site.Favicon,
			Footer:      set.Site.Footer,
			ICP:         set.Site.ICP,
			BaseURL:     base,
			Year:        s.b.now().Year(),
		},
		Meta: templates.Meta{
			Title:       title,
			Description: set.Site.Description,
			Keywords:    set.Site.Keywords,
			Canonical:   base + r.URL.EscapedPath(),
			Type:        "website",
			Image:       absoluteURL(base, set.Post.DefaultCoverURL),
		},
	}
	nav, err := s.b.navPages(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range nav {
		u := "/pages/" + url.PathEscape(p.Slug)
		v.Nav = append(v.Nav, templates.Link{Title: p.Title, URL: u, Current: r.URL.Path == u})
	}
	side, err := s.sidebar(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range side.cats {
		v.Categories = append(v.Categories, templates.Term(c))
	}
	for _, t := range side.tags {
		v.Tags = append(v.Tags, templates.Term(t))
	}
	friends, err := s.b.activeFriends(ctx)
	if err != nil {
		return nil, err
	}
	for _, f := range friends {
		v.Friends = append(v.Friends, templates.Friend(f))
	}
	return v, nil
}

// absoluteURL makes a cover or image URL absolute for OpenGraph; anything but a
// site path or an http(s) URL is dropped.
func absoluteURL(base, u string) string {
	switch {
	case u == "":
		return ""
	case strings.HasPrefix(u, "/") && !strings.HasPrefix(u, "//"):
		return base + u
	case strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://"):
		return u
	}
	return ""
}

func siteSummary(it PostItem) templates.PostSummary {
	ps := templates.PostSummary{Title: it.Title, Slug: it.Slug, Summary: it.Summary, Cover: it.CoverImage}
	if it.PublishedAt != nil {
		ps.PublishedAt = *it.PublishedAt
	}
	if it.Category != nil {
		ps.Category = &templates.Term{Name: it.Category.Name, Slug: it.Category.Slug}
	}
	for _, t := range it.Tags {
		ps.Tags = append(ps.Tags, templates.Term{Name: t.Name, Slug: t.Slug})
	}
	return ps
}

// postChangedAt is the newest of a post's update and publication times.
func postChangedAt(it PostItem) time.Time {
	t := it.UpdatedAt
	if it.PublishedAt != nil && it.PublishedAt.After(t) {
		t = *it.PublishedAt
	}
	return t
}

// sitePageNumber reads ?page=; anything but a whole number from 1 is a page
// that does not exist.
func sitePageNumber(r *http.Request) (int, error) {
	s := r.URL.Query().Get("page")
	if s == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 1_000_000 {
		return 0, httpx.NotFound()
	}
	return n, nil
}

// list renders a paged list of visible posts matching f. pageURL builds the
// link to another page of the same list.
func (s *Site) list(r *http.Request, kind string, v *templates.View, f postFilter, pageURL func(n int) string) (*answer, error) {
	n, err := sitePageNumber(r)
	if err != nil {
		return nil, err
	}
	size := s.b.settings.Get(r.Context()).Post.PostsPerPage
	f.Public = true
	items, total, err := s.b.listPosts(r.Context(), f, spanOf(httpx.Paging{Page: n, Size: size}))
	if err != nil {
		return nil, err
	}
	pages := max(1, (total+size-1)/size)
	if n > pages {
		return nil, httpx.NotFound()
	}
	if kind == templates.KindHome && total == 0 {
		v.Welcome = s.welcome()
		v.Meta.NoIndex = true // nothing to find yet
	}
	covers := make([]*templates.PostSummary, len(items))
	v.Posts = make([]templates.PostSummary, len(items))
	for i, it := range items {
		v.Posts[i] = siteSummary(it)
		covers[i] = &v.Posts[i]
	}
	s.b.sizeSiteCovers(r.Context(), covers)
	v.Pager = templates.Pager{Page: n, Pages: pages}
	if n > 1 {
		v.Pager.PrevURL = pageURL(n - 1)
		v.Meta.Canonical = v.Site.BaseURL + pageURL(n)
	}
	if n < pages {
		v.Pager.NextURL = pageURL(n + 1)
	}
	return s.renderHTML(kind, v)
}

// sitePagedURL adds page=n to path and its other query parameters q, leaving
// it out for the first page.
func sitePagedURL(path string, q url.Values) func(n int) string {
	return func(n int) string {
		v := url.Values{}
		for k, vals := range q {
			v[k] = vals
		}
		v.Del("page")
		if n > 1 {
			v.Set("page", strconv.Itoa(n))
		}
		if e := v.Encode(); e != "" {
			return path + "?" + e
		}
		return path
	}
}

func (s *Site) renderHTML(kind string, v *templates.View) (*answer, error) {
	body, err := s.engine.Render(kind, v)
	if err != nil {
		return nil, err
	}
	return &answer{ctype: "text/html; charset=utf-8", body: body}, nil
}

// welcome is the first-run note of a site with no visible post: it is
// shown to everyone, as the page is cached for all alike, and goes with
// the first published post, which moves the site's state on and so
// renders the home page again (site_cache.go).
func (s *Site) welcome() *templates.Welcome {
	w := &templates.Welcome{}
	if s.b.console != nil {
		w.SignInURL = "/console/login?next=" + url.QueryEscape("/console/blog/posts/new")
	}
	return w
}

func (s *Site) home(w http.ResponseWriter, r *http.Request) (*answer, error) {
	v, err := s.view(r, "")
	if err != nil {
		return nil, err
	}
	return s.list(r, templates.KindHome, v, postFilter{}, sitePagedURL("/", nil))
}

func (s *Site) category(w http.ResponseWriter, r *http.Request) (*answer, error) {
	return s.termList(r, categories, templates.KindCategory)
}

func (s *Site) tag(w http.ResponseWriter, r *http.Request) (*answer, error) {
	return s.termList(r, tags, templates.KindTag)
}

func (s *Site) termList(r *http.Request, table termTable, kind string) (*answer, error) {
	t, err := s.b.termBySlug(r.Context(), table, r.PathValue("slug"))
	if err != nil {
		return nil, err
	}
	title := t.Name
	if table == tags {
		title = "#" + t.Name
	}
	v, err := s.view(r, title)
	if err != nil {
		return nil, err
	}
	v.Term = templates.Term{Name: t.Name, Slug: t.Slug}
	v.Meta.Description = v.Site.Name + ": posts in " + title
	f := postFilter{CategoryID: t.ID}
	if table == tags {
		f = postFilter{TagID: t.ID}
	}
	return s.list(r, kind, v, f, sitePagedURL(r.URL.EscapedPath(), nil))
}

func (s *Site) search(w http.ResponseWriter, r *http.Request) (*answer, error) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if !utf8.ValidString(q) {
		q = strings.ToValidUTF8(q, "")
	}
	if utf8.RuneCountInString(q) > maxQueryRunes {
		q = string([]rune(q)[:maxQueryRunes])
	}
	title := "Search"
	if q != "" {
		title = "Search: " + q
	}
	v, err := s.view(r, title)
	if err != nil {
		return nil, err
	}
	v.Query = q
	v.Meta.NoIndex = true
	v.Meta.Canonical = v.Site.BaseURL + "/search"
	if q == "" {
		return s.renderHTML(templates.KindSearch, v)
	}
	return s.list(r, templates.KindSearch, v, postFilter{Keyword: q}, sitePagedURL("/search", url.Values{"q": {q}}))
}

// postView renders a visible post with its approved comments and form.
func (s *Site) postView(r *http.Request, p *Post, form templates.CommentForm) (*templates.View, error) {
	ctx := r.Context()
	set := s.b.settings.Get(ctx)
	v, err := s.view(r, p.Title)
	if err != nil {
		return nil, err
	}
	base := v.Site.BaseURL
	v.Meta.Type = "article"
	v.Meta.Canonical = base + "/posts/" + url.PathEscape(p.Slug)
	if p.Summary != "" {
		v.Meta.Description = p.Summary
	}
	if img := absoluteURL(base, p.CoverImage); img != "" {
		v.Meta.Image = img
	}
	if p.PublishedAt != nil {
		v.Meta.Published = *p.PublishedAt
	}
	v.Meta.Modified = p.UpdatedAt
	var keywords []string
	for _, t := range p.Tags {
		keywords = append(keywords, t.Name)
	}
	if len(keywords) > 0 {
		v.Meta.Keywords = strings.Join(keywords, ", ")
	}
	post := &templates.Post{
		PostSummary:  siteSummary(p.PostItem),
		ContentHTML:  readerHTML(p.ContentHTML),
		ShowComments: p.ShowComments,
		CommentsOpen: p.ShowComments && set.Post.EnableComment,
	}
	// "Updated" only for a real edit, not the seconds between saving and
	// publishing.
	if p.PublishedAt != nil && p.UpdatedAt.Sub(*p.PublishedAt) > 24*time.Hour {
		post.UpdatedAt = p.UpdatedAt
	}
	for _, e := range p.TOC {
		post.TOC = append(post.TOC, templates.TOCEntry{Level: e.Level, Text: e.Text, ID: e.ID})
	}
	s.b.sizeSiteCovers(ctx, []*templates.PostSummary{&post.PostSummary})
	v.Post = post
	v.Form = form
	if p.ShowComments {
		comments, _, err := s.b.approvedComments(ctx, p.ID, span{limit: maxSiteComments})
		if err != nil {
			return nil, err
		}
		v.Comments = siteComments(comments)
	}
	return v, nil
}

// commentNotice is shown after the redirect of a successful submission.
const commentNotice = "Thank you! Your comment awaits moderation."

func (s *Site) post(w http.ResponseWriter, r *http.Request) (*answer, error) {
	p, err := s.b.postBy(r.Context(), "slug", r.PathValue("slug"), true)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return s.moved(w, r, err, kindPost, "/posts/")
	}
	if err != nil {
		return nil, err
	}
	var form templates.CommentForm
	if r.URL.Query().Get("comment") == "pending" {
		form.Notice = commentNotice
	}
	v, err := s.postView(r, p, form)
	if err != nil {
		return nil, err
	}
	return s.renderHTML(templates.KindPost, v)
}

func (s *Site) page(w http.ResponseWriter, r *http.Request) (*answer, error) {
	p, err := s.b.pageBy(r.Context(), "slug", r.PathValue("slug"), true)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return s.moved(w, r, err, kindPage, "/pages/")
	}
	if err != nil {
		return nil, err
	}
	v, err := s.view(r, p.Title)
	if err != nil {
		return nil, err
	}
	v.Meta.Canonical = v.Site.BaseURL + "/pages/" + url.PathEscape(p.Slug)
	v.Meta.Modified = p.UpdatedAt
	p.ContentHTML = readerHTML(p.ContentHTML) // p is this request's own copy
	v.Page = p
	v.Config = p.ConfigMap()
	name := p.Template
	if !s.engine.HasPage(name) {
		// Saving checks the template exists, but a theme may differ.
		httpx.Logger(r).Warn("page template missing; using default", "page", p.ID, "template", name)
		name = "default"
	}
	body, err := s.engine.RenderPage(name, v)
	if err != nil {
		return nil, err
	}
	return &answer{ctype: "text/html; charset=utf-8", body: body}, nil
}

// feed gathers the newest visible posts as a templates.Feed.
func (s *Site) feed(r *http.Request, self string) (templates.Feed, error) {
	set := s.b.settings.Get(r.Context())
	base := s.baseURL(r)
	posts, err := s.b.feedPosts(r.Context(), feedEntries)
	if err != nil {
		return templates.Feed{}, err
	}
	f := templates.Feed{Title: set.Site.SiteName, Description: set.Site.Description, SiteURL: base, FeedURL: base + self}
	for _, p := range posts {
		e := templates.FeedEntry{
			Title:       p.Title,
			URL:         base + "/posts/" + url.PathEscape(p.Slug),
			Summary:     p.Summary,
			ContentHTML: p.ContentHTML,
			Updated:     postChangedAt(p.PostItem),
		}
		if p.PublishedAt != nil {
			e.Published = *p.PublishedAt
		}
		if p.Category != nil {
			e.Categories = append(e.Categories, p.Category.Name)
		}
		for _, t := range p.Tags {
			e.Categories = append(e.Categories, t.Name)
		}
		if e.Updated.After(f.Updated) {
			f.Updated = e.Updated
		}
		f.Entries = append(f.Entries, e)
	}
	return f, nil
}

func (s *Site) rss(w http.ResponseWriter, r *http.Request) (*answer, error) {
	f, err := s.feed(r, "/feed.xml")
	if err != nil {
		return nil, err
	}
	body, err := templates.RSS(f)
	if err != nil {
		return nil, err
	}
	return &answer{ctype: "application/rss+xml; charset=utf-8", body: body}, nil
}

func (s *Site) atom(w http.ResponseWriter, r *http.Request) (*answer, error) {
	f, err := s.feed(r, "/atom.xml")
	if err != nil {
		return nil, err
	}
	body, err := templates.Atom(f)
	if err != nil {
		return nil, err
	}
	return &answer{ctype: "application/atom+xml; charset=utf-8", body: body}, nil
}

func (s *Site) sitemap(w http.ResponseWriter, r *http.Request) (*answer, error) {
	ctx := r.Context()
	base := s.baseURL(r)
	posts, err := s.b.sitemapPosts(ctx)
	if err != nil {
		return nil, err
	}
	var last time.Time
	urls := []templates.SitemapURL{{Loc: base + "/"}}
	for _, p := range posts {
		urls = append(urls, templates.SitemapURL{Loc: base + "/posts/" + url.PathEscape(p.Slug), LastMod: p.Updated})
		if p.Updated.After(last) {
			last = p.Updated
		}
	}
	urls[0].LastMod = last
	pages, err := s.b.publicPages(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range pages {
		urls = append(urls, templates.SitemapURL{Loc: base + "/pages/" + url.PathEscape(p.Slug), LastMod: p.UpdatedAt})
		if p.UpdatedAt.After(last) {
			last = p.UpdatedAt
		}
	}
	cats, err := s.b.usedCategories(ctx, sitemapMaxTerms)
	if err != nil {
		return nil, err
	}
	for _, c := range cats {
		urls = append(urls, templates.SitemapURL{Loc: base + "/categories/" + url.PathEscape(c.Slug)})
	}
	tagList, err := s.b.usedTags(ctx, sitemapMaxTerms)
	if err != nil {
		return nil, err
	}
	for _, t := range tagList {
		urls = append(urls, templates.SitemapURL{Loc: base + "/tags/" + url.PathEscape(t.Slug)})
	}
	body, err := templates.Sitemap(urls)
	if err != nil {
		return nil, err
	}
	return &answer{ctype: "application/xml; charset=utf-8", body: body}, nil
}

func (s *Site) robots(w http.ResponseWriter, r *http.Request) (*answer, error) {
	return &answer{ctype: "text/plain; charset=utf-8", body: templates.Robots(s.baseURL(r))}, nil
}

// static serves the theme's assets; their names carry a content hash.
func (s *Site) static(w http.ResponseWriter, r *http.Request) {
	if !s.classic(r) {
		httpx.BlogAPI.Error(w, r, httpx.NotFound())
		return
	}
	if !s.engine.ServeAsset(w, r, r.PathValue("file")) {
		s.errorPage(w, r, http.StatusNotFound)
	}
}

// DropCache forgets the rendered pages. The server calls it when a burst
// of visitors is over: a quiet site gains little from them, and a small
// host wants the memory back (docs/design.md, Memory).
func (s *Site) DropCache() { s.cache.clear() }

// moved answers a post or page whose slug missed: 301 to its new slug
// under prefix, the query kept, when a visible one gave that slug up
// (docs/blog-api.md#slug-changes); miss otherwise. The redirect is never
// cached (the handler answers it itself) and says no-cache, so a slug
// taken again later wins at once.
func (s *Site) moved(w http.ResponseWriter, r *http.Request, miss error, kind, prefix string) (*answer, error) {
	_, slug, err := s.b.movedTo(r.Context(), kind, r.PathValue("slug"), true)
	if errors.Is(err, sqlstore.ErrNotFound) {
		return nil, miss
	}
	if err != nil {
		return nil, err
	}
	loc := prefix + url.PathEscape(slug)
	if r.URL.RawQuery != "" {
		loc += "?" + r.URL.RawQuery
	}
	w.Header().Set("Cache-Control", "no-cache")
	http.Redirect(w, r, loc, http.StatusMovedPermanently)
	return nil, nil
}
