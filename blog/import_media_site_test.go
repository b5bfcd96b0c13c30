package blog_test

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"folio/blog"
)

// A Hugo or Jekyll site's own images and files, brought home from the
// archive or folder the import reads (docs/export-import.md#bringing-images-home).

// storeLog is a memMedia that counts what it was asked to store.
type storeLog struct {
	*memMedia
	mu     sync.Mutex
	stored []string // the names of the files, in order
}

func (s *storeLog) ImportMedia(ctx context.Context, owner, name, kind string, r io.Reader) (string, error) {
	s.mu.Lock()
	s.stored = append(s.stored, name)
	s.mu.Unlock()
	return s.memMedia.ImportMedia(ctx, owner, name, kind, r)
}

func (s *storeLog) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.stored)
}

// openLog is a folder that records every name opened in it.
type openLog struct {
	fsys   fs.FS
	mu     sync.Mutex
	opened []string
}

func (o *openLog) Open(name string) (fs.File, error) {
	o.mu.Lock()
	o.opened = append(o.opened, name)
	o.mu.Unlock()
	return o.fsys.Open(name)
}

// siteForm is a site as one of the forms an import reads: "zip",
// "tar.gz" (their files under top) or "folder".
type siteForm struct {
	form string
	top  string // the folder an archive holds the site in, "" for none
}

// hugoMediaSite is a Hugo site whose posts show the site's own files: a
// page bundle's cover and diagram (one as a figure shortcode), the static
// folder's files by their paths, a page bundle's photo, and addresses
// that are not the site's: a file it has not, one above its root.
func hugoMediaSite() map[string][]byte {
	return map[string][]byte{
		"hugo.toml": []byte("title = \"Trips\"\n"),
		"content/posts/trip/index.md": []byte("---\ntitle: A trip\ndate: 2021-03-04\ncover: cover.jpg\n---\n" +
			"![The route](diagram.png)\n\n{{< figure src=\"/images/a.png\" alt=\"A\" >}}\n\n![Gone](missing.png)\n\n" +
			"![Out](../../../../secret.png)\n\n[The talk](/files/talk.pdf), [a page](/about/).\n\nAs code: `![x](diagram.png)`\n"),
		"content/posts/trip/cover.jpg":   picture(jpgHead, "the trip's cover"),
		"content/posts/trip/diagram.png": picture(pngHead, "the route"),
		"content/posts/plain.md": []byte("---\ntitle: Plain\ndate: 2021-03-05\nimage: /images/a.png\n---\n" +
			"![Again](/images/a.png) ![Online](/images/online.png)\n"),
		"content/about/index.md":   []byte("---\ntitle: About\n---\n![Me](me%20now.png)\n"),
		"content/about/me now.png": picture(pngHead, "me"),
		"static/images/a.png":      picture(pngHead, "static a"),
		"static/files/talk.pdf":    []byte("%PDF-1.4 the talk"),
		"static/css/site.css":      []byte("body { margin: 0 }\n"),
	}
}

// jekyllMediaSite is a Jekyll site whose post and page show files of its
// assets folder, by path (through Liquid too) and relative to the file,
// and the path of a link to a file outside its folder (importSiteAs).
func jekyllMediaSite() map[string][]byte {
	return map[string][]byte{
		"_config.yml": []byte("title: Walks\n"),
		"_posts/2020-01-02-walk.md": []byte("---\ntitle: A walk\n---\n" +
			"![B](/assets/img/b.jpg) ![C]({{ \"/assets/img/c.png\" | relative_url }}) ![B again](../assets/img/b.jpg)\n\n" +
			"[Notes]({{ site.baseurl }}/assets/notes.pdf) ![Linked](/linked.png)\n"),
		"about.md":          []byte("---\ntitle: About\n---\n![B](assets/img/b.jpg)\n"),
		"assets/img/b.jpg":  picture(jpgHead, "b"),
		"assets/img/c.png":  picture(pngHead, "c"),
		"assets/notes.pdf":  []byte("%PDF-1.4 notes"),
		"assets/css/x.scss": []byte("a { b: c }\n"),
	}
}

