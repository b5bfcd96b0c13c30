package main

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"folio/filehost/imagemeta"
	"folio/filehost/imagemeta/imagemetatest"
	"folio/httpx/httpxtest"
)

// A Hugo and a Jekyll site's own images, brought home from their folder
// (folio import -media DIR) and from a zip (the API), into the real file
// host (docs/export-import.md#bringing-images-home).

// mediaSites are a Hugo site and a Jekyll site whose posts show files of
// their own: a page bundle's cover (a photo with metadata) and diagram,
// Hugo's static folder by path, Jekyll's assets by path; and a file the
// site has not and one outside it.
func mediaSites(t *testing.T) (hugo, jekyll map[string][]byte) {
	hugo = map[string][]byte{
		"hugo.toml": []byte("title = \"Trips\"\n"),
		"content/posts/trip/index.md": []byte("---\ntitle: A trip\ndate: 2021-03-04\ncover: cover.jpg\n---\n" +
			"![The route](diagram.png)\n\n![Gone](missing.png)\n\n![Out](../../../../secret.png)\n"),
		"content/posts/trip/cover.jpg":   imagemetatest.MetaJPEG(t),
		"content/posts/trip/diagram.png": imagemetatest.PNG(t, 30, 20),
		"content/posts/plain.md":         []byte("---\ntitle: Plain\ndate: 2021-03-05\n---\n![A](/images/a.png)\n"),
		"static/images/a.png":            imagemetatest.PNG(t, 31, 20),
	}
	jekyll = map[string][]byte{
		"_config.yml":               []byte("title: Walks\n"),
		"_posts/2020-01-02-walk.md": []byte("---\ntitle: A walk\n---\n![B](/assets/img/b.jpg)\n"),
		"assets/img/b.jpg":          imagemetatest.JPEG(t, 20, 20),
	}
	return hugo, jekyll
}

// writeSite writes files into a folder beside a file secret.png, and
// returns the folder.
func writeSite(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "secret.png"), imagemetatest.PNG(t, 40, 40), 0o600); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "site")
	for name, b := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// zipSite packs files, with an entry that climbs out of the archive.
