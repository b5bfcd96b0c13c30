package blog_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"folio/blog/importtest"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/auth"
	"folio/blog"
	"folio/httpx/outbound"
)

// Bringing images home (docs/export-import.md#bringing-images-home), with
// a file host of memory behind blog.MediaStore; cmd/folio's tests do it
// with the real file host.

// memMedia keeps imported files in memory, one per content, as the file
// host does.
type memMedia struct {
	mu     sync.Mutex
	files  map[string][]byte // link → bytes
	owners map[string]string // link → owner
}

func newMemMedia() *memMedia {
	return &memMedia{files: map[string][]byte{}, owners: map[string]string{}}
}

func (m *memMedia) ImportMedia(_ context.Context, owner, name, kind string, r io.Reader) (string, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return "", err
	}
	if len(b) == 0 {
		return "", errors.New("file is empty")
	}
	t, _, _ := mime.ParseMediaType(http.DetectContentType(b))
	if kind == "image" && !strings.HasPrefix(t, "image/") {
		return "", fmt.Errorf("it is not an image but %s", t)
	}
	sum := sha256.Sum256(b)
	prefix := "/f/"
	if strings.HasPrefix(t, "image/") {
		prefix = "/i/"
	}
	link := prefix + hex.EncodeToString(sum[:6])
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files[link] = b
	m.owners[link] = owner
	return link, nil
}

func (m *memMedia) MediaExists(_ context.Context, link string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.files[link]
	return ok, nil
}

func (m *memMedia) remove(link string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.files, link)
}

func (m *memMedia) get(link string) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.files[link]
}

// oldSite stands for the site an export comes from.
type oldSite = importtest.OldSite

// Pictures of a few bytes that sniff as what they are.
var (
	pngHead = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
	jpgHead = "\xff\xd8\xff\xe0\x00\x10JFIF\x00"
)

func picture(head, body string) []byte { return []byte(head + body) }

// newOldSite serves the files the test exports reference, besides these
// behaviours: gone.jpg is missing, soft-404.jpg is a web page, huge.png is
// larger than the tests' limit, loop.jpg redirects to itself and moved.jpg
// arrives after two redirects.
func newOldSite(t *testing.T) *oldSite {
	t.Helper()
	return importtest.NewOldSite(t, map[string][]byte{
		"/wp-content/uploads/2024/11/forum.jpg":            picture(jpgHead, "the forum"),
		"/wp-content/uploads/2024/11/forum-copy.jpg":       picture(jpgHead, "the forum"),
		"/wp-content/uploads/2024/11/fountain.png":         picture(pngHead, "a fountain, large"),
		"/wp-content/uploads/2024/11/fountain-300x200.png": picture(pngHead, "a fountain, small"),
		"/wp-content/uploads/2024/11/map.png":              picture(pngHead, "our map"),
		"/wp-content/uploads/2024/11/menu.pdf":             []byte("%PDF-1.4 the menu"),
		"/wp-content/uploads/2024/01/us.png":               picture(pngHead, "Sam and Alex"),
		"/wp-content/uploads/moved-here.jpg":               picture(jpgHead, "moved"),
		"/media/sunset.png":                                picture(pngHead, "a sunset"),
		"/media/notes.pdf":                                 []byte("%PDF-1.4 notes"),
		"/wp-content/uploads/huge.png":                     picture(pngHead, strings.Repeat("x", 100<<10)),
		"/blog/content/images/2024/11/cat.jpg":             picture(jpgHead, "the cat"),
		"/blog/content/images/2024/11/cat-cover.png":       picture(pngHead, "the cat, wide"),
		"/blog/content/files/2024/11/cat-facts.pdf":        []byte("%PDF-1.4 cats"),
	})
}

// cdnOf is another host name for s: localhost rather than 127.0.0.1.
func cdnOf(s *oldSite) string {
	u, _ := url.Parse(s.URL)
	return "http://localhost:" + u.Port()
}