// importSiteAs imports files as form, the folder one beside a file
// secret.png it must never read, and returns the result and, for a
// folder, what was opened in it.
func importSiteAs(t *testing.T, b *blog.Blog, sf siteForm, files map[string][]byte, opts blog.ImportOptions) (*blog.ImportResult, *openLog) {
	t.Helper()
	opts.Media = true
	if opts.MediaOwner == "" {
		opts.MediaOwner = "owner-1"
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	if sf.form == "folder" {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "secret.png"), picture(pngHead, "secret"), 0o600); err != nil {
			t.Fatal(err)
		}
		root := filepath.Join(dir, "site")
		for _, n := range names {
			p := filepath.Join(root, filepath.FromSlash(n))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, files[n], 0o600); err != nil {
				t.Fatal(err)
			}
		}
		// A link to a file outside the folder is not one of its files.
		if err := os.Symlink(filepath.Join(dir, "secret.png"), filepath.Join(root, "linked.png")); err != nil {
			t.Fatal(err)
		}
		log := &openLog{fsys: os.DirFS(root)}
		res, err := b.ImportDir(context.Background(), log, opts)
		if err != nil {
			t.Fatal(err)
		}
		return res, log
	}
	var entries []siteFile
	for _, n := range names {
		entries = append(entries, siteFile{sf.top + n, string(files[n])})
	}
	// An entry that climbs out of the archive is read as one at its root
	// (secret.png), which is above the root of the site's files when the
	// site holds them in a folder of its own: not one of them either way.
	if sf.top == "" {
		entries = append(entries, siteFile{"../secret.png", string(picture(pngHead, "secret"))})
	}
	archive := pack(t, sf.form, entries)
	res, err := b.Import(context.Background(), bytes.NewReader(archive), int64(len(archive)), opts)
	if err != nil {
		t.Fatal(err)
	}
	return res, nil
}

// checkOpened fails unless a folder's import opened its folders, its
// Markdown and the files of want, and nothing else.
func checkOpened(t *testing.T, log *openLog, files map[string][]byte, want ...string) {
	t.Helper()
	if log == nil {
		return
	}
	for _, n := range log.opened {
		_, file := files[n]
		switch {
		case strings.Contains(n, "secret") || n == "linked.png":
			t.Errorf("the import opened %s", n)
		case !file: // a folder
		case !strings.HasSuffix(n, ".md") && !slices.Contains(want, n):
			t.Errorf("the import opened %s, which no post shows", n)
		}
	}
}

func (e *env) postOf(slug string) post {
	e.t.Helper()
	var p post
	data(e.t, e.admin.Do("GET", "/api/v1/admin/posts/slug/"+slug, nil), 200, &p)
	return p
}

