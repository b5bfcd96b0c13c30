package main

import (
	"bytes"
	"context"
	"folio/blog/importtest"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"folio/auth/authtest"
	"folio/filehost/imagemeta"
	"folio/filehost/imagemeta/imagemetatest"
	"folio/httpx/httpxtest"
	"folio/sqlstore/sqlstoretest"
)

// Bringing images home end to end (docs/export-import.md#bringing-images-home):
// folio import -media into a site whose file host is the real one, from a
// test server standing in for the old site.

// maxTestFile is the upload.max_file_size of these sites: small, so that a
// file of the old site is too large.
const maxTestFile = "8192"

// mediaOldSite serves the files the exports of testdata/import/media
// reference, as blog's test of the same name does, with real pictures, and
// counts the requests for each path.
type mediaOldSite struct{ *importtest.OldSite }

// noisePNG is a picture that no compression makes small.
func noisePNG(t *testing.T, side int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, side, side))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = byte(r.Uint32())
	}
	img.Set(0, 0, color.RGBA{A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func newMediaOldSite(t *testing.T) *mediaOldSite {
	t.Helper()
	photo := imagemetatest.MetaJPEG(t)
	s := &mediaOldSite{importtest.NewOldSite(t, map[string][]byte{
		"/wp-content/uploads/2024/11/forum.jpg":            photo,
		"/wp-content/uploads/2024/11/forum-copy.jpg":       photo,
		"/wp-content/uploads/2024/11/fountain.png":         imagemetatest.MetaPNG(t),
		"/wp-content/uploads/2024/11/fountain-300x200.png": imagemetatest.PNG(t, 30, 20),
		"/wp-content/uploads/2024/11/map.png":              imagemetatest.PNG(t, 31, 20),
		"/wp-content/uploads/2024/11/menu.pdf":             []byte("%PDF-1.4\n% the menu\n"),
		"/wp-content/uploads/2024/01/us.png":               imagemetatest.PNG(t, 32, 20),
		"/wp-content/uploads/moved-here.jpg":               imagemetatest.JPEG(t, 20, 20),
		"/media/sunset.png":                                imagemetatest.PNG(t, 33, 20),
		"/media/notes.pdf":                                 []byte("%PDF-1.4\n% notes\n"),
		"/wp-content/uploads/huge.png":                     noisePNG(t, 64),
		"/blog/content/images/2024/11/cat.jpg":             imagemetatest.JPEG(t, 21, 20),
		"/blog/content/images/2024/11/cat-cover.png":       imagemetatest.PNG(t, 34, 20),
		"/blog/content/files/2024/11/cat-facts.pdf":        []byte("%PDF-1.4\n% cats\n"),
	})}
	if len(s.Files["/wp-content/uploads/huge.png"]) <= 8192 {
		t.Fatal("huge.png is not larger than the sites' upload limit")
	}
	return s
}

// exportFor writes an export of testdata/import/media with the old site's
// addresses put in, and returns its path.
func (s *mediaOldSite) exportFor(t *testing.T, name string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "import", "media", name))
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(s.URL)
	text := strings.NewReplacer("{{OLD}}", s.URL, "{{CDN}}", "http://localhost:"+u.Port()).Replace(string(raw))
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// mediaSite is a site that folio serve has set up, the administrator
// signed in, and the configuration commands read.
type mediaSite struct {
	app    *app
	admin  *httpxtest.Client
	config string
}

func newMediaSite(t *testing.T, confLines ...string) mediaSite {
	t.Helper()
	db := sqlstoretest.NewConfig(t)
	storage := t.TempDir()
	a, c := newTestAppOn(t, db, "FOLIO_STORAGE_DIR="+storage, "FOLIO_UPLOAD_MAX_FILE_SIZE="+maxTestFile)
	c.Do("POST", "/api/v1/admin/auth/login", map[string]string{
		"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	config := writeSiteConfig(t, db, storage)
	extra := append([]string{"upload.max_file_size = " + maxTestFile}, confLines...)
	f, err := os.OpenFile(config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(strings.Join(extra, "\n") + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return mediaSite{app: a, admin: c, config: config}
}

// markdownOf is the Markdown of the post with slug, and its cover image.
func (s mediaSite) markdownOf(t *testing.T, slug string) (md, cover string) {
	t.Helper()
	var p struct {
		ContentMarkdown string `json:"content_markdown"`
		CoverImage      string `json:"cover_image"`
	}
	httpxtest.Into(t, s.admin.Do("GET", "/api/v1/admin/posts/slug/"+slug, nil).Expect(200).B().Data, &p)
	return p.ContentMarkdown, p.CoverImage
}

// count is one number the database gives.
func (s mediaSite) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := s.app.db.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func destinations(md string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`\]\(<?([^)\s>]+)`).FindAllStringSubmatch(md, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestImportCommandBringsAWordPressSitesImagesHome(t *testing.T) {
	old := newMediaOldSite(t)
	site := newMediaSite(t, "import.fetch_allow = 127.0.0.1/32, ::1")
	export := old.exportFor(t, "wordpress.xml")

	code, out, errOut := folio("import", "-config", site.config, "-media", export)
	if code != 0 {
		t.Fatalf("import: exit %d\n%s\n%s", code, out, errOut)
	}
	left := func(file, why string) string {
		return `WordPress post "what-did-not-come": image ` + old.URL + "/wp-content/uploads/" + file + " left at its old address: " + why
	}
	for _, w := range []string{
		left("gone.jpg", "the old site answered 404 Not Found"),
		left("soft-404.jpg", "it is not an image but text/html"),
		left("huge.png", "it is larger than the file host's upload.max_file_size"),
		left("loop.jpg", "it was redirected more than 3 times"),
	} {
		if !strings.Contains(out, "\n  "+w+"\n") {
			t.Errorf("the report does not say %q:\n%s", w, out)
		}
	}

	md, _ := site.markdownOf(t, "rome-in-pictures")
	dests := destinations(md) // the ninth is in a code block
	if len(dests) != 9 || dests[8] != old.URL+"/wp-content/uploads/2024/11/forum.jpg" {
		t.Fatalf("destinations %q of\n%s", dests, md)
	}
	served := func(link string) []byte {
		return site.admin.Clone().Do("GET", link, nil).Expect(200).Body
	}
	// Each file came home: its link serves its bytes, stripped like any
	// upload's.
	for i, path := range map[int]string{
		0: "/wp-content/uploads/2024/11/forum.jpg",
		1: "/wp-content/uploads/2024/11/fountain-300x200.png",
		2: "/wp-content/uploads/2024/11/fountain.png",
		3: "/wp-content/uploads/2024/11/map.png",
		4: "/wp-content/uploads/2024/11/menu.pdf",
		6: "/media/sunset.png",
	} {
		if !strings.HasPrefix(dests[i], "/i/") && !strings.HasPrefix(dests[i], "/f/") {
			t.Errorf("%s stayed %s", path, dests[i])
			continue
		}
		want := imagemetatest.ReadAll(t, imagemeta.NewStripReader(bytes.NewReader(old.Files[path])))
		if got := served(dests[i]); !bytes.Equal(got, want) {
			t.Errorf("%s serves %d bytes, want the %d of %s, stripped", dests[i], len(got), len(want), path)
		}
	}
	var html struct {
		ContentHTML string `json:"content_html"`
	}
	httpxtest.Into(t, site.admin.Do("GET", "/api/v1/admin/posts/slug/rome-in-pictures", nil).Expect(200).B().Data, &html)
	// Stored 24×16 with Exif orientation 6, as phones store portraits: shown
	// 16×24 (docs/filehost.md#sizes).
	if !strings.Contains(html.ContentHTML, `src="`+dests[0]+`" alt="The forum" loading="lazy" decoding="async" width="16" height="24"`) {
		t.Errorf("the photo brought home has no size: %s", html.ContentHTML)
	}
	if photo := served(dests[0]); bytes.Contains(photo, []byte("SECRET-XMP")) || !bytes.Contains(old.Files["/wp-content/uploads/2024/11/forum.jpg"], []byte("SECRET-XMP")) {
		t.Error("the photo's metadata was not stripped")
	}
	if dests[5] != old.URL+"/about/" || !strings.HasSuffix(dests[7], "/media/notes.pdf") {
		t.Errorf("a page and another host's file were brought home: %q", dests)
	}
	again, _ := site.markdownOf(t, "the-forum-again")
	if d := destinations(again); len(d) != 2 || d[0] != dests[0] || !strings.HasPrefix(d[1], "/i/") {
		t.Errorf("the same photo at another address, and a moved one: %q", d)
	}
	// Nine addresses, eight contents: one file each, the administrator's,
	// unlisted.
	adminID := ""
	if err := site.app.db.QueryRow(context.Background(), "SELECT id FROM users WHERE username = $1", authtest.AdminUsername).Scan(&adminID); err != nil {
		t.Fatal(err)
	}
	if n := site.count(t, "SELECT COUNT(*) FROM files WHERE user_id = $1 AND visibility = 'unlisted'", adminID); n != 8 {
		t.Errorf("%d files of the administrator, want 8", n)
	}
	if n := site.count(t, "SELECT COUNT(*) FROM files"); n != 8 {
		t.Errorf("%d files in all", n)
	}

	// Importing again downloads nothing that came home, and adds nothing.
	before := old.Total()
	code, out, errOut = folio("import", "-config", site.config, "-media", export)
	if code != 0 || !strings.Contains(out, "  posts                 0        3        0\n") || strings.Contains(out, "slug") {
		t.Fatalf("second import: exit %d\n%s\n%s", code, out, errOut)
	}
	if got := old.Total() - before; got != 3+4 { // gone, soft-404, huge, and loop's four requests
		t.Errorf("the second import made %d requests", got)
	}
	if n := site.count(t, "SELECT COUNT(*) FROM files"); n != 8 {
		t.Errorf("%d files after the second import", n)
	}
	// The background making of image sizes holds an intent while it
	// works: it must end, and leave none.
	waitForImageJobs(t, site.app.db)
	if n := site.count(t, "SELECT COUNT(*) FROM storage_intents"); n != 0 {
		t.Errorf("%d storage intents left", n)
	}
}

func TestImportCommandBringsGhostImagesHomeFromTheGivenAddress(t *testing.T) {
	old := newMediaOldSite(t)
	site := newMediaSite(t)
	export := old.exportFor(t, "ghost.json")
	code, out, errOut := folio("import", "-config", site.config, "-media", "-from", old.URL+"/blog", "-fetch-allow", "127.0.0.1", export)
	if code != 0 || strings.Contains(out, "left at its old address") {
		t.Fatalf("import: exit %d\n%s\n%s", code, out, errOut)
	}
	md, cover := site.markdownOf(t, "a-cat-on-the-desk")
	d := destinations(md)
	if len(d) != 3 || d[2] != "/about/" {
		t.Fatalf("destinations %q", d)
	}
	for link, path := range map[string]string{
		cover: "/blog/content/images/2024/11/cat-cover.png",
		d[0]:  "/blog/content/images/2024/11/cat.jpg",
		d[1]:  "/blog/content/files/2024/11/cat-facts.pdf",
	} {
		want := imagemetatest.ReadAll(t, imagemeta.NewStripReader(bytes.NewReader(old.Files[path])))
		if got := site.admin.Clone().Do("GET", link, nil).Expect(200).Body; !bytes.Equal(got, want) {
			t.Errorf("%s does not serve %s", link, path)
		}
	}
}

func TestImportCommandRefusesPrivateAddressesWithoutTheAllowlist(t *testing.T) {
	old := newMediaOldSite(t)
	site := newMediaSite(t)
	code, out, errOut := folio("import", "-config", site.config, "-media", "-from", old.URL+"/blog", old.exportFor(t, "ghost.json"))
	if code != 0 {
		t.Fatalf("import: exit %d\n%s\n%s", code, out, errOut)
	}
	want := `Ghost post "a-cat-on-the-desk": image ` + old.URL + "/blog/content/images/2024/11/cat.jpg left at its old address: " +
		"127.0.0.1 is a loopback address, which an import reaches only when import.fetch_allow names it"
	if !strings.Contains(out, want) || old.Total() != 0 {
		t.Errorf("%d requests; the report:\n%s", old.Total(), out)
	}
	if _, cover := site.markdownOf(t, "a-cat-on-the-desk"); cover != "/content/images/2024/11/cat-cover.png" {
		t.Errorf("cover %q", cover)
	}
	if n := site.count(t, "SELECT COUNT(*) FROM files"); n != 0 {
		t.Errorf("%d files stored", n)
	}
}

func TestImportCommandMediaFlags(t *testing.T) {
	old := newMediaOldSite(t)
	site := newMediaSite(t)
	export := old.exportFor(t, "ghost.json")
	fresh := configFor(t, sqlstoretest.NewConfig(t))
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"-from without -media", []string{"-from", old.URL, export}, 2, "folio import: -from, -owner and -fetch-allow go with -media"},
		{"-owner without -media", []string{"-owner", "admin", export}, 2, "go with -media"},
		{"a bad allowlist", []string{"-media", "-fetch-allow", "10.0.0.0/99", export}, 2, `folio import: -fetch-allow: "10.0.0.0/99" is neither`},
		{"a bad old site", []string{"-media", "-from", "old.example", export}, 1, "the old site's address must be an http or https URL"},
		{"an unknown owner", []string{"-media", "-owner", "nobody", export}, 1, `folio import: -owner: no user "nobody"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := folio(append([]string{"import", "-config", site.config}, tt.args...)...)
			if code != tt.code || !strings.Contains(errOut, tt.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q", code, out, errOut, tt.code, tt.stderr)
			}
		})
	}
	t.Run("a user who is not an administrator", func(t *testing.T) {
		site.admin.Do("POST", "/api/v1/admin/users", map[string]any{"username": "alice", "email": "alice@example.com",
			"password": "password123"}).Expect(201)
		code, _, errOut := folio("import", "-config", site.config, "-media", "-owner", "alice", export)
		if code != 1 || !strings.Contains(errOut, "-owner: alice is not an active administrator") {
			t.Errorf("exit %d, stderr %q", code, errOut)
		}
	})
	t.Run("a database no server has set up", func(t *testing.T) {
		code, _, errOut := folio("import", "-config", fresh, "-media", export)
		if code != 1 || !strings.Contains(errOut, "folio import: bringing images home: ") {
			t.Errorf("exit %d, stderr %q", code, errOut)
		}
	})
	if n := site.count(t, "SELECT COUNT(*) FROM posts"); n != 0 || old.Total() != 0 {
		t.Errorf("refused imports wrote %d posts and made %d requests", n, old.Total())
	}
}

// TestImportAPIBringsImagesHomeForTheSignedInAdministrator: the API's
// fields media and from do what the command's flags do, the files are the
// signed-in administrator's, and the server's import.fetch_allow is the
// allowlist.
func TestImportAPIBringsImagesHomeForTheSignedInAdministrator(t *testing.T) {
	old := newMediaOldSite(t)
	db := sqlstoretest.NewConfig(t)
	_, c := newTestAppOn(t, db, "FOLIO_STORAGE_DIR="+t.TempDir(), "FOLIO_UPLOAD_MAX_FILE_SIZE="+maxTestFile,
		"FOLIO_IMPORT_FETCH_ALLOW=127.0.0.1")
	c.Do("POST", "/api/v1/admin/auth/login", map[string]string{
		"username": authtest.AdminUsername, "password": authtest.AdminPassword}).Expect(200)
	export, err := os.ReadFile(old.exportFor(t, "ghost.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Media struct{ Created, Skipped, Changed int } `json:"media"`
	}
	httpxtest.Into(t, c.Upload("/api/v1/admin/import", "file", "ghost.json", export, "media", "1", "from", old.URL+"/blog").Expect(200).B().Data, &res)
	if res.Media.Created != 3 || res.Media.Changed != 0 {
		t.Fatalf("media %+v", res.Media)
	}
	var p struct {
		ContentMarkdown string `json:"content_markdown"`
		CoverImage      string `json:"cover_image"`
	}
	httpxtest.Into(t, c.Do("GET", "/api/v1/admin/posts/slug/a-cat-on-the-desk", nil).Expect(200).B().Data, &p)
	d := destinations(p.ContentMarkdown)
	if len(d) != 3 || !strings.HasPrefix(d[0], "/i/") || !strings.HasPrefix(p.CoverImage, "/i/") {
		t.Fatalf("destinations %q, cover %q", d, p.CoverImage)
	}
	want := imagemetatest.ReadAll(t, imagemeta.NewStripReader(bytes.NewReader(old.Files["/blog/content/images/2024/11/cat.jpg"])))
	if got := c.Clone().Do("GET", d[0], nil).Expect(200).Body; !bytes.Equal(got, want) {
		t.Error("the short link does not serve the old site's picture")
	}
	// Importing again downloads nothing: the files are home already.
	before := old.Total()
	httpxtest.Into(t, c.Upload("/api/v1/admin/import", "file", "ghost.json", export, "media", "1", "from", old.URL+"/blog").Expect(200).B().Data, &res)
	if res.Media.Created != 0 || res.Media.Skipped != 3 || old.Total() != before {
		t.Errorf("second import: media %+v, %d requests", res.Media, old.Total()-before)
	}
}