// mediaFixture reads an export of testdata/import/media with the old
// site's addresses put in.
func mediaFixture(t *testing.T, name, old, cdn string) []byte {
	t.Helper()
	b, err := os.ReadFile("../testdata/import/media/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return []byte(strings.NewReplacer("{{OLD}}", old, "{{CDN}}", cdn).Replace(string(b)))
}

// mediaBlog is a blog that brings images home into m, allowed to fetch
// from the loopback addresses the test servers listen on unless allow is
// false.
func mediaBlog(t *testing.T, m blog.MediaStore, allow bool) (*env, *blog.Blog) {
	t.Helper()
	return newEnvWith(t, setup{deps: func(d *blog.Deps) {
		d.Media = m
		if allow {
			list, err := outbound.ParseAllowlist("127.0.0.1/32, ::1")
			if err != nil {
				t.Fatal(err)
			}
			d.FetchAllow = list
		}
	}})
}

func importMedia(t *testing.T, b *blog.Blog, file []byte, opts blog.ImportOptions) *blog.ImportResult {
	t.Helper()
	opts.Media = true
	if opts.MediaOwner == "" {
		opts.MediaOwner = "owner-1"
	}
	res, err := b.Import(context.Background(), bytes.NewReader(file), int64(len(file)), opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// destinationsOf lists the link and image destinations of Markdown.
func destinationsOf(md string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`\]\(<?([^)\s>]+)`).FindAllStringSubmatch(md, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestImportBringsTheImagesOfAWordPressExportHome(t *testing.T) {
	old := newOldSite(t)
	cdn := cdnOf(old)
	media := newMemMedia()
	e, b := mediaBlog(t, media, true)
	b.SetMediaLimits(1000, 64<<10, time.Minute)
	file := mediaFixture(t, "wordpress.xml", old.URL, cdn)

	res := importMedia(t, b, file, blog.ImportOptions{})
	if res.Media != (blog.ImportCount{Created: 9, Skipped: 0, Changed: 4}) {
		t.Errorf("media %+v, want 9 downloaded and 4 left", res.Media)
	}
	if res.Posts != (blog.ImportCount{Created: 3, Changed: 1}) || res.Pages != (blog.ImportCount{Created: 1}) {
		t.Errorf("posts %+v, pages %+v", res.Posts, res.Pages)
	}
	left := func(file, why string) string {
		return `WordPress post "what-did-not-come": image ` + old.URL + "/wp-content/uploads/" + file + " left at its old address: " + why
	}
	for _, w := range []string{
		left("gone.jpg", "the old site answered 404 Not Found"),
		left("soft-404.jpg", "it is not an image but text/html"),
		left("huge.png", "it is larger than 65536 bytes"),
		left("loop.jpg", "it was redirected more than 3 times"),
	} {
		if !slices.Contains(res.Warnings, w) {
			t.Errorf("no warning %q in %q", w, res.Warnings)
		}
	}

	var rome post
	data(t, e.admin.Do("GET", "/api/v1/admin/posts/slug/rome-in-pictures", nil), 200, &rome)
	md := *rome.ContentMarkdown
	links := map[string]string{} // old address → link
	dests := destinationsOf(md)
	for i, want := range []string{
		old.URL + "/wp-content/uploads/2024/11/forum.jpg",
		old.URL + "/wp-content/uploads/2024/11/fountain-300x200.png", // the image in the link comes first
		old.URL + "/wp-content/uploads/2024/11/fountain.png",
		"/wp-content/uploads/2024/11/map.png",
		old.URL + "/wp-content/uploads/2024/11/menu.pdf",
		old.URL + "/about/",
		cdn + "/media/sunset.png",
		cdn + "/media/notes.pdf",
	} {
		if i >= len(dests) {
			t.Fatalf("the Markdown has %d destinations:\n%s", len(dests), md)
		}
		links[want] = dests[i]
	}
	for from, to := range links {
		keep := strings.HasSuffix(from, "/about/") || strings.HasSuffix(from, "notes.pdf")
		switch {
		case keep && to != from:
			t.Errorf("%s became %s; pages and files of other hosts stay", from, to)
		case !keep && !strings.HasPrefix(to, "/i/") && !strings.HasPrefix(to, "/f/"):
			t.Errorf("%s stayed %s", from, to)
		case !keep:
			path := strings.TrimPrefix(strings.TrimPrefix(from, old.URL), cdn)
			if got := media.get(to); !bytes.Equal(got, old.Files[path]) {
				t.Errorf("%s holds %q, want the bytes of %s", to, got, from)
			}
			if media.owners[to] != "owner-1" {
				t.Errorf("%s is owned by %q", to, media.owners[to])
			}
		}
	}
	// Text and code keep the old address as they wrote it.
	if strings.Count(md, old.URL+"/wp-content/uploads/2024/11/forum.jpg") != 2 {
		t.Errorf("the text and the code lost the address they show:\n%s", md)
	}

	var again post
	data(t, e.admin.Do("GET", "/api/v1/admin/posts/slug/the-forum-again", nil), 200, &again)
	d := destinationsOf(*again.ContentMarkdown)
	if len(d) != 2 || d[0] != links[old.URL+"/wp-content/uploads/2024/11/forum.jpg"] || !strings.HasPrefix(d[1], "/i/") {
		t.Errorf("the same picture at another address, and a moved one: %q", d)
	}
	var about struct {
		ContentMarkdown string `json:"content_markdown"`
	}
	data(t, e.anon.Do("GET", "/api/v1/pages/slug/about", nil), 200, &about)
	if d := destinationsOf(about.ContentMarkdown); len(d) != 1 || !strings.HasPrefix(d[0], "/i/") {
		t.Errorf("the page's image: %q", d)
	}
	var failed post
	data(t, e.admin.Do("GET", "/api/v1/admin/posts/slug/what-did-not-come", nil), 200, &failed)
	for _, dest := range destinationsOf(*failed.ContentMarkdown) {
		if !strings.HasPrefix(dest, old.URL+"/wp-content/uploads/") {
			t.Errorf("a refused image became %s", dest)
		}
	}

	// Importing again fetches nothing that came home, and adds nothing.
	before := old.Total()
	forumHits := old.Hits("/wp-content/uploads/2024/11/forum.jpg")
	res = importMedia(t, b, file, blog.ImportOptions{})
	if res.Media != (blog.ImportCount{Created: 0, Skipped: 9, Changed: 4}) || res.Posts != (blog.ImportCount{Skipped: 3}) ||
		res.Pages != (blog.ImportCount{Skipped: 1}) {
		t.Errorf("again: media %+v, posts %+v, pages %+v", res.Media, res.Posts, res.Pages)
	}
	if got := old.Hits("/wp-content/uploads/2024/11/forum.jpg"); got != forumHits {
		t.Errorf("forum.jpg was fetched %d times, then %d", forumHits, got)
	}
	// Only what stayed away is asked again: gone, soft-404, huge and the
	// four requests of loop.
	if got := old.Total() - before; got != 3+4 {
		t.Errorf("the second import made %d requests", got)
	}
	if !slices.Contains(res.Warnings, left("gone.jpg", "the old site answered 404 Not Found")) {
		t.Errorf("the second import does not say what stayed away: %q", res.Warnings)
	}
	for _, w := range res.Warnings {
		if strings.Contains(w, "skipped: slug") {
			t.Errorf("a post of the first import is not the same: %s", w)
		}
	}

	// A file deleted from the file host since is fetched again.
	usLink := destinationsOf(about.ContentMarkdown)[0]
	media.remove(usLink)
	res = importMedia(t, b, file, blog.ImportOptions{})
	if res.Media != (blog.ImportCount{Created: 1, Skipped: 8, Changed: 4}) || old.Hits("/wp-content/uploads/2024/01/us.png") != 2 {
		t.Errorf("after a deletion: media %+v, us.png fetched %d times", res.Media, old.Hits("/wp-content/uploads/2024/01/us.png"))
	}
	if media.get(usLink) == nil {
		t.Error("the deleted file did not come back at its link")
	}
}

func TestImportBringsGhostImagesHomeFromTheGivenAddress(t *testing.T) {
	old := newOldSite(t)
	media := newMemMedia()
	e, b := mediaBlog(t, media, true)
	file := mediaFixture(t, "ghost.json", old.URL, "")

	// Without the old site's address, the paths stay.
	res := importMedia(t, b, file, blog.ImportOptions{Format: blog.FormatGhost})
	if res.Media != (blog.ImportCount{Changed: 3}) || old.Total() != 0 {
		t.Errorf("without an address: media %+v, %d requests", res.Media, old.Total())
	}
	want := "3 images and files are paths of the old site (such as /content/files/2024/11/cat-facts.pdf) and stay as they are"
	if len(res.Warnings) == 0 || !strings.HasPrefix(res.Warnings[0], want) {
		t.Errorf("warnings %q, want one starting %q", res.Warnings, want)
	}
	var p post
	data(t, e.admin.Do("GET", "/api/v1/admin/posts/slug/a-cat-on-the-desk", nil), 200, &p)
	if p.CoverImage != "/content/images/2024/11/cat-cover.png" {
		t.Errorf("cover %q", p.CoverImage)
	}
	data(t, e.admin.Do("DELETE", "/api/v1/admin/posts/"+p.ID, nil), 200, nil)

	// Ghost's __GHOST_URL__ is the whole address, folder included.
	res = importMedia(t, b, file, blog.ImportOptions{Format: blog.FormatGhost, MediaOrigin: old.URL + "/blog/"})
	if res.Media != (blog.ImportCount{Created: 3}) {
		t.Errorf("media %+v; warnings %q", res.Media, res.Warnings)
	}
	data(t, e.admin.Do("GET", "/api/v1/admin/posts/slug/a-cat-on-the-desk", nil), 200, &p)
	if !bytes.Equal(media.get(p.CoverImage), old.Files["/blog/content/images/2024/11/cat-cover.png"]) {
		t.Errorf("cover %q", p.CoverImage)
	}
	d := destinationsOf(*p.ContentMarkdown)
	if len(d) != 3 || !bytes.Equal(media.get(d[0]), old.Files["/blog/content/images/2024/11/cat.jpg"]) ||
		!bytes.Equal(media.get(d[1]), old.Files["/blog/content/files/2024/11/cat-facts.pdf"]) || d[2] != "/about/" {
		t.Errorf("destinations %q", d)
	}
}

func TestImportRefusesPrivateAddressesWithoutTheAllowlist(t *testing.T) {
	old := newOldSite(t)
	e, b := mediaBlog(t, newMemMedia(), false)
	res := importMedia(t, b, mediaFixture(t, "ghost.json", old.URL, ""), blog.ImportOptions{MediaOrigin: old.URL + "/blog"})
	if res.Media != (blog.ImportCount{Changed: 3}) || old.Total() != 0 {
		t.Fatalf("media %+v, %d requests reached the old site", res.Media, old.Total())
	}
	want := `Ghost post "a-cat-on-the-desk": image ` + old.URL + "/blog/content/images/2024/11/cat.jpg left at its old address: " +
		"127.0.0.1 is a loopback address, which an import reaches only when import.fetch_allow names it"
	if !slices.Contains(res.Warnings, want) {
		t.Errorf("warnings %q lack %q", res.Warnings, want)
	}
	var p post
	data(t, e.admin.Do("GET", "/api/v1/admin/posts/slug/a-cat-on-the-desk", nil), 200, &p)
	if p.CoverImage != "/content/images/2024/11/cat-cover.png" {
		t.Errorf("cover %q", p.CoverImage)
	}
}

func TestImportBoundsWhatItBringsHome(t *testing.T) {
	t.Run("files", func(t *testing.T) {
		old := newOldSite(t)
		_, b := mediaBlog(t, newMemMedia(), true)
		b.SetMediaLimits(2, 64<<10, time.Minute)
		res := importMedia(t, b, mediaFixture(t, "ghost.json", old.URL, ""), blog.ImportOptions{MediaOrigin: old.URL + "/blog"})
		if res.Media != (blog.ImportCount{Created: 2, Changed: 1}) || old.Total() != 2 {
			t.Errorf("media %+v after %d requests", res.Media, old.Total())
		}
		want := `Ghost post "a-cat-on-the-desk": image ` + old.URL + "/blog/content/images/2024/11/cat-cover.png left at its old address: " +
			"one import brings at most 2 files home"
		if !slices.Contains(res.Warnings, want) {
			t.Errorf("warnings %q lack %q", res.Warnings, want)
		}
	})
	t.Run("time, which the import's own does not count", func(t *testing.T) {
		release := make(chan struct{})
		slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}))
		defer slow.Close()
		defer close(release)
		_, b := mediaBlog(t, newMemMedia(), true)
		// The downloads last twice the import's own time, which still
		// suffices for the rest.
		b.SetMediaLimits(10, 64<<10, 1500*time.Millisecond)
		res := importMedia(t, b, mediaFixture(t, "ghost.json", slow.URL, ""),
			blog.ImportOptions{MediaOrigin: slow.URL, Timeout: 750 * time.Millisecond})
		if res.Media != (blog.ImportCount{Changed: 3}) || res.Posts.Created != 1 {
			t.Errorf("media %+v, posts %+v", res.Media, res.Posts)
		}
		want := "left at its old address: the import's 1.5s for downloads ran out"
		if n := len(slices.DeleteFunc(slices.Clone(res.Warnings), func(w string) bool { return !strings.HasSuffix(w, want) })); n != 3 {
			t.Errorf("warnings %q: want 3 ending %q", res.Warnings, want)
		}
	})
}

func TestImportWithMediaRefusesWhatItCannotDo(t *testing.T) {
	file := readSample(t, "ghost-5.json")
	ctx := context.Background()
	_, plain := newEnvWith(t, setup{})
	_, err := plain.Import(ctx, bytes.NewReader(file), int64(len(file)), blog.ImportOptions{Media: true, MediaOwner: "x"})
	if ie, ok := errors.AsType[*blog.InputError](err); !ok || !strings.Contains(ie.Msg, "needs the file host") {
		t.Errorf("a blog without a file host: %v", err)
	}
	_, b := mediaBlog(t, newMemMedia(), true)
	for _, origin := range []string{"old.example", "ftp://old.example", "https://", "https://u:p@old.example"} {
		_, err := b.Import(ctx, bytes.NewReader(file), int64(len(file)), blog.ImportOptions{Media: true, MediaOwner: "x", MediaOrigin: origin})
		if ie, ok := errors.AsType[*blog.InputError](err); !ok || !strings.Contains(ie.Msg, "the old site's address must be an http or https URL") {
			t.Errorf("MediaOrigin %q: %v", origin, err)
		}
	}
	if _, err := b.Import(ctx, bytes.NewReader(file), int64(len(file)), blog.ImportOptions{Media: true}); err == nil ||
		!strings.Contains(err.Error(), "needs the user who owns the files") {
		t.Errorf("no owner: %v", err)
	}
}

func TestImportGivesTheFilesToTheSignedInAdministrator(t *testing.T) {
	old := newOldSite(t)
	media := newMemMedia()
	_, b := mediaBlog(t, media, true)
	file := mediaFixture(t, "ghost.json", old.URL, "")
	ctx := auth.WithIdentity(context.Background(), &auth.Identity{UserID: "admin-7", Role: auth.RoleAdmin})
	res, err := b.Import(ctx, bytes.NewReader(file), int64(len(file)), blog.ImportOptions{Media: true, MediaOrigin: old.URL + "/blog"})
	if err != nil || res.Media.Created != 3 {
		t.Fatalf("%+v, %v", res, err)
	}
	for link, owner := range media.owners {
		if owner != "admin-7" {
			t.Errorf("%s is owned by %q", link, owner)
		}
	}
}