func TestImportBringsAHugoSitesOwnFilesHome(t *testing.T) {
	files := hugoMediaSite()
	for _, sf := range []siteForm{{form: "zip"}, {form: "tar.gz", top: "trips/"}, {form: "folder"}} {
		t.Run(sf.form, func(t *testing.T) {
			media := &storeLog{memMedia: newMemMedia()}
			e, b := mediaBlog(t, media, true)
			res, log := importSiteAs(t, b, sf, files, blog.ImportOptions{})
			if res.Media != (blog.ImportCount{Created: 5, Changed: 3}) || res.Posts != (blog.ImportCount{Created: 2, Changed: 1}) ||
				res.Pages != (blog.ImportCount{Created: 1}) {
				t.Errorf("media %+v, posts %+v, pages %+v; warnings %q", res.Media, res.Posts, res.Pages, res.Warnings)
			}
			trip := sf.top + "content/posts/trip/index.md"
			for _, w := range []string{
				"1 images and files are paths that are not files of the site (such as /images/online.png) and stay as they are: " +
					"give the old site's address (folio import -from URL, or the import form's from) to download them",
				trip + ": image missing.png left at its address: the site has no file " + sf.top + "content/posts/trip/missing.png",
				trip + ": image ../../../../secret.png left at its address: it is outside the site",
			} {
				if !slices.Contains(res.Warnings, w) {
					t.Errorf("no warning %q in %q", w, res.Warnings)
				}
			}
			checkOpened(t, log, files, "content/posts/trip/cover.jpg", "content/posts/trip/diagram.png", "static/images/a.png",
				"static/files/talk.pdf", "content/about/me now.png")

			p := e.postOf("trip")
			d := destinationsOf(*p.ContentMarkdown)
			if len(d) != 7 { // the last in code
				t.Fatalf("destinations %q of\n%s", d, *p.ContentMarkdown)
			}
			for link, file := range map[string]string{
				p.CoverImage: "content/posts/trip/cover.jpg",
				d[0]:         "content/posts/trip/diagram.png",
				d[1]:         "static/images/a.png",
				d[4]:         "static/files/talk.pdf",
			} {
				if got := media.get(link); got == nil || !bytes.Equal(got, files[file]) {
					t.Errorf("%s holds %q, want the site's %s", link, got, file)
				}
			}
			if d[2] != "missing.png" || d[3] != "../../../../secret.png" || d[5] != "/about/" || d[6] != "diagram.png" {
				t.Errorf("what is not the site's changed: %q", d)
			}
			if !strings.Contains(*p.ContentMarkdown, "As code: `![x](diagram.png)`") {
				t.Errorf("the code changed:\n%s", *p.ContentMarkdown)
			}
			plain := e.postOf("plain")
			if pd := destinationsOf(*plain.ContentMarkdown); len(pd) != 2 || pd[0] != d[1] || plain.CoverImage != d[1] || pd[1] != "/images/online.png" {
				t.Errorf("the static file again: %q, cover %q", pd, plain.CoverImage)
			}
			var about struct {
				ContentMarkdown string `json:"content_markdown"`
			}
			data(t, e.anon.Do("GET", "/api/v1/pages/slug/about", nil), 200, &about)
			if ad := destinationsOf(about.ContentMarkdown); len(ad) != 1 || !bytes.Equal(media.get(ad[0]), files["content/about/me now.png"]) {
				t.Errorf("the page bundle's photo: %q", ad)
			}

			// Importing again stores nothing and finds every post the same.
			stored := media.count()
			res, _ = importSiteAs(t, b, sf, files, blog.ImportOptions{})
			if res.Media != (blog.ImportCount{Skipped: 5, Changed: 3}) || res.Posts != (blog.ImportCount{Skipped: 2}) ||
				res.Pages != (blog.ImportCount{Skipped: 1}) || media.count() != stored {
				t.Errorf("again: media %+v, posts %+v, pages %+v, %d files stored; warnings %q",
					res.Media, res.Posts, res.Pages, media.count()-stored, res.Warnings)
			}
			if again := e.postOf("trip"); *again.ContentMarkdown != *p.ContentMarkdown {
				t.Errorf("the Markdown changed:\n%s", *again.ContentMarkdown)
			}
		})
	}
}