func zipSite(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	names := []string{"../secret.png"}
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range names {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		b, ok := files[n]
		if !ok {
			b = imagemetatest.PNG(t, 40, 40)
		}
		if _, err := w.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestImportBringsASitesOwnImagesHome(t *testing.T) {
	hugo, jekyll := mediaSites(t)
	type result struct {
		Media    struct{ Created, Skipped, Changed int } `json:"media"`
		Posts    struct{ Created, Skipped, Changed int } `json:"posts"`
		Warnings []string                                `json:"warnings"`
	}
	forms := []struct {
		name string
		// importSite imports files with -media and returns its result.
		importSite func(t *testing.T, site mediaSite, files map[string][]byte) result
	}{
		{"folder", func(t *testing.T, site mediaSite, files map[string][]byte) result {
			dir := writeSite(t, files)
			code, out, errOut := folio("import", "-config", site.config, "-media", dir)
			if code != 0 {
				t.Fatalf("import: exit %d\n%s\n%s", code, out, errOut)
			}
			// The command's report, as the API's result.
			var r result
			for _, line := range strings.Split(out, "\n") {
				f := strings.Fields(line)
				if len(f) == 4 && (f[0] == "media" || f[0] == "posts") {
					c := &r.Media
					if f[0] == "posts" {
						c = &r.Posts
					}
					for i, n := range []*int{&c.Created, &c.Skipped, &c.Changed} {
						var err error
						if *n, err = strconv.Atoi(f[i+1]); err != nil {
							t.Fatalf("report line %q", line)
						}
					}
				}
				if rest, ok := strings.CutPrefix(line, "  "); ok && strings.Contains(rest, ": ") {
					r.Warnings = append(r.Warnings, rest)
				}
			}
			return r
		}},
		{"zip", func(t *testing.T, site mediaSite, files map[string][]byte) result {
			var r result
			httpxtest.Into(t, site.admin.Upload("/api/v1/admin/import", "file", "site.zip", zipSite(t, files), "media", "1").Expect(200).B().Data, &r)
			return r
		}},
	}
	for _, form := range forms {
		t.Run(form.name, func(t *testing.T) {
			site := newMediaSite(t)
			const trip = "content/posts/trip/index.md"
			res := form.importSite(t, site, hugo)
			if res.Media.Created != 3 || res.Media.Changed != 2 || res.Posts.Created != 2 {
				t.Errorf("Hugo: media %+v, posts %+v; warnings %q", res.Media, res.Posts, res.Warnings)
			}
			for _, w := range []string{
				trip + ": image missing.png left at its address: the site has no file content/posts/trip/missing.png",
				trip + ": image ../../../../secret.png left at its address: it is outside the site",
			} {
				if !strings.Contains(strings.Join(res.Warnings, "\n"), w) {
					t.Errorf("no warning %q in %q", w, res.Warnings)
				}
			}
			if res = form.importSite(t, site, jekyll); res.Media.Created != 1 || res.Media.Changed != 0 {
				t.Errorf("Jekyll: media %+v; warnings %q", res.Media, res.Warnings)
			}

			md, cover := site.markdownOf(t, "trip")
			d := destinations(md)
			plain, _ := site.markdownOf(t, "plain")
			walk, _ := site.markdownOf(t, "walk")
			if len(d) != 3 || d[1] != "missing.png" || d[2] != "../../../../secret.png" || len(destinations(plain)) != 1 || len(destinations(walk)) != 1 {
				t.Fatalf("destinations %q, %q, %q", d, destinations(plain), destinations(walk))
			}
			// Each link serves the site's file, stripped like any upload.
			for link, orig := range map[string][]byte{
				cover:                  hugo["content/posts/trip/cover.jpg"],
				d[0]:                   hugo["content/posts/trip/diagram.png"],
				destinations(plain)[0]: hugo["static/images/a.png"],
				destinations(walk)[0]:  jekyll["assets/img/b.jpg"],
			} {
				if !strings.HasPrefix(link, "/i/") {
					t.Errorf("%q is no short link", link)
					continue
				}
				want := imagemetatest.ReadAll(t, imagemeta.NewStripReader(bytes.NewReader(orig)))
				if got := site.admin.Clone().Do("GET", link, nil).Expect(200).Body; !bytes.Equal(got, want) {
					t.Errorf("%s serves %d bytes, want the %d of the site's file, stripped", link, len(got), len(want))
				}
			}
			if photo := site.admin.Clone().Do("GET", cover, nil).Expect(200).Body; bytes.Contains(photo, []byte("SECRET-XMP")) ||
				!bytes.Contains(hugo["content/posts/trip/cover.jpg"], []byte("SECRET-XMP")) {
				t.Error("the cover's metadata was not stripped")
			}
			if n := site.count(t, "SELECT COUNT(*) FROM files"); n != 4 {
				t.Errorf("%d files stored, want 4: the secret is none of them", n)
			}

			// Importing again stores nothing and finds the posts the same.
			res = form.importSite(t, site, hugo)
			if res.Media.Created != 0 || res.Media.Skipped != 3 || res.Posts.Skipped != 2 || res.Posts.Created != 0 {
				t.Errorf("again: media %+v, posts %+v; warnings %q", res.Media, res.Posts, res.Warnings)
			}
			if again, _ := site.markdownOf(t, "trip"); again != md {
				t.Errorf("the Markdown changed:\n%s", again)
			}
			if n := site.count(t, "SELECT COUNT(*) FROM files"); n != 4 {
				t.Errorf("%d files after the second import", n)
			}
			// The background making of image sizes holds an intent while it
			// works: it must end, and leave none.
			waitForImageJobs(t, site.app.db)
			if n := site.count(t, "SELECT COUNT(*) FROM storage_intents"); n != 0 {
				t.Errorf("%d storage intents left", n)
			}
		})
	}
}