func TestImportBringsAJekyllSitesOwnFilesHome(t *testing.T) {
	files := jekyllMediaSite()
	for _, sf := range []siteForm{{form: "zip", top: "walks/"}, {form: "tar.gz"}, {form: "folder"}} {
		t.Run(sf.form, func(t *testing.T) {
			media := &storeLog{memMedia: newMemMedia()}
			e, b := mediaBlog(t, media, true)
			res, log := importSiteAs(t, b, sf, files, blog.ImportOptions{})
			if res.Media != (blog.ImportCount{Created: 3, Changed: 1}) || res.Posts != (blog.ImportCount{Created: 1}) ||
				res.Pages != (blog.ImportCount{Created: 1}) {
				t.Errorf("media %+v, posts %+v, pages %+v; warnings %q", res.Media, res.Posts, res.Pages, res.Warnings)
			}
			checkOpened(t, log, files, "assets/img/b.jpg", "assets/img/c.png", "assets/notes.pdf")
			md := *e.postOf("walk").ContentMarkdown
			d := destinationsOf(md)
			if len(d) != 5 || d[0] != d[2] || d[4] != "/linked.png" {
				t.Fatalf("destinations %q of\n%s", d, md)
			}
			for i, file := range []string{"assets/img/b.jpg", "assets/img/c.png", "assets/img/b.jpg", "assets/notes.pdf"} {
				if got := media.get(d[i]); !bytes.Equal(got, files[file]) {
					t.Errorf("%s holds %q, want the site's %s", d[i], got, file)
				}
			}
			about := e.pageSummaries()["about"]
			if ad := destinationsOf(about.Markdown); len(ad) != 1 || ad[0] != d[0] {
				t.Errorf("the page's picture: %q", ad)
			}
			stored := media.count()
			res, _ = importSiteAs(t, b, sf, files, blog.ImportOptions{})
			if res.Media != (blog.ImportCount{Skipped: 3, Changed: 1}) || res.Posts != (blog.ImportCount{Skipped: 1}) || media.count() != stored {
				t.Errorf("again: media %+v, posts %+v, %d stored", res.Media, res.Posts, media.count()-stored)
			}
		})
	}
	t.Run("an archive, then the folder", func(t *testing.T) {
		media := &storeLog{memMedia: newMemMedia()}
		_, b := mediaBlog(t, media, true)
		importSiteAs(t, b, siteForm{form: "zip", top: "walks/"}, files, blog.ImportOptions{})
		stored := media.count()
		res, _ := importSiteAs(t, b, siteForm{form: "folder"}, files, blog.ImportOptions{})
		if res.Media != (blog.ImportCount{Skipped: 3, Changed: 1}) || res.Posts != (blog.ImportCount{Skipped: 1}) || media.count() != stored {
			t.Errorf("media %+v, posts %+v, %d stored; warnings %q", res.Media, res.Posts, media.count()-stored, res.Warnings)
		}
	})
	t.Run("a file changed since", func(t *testing.T) {
		media := &storeLog{memMedia: newMemMedia()}
		e, b := mediaBlog(t, media, true)
		importSiteAs(t, b, siteForm{form: "folder"}, files, blog.ImportOptions{})
		first := *e.postOf("walk").ContentMarkdown
		changed := jekyllMediaSite()
		changed["assets/img/c.png"] = picture(pngHead, "c, redrawn")
		res, _ := importSiteAs(t, b, siteForm{form: "folder"}, changed, blog.ImportOptions{})
		// The new picture is stored; the post, whose Markdown differs
		// now, is kept as the blog has it.
		if res.Media != (blog.ImportCount{Created: 1, Skipped: 2, Changed: 1}) || res.Posts != (blog.ImportCount{Skipped: 1}) {
			t.Errorf("media %+v, posts %+v", res.Media, res.Posts)
		}
		if *e.postOf("walk").ContentMarkdown != first {
			t.Error("the post changed")
		}
	})
}

// TestImportPrefersTheSitesFileToTheOldSites: with the old site's address
// given, a path the site holds is taken from it, not downloaded, and one
// it has not is downloaded.
func TestImportPrefersTheSitesFileToTheOldSites(t *testing.T) {
	var mu sync.Mutex
	hits := map[string]int{}
	old := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		switch r.URL.Path {
		case "/blog/images/a.png":
			w.Write(picture(pngHead, "the old site's a"))
		case "/blog/images/online.png":
			w.Write(picture(pngHead, "online"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer old.Close()
	files := hugoMediaSite()
	files["content/posts/plain.md"] = []byte("---\ntitle: Plain\ndate: 2021-03-05\n---\n" +
		"![Full](" + old.URL + "/blog/images/a.png) ![Online](/images/online.png)\n")
	media := newMemMedia()
	e, b := mediaBlog(t, media, true)
	res, _ := importSiteAs(t, b, siteForm{form: "zip"}, files, blog.ImportOptions{MediaOrigin: old.URL + "/blog"})
	if res.Media != (blog.ImportCount{Created: 6, Changed: 2}) {
		t.Errorf("media %+v; warnings %q", res.Media, res.Warnings)
	}
	d := destinationsOf(*e.postOf("plain").ContentMarkdown)
	if len(d) != 2 || !bytes.Equal(media.get(d[0]), files["static/images/a.png"]) || !bytes.Equal(media.get(d[1]), picture(pngHead, "online")) {
		t.Errorf("destinations %q", d)
	}
	mu.Lock()
	defer mu.Unlock()
	if hits["/blog/images/a.png"] != 0 || hits["/blog/images/online.png"] != 1 || len(hits) != 1 {
		t.Errorf("requests to the old site: %v", hits)
	}
}

func TestImportBoundsWhatItTakesFromASite(t *testing.T) {
	files := func(big []byte) map[string][]byte {
		return map[string][]byte{
			"_config.yml": []byte("title: Walks\n"),
			"_posts/2020-01-02-walk.md": []byte("---\ntitle: A walk\n---\n" +
				"![Small](/assets/small.png) ![Big](/assets/big.png) ![Text](/assets/notes.txt)\n"),
			"assets/small.png": picture(pngHead, "small"),
			"assets/big.png":   big,
			"assets/notes.txt": []byte("just text"),
		}
	}
	const post = "_posts/2020-01-02-walk.md: "
	t.Run("a file too large, one that is no image", func(t *testing.T) {
		for _, form := range []string{"zip", "tar.gz", "folder"} {
			media := newMemMedia()
			_, b := mediaBlog(t, media, true)
			b.SetMediaLimits(10, 1024, time.Minute)
			res, _ := importSiteAs(t, b, siteForm{form: form}, files(picture(pngHead, strings.Repeat("x", 2048))), blog.ImportOptions{})
			if res.Media != (blog.ImportCount{Created: 1, Changed: 2}) {
				t.Errorf("%s: media %+v", form, res.Media)
			}
			for _, w := range []string{
				post + "image assets/big.png of the site left at its address: it is larger than 1024 bytes",
				post + "image assets/notes.txt of the site left at its address: it is not an image but text/plain",
			} {
				if !slices.Contains(res.Warnings, w) {
					t.Errorf("%s: no warning %q in %q", form, w, res.Warnings)
				}
			}
		}
	})
	t.Run("files", func(t *testing.T) {
		_, b := mediaBlog(t, newMemMedia(), true)
		b.SetMediaLimits(1, 64<<10, time.Minute)
		res, _ := importSiteAs(t, b, siteForm{form: "zip"}, files(picture(pngHead, "big")), blog.ImportOptions{})
		if res.Media != (blog.ImportCount{Created: 1, Changed: 2}) ||
			!slices.Contains(res.Warnings, post+"image assets/big.png of the site left at its address: one import brings at most 1 files home") {
			t.Errorf("media %+v; warnings %q", res.Media, res.Warnings)
		}
	})
	t.Run("an archive that expands past the import limit", func(t *testing.T) {
		_, b := mediaBlog(t, newMemMedia(), true)
		b.SetImportLimit(64 << 10)
		b.SetMediaLimits(10, 1<<20, time.Minute)
		res, _ := importSiteAs(t, b, siteForm{form: "zip"}, files(picture(pngHead, strings.Repeat("x", 100<<10))), blog.ImportOptions{})
		// The budget is the archive's: the files after the one that
		// spent it are not read either.
		why := " of the site left at its address: the archive expands to more than the import limit of 1 MiB"
		if res.Media != (blog.ImportCount{Changed: 3}) || res.Posts.Created != 1 ||
			!slices.Contains(res.Warnings, post+"image assets/big.png"+why) || !slices.Contains(res.Warnings, post+"image assets/small.png"+why) {
			t.Errorf("media %+v, posts %+v; warnings %q", res.Media, res.Posts, res.Warnings)
		}
	})
}
