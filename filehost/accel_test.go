package filehost

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"folio/httpx/httpxtest"
	"folio/sqlstore/sqlstoretest"
	"folio/storage"
)

// nginxPath is Debian's nginx; without it the test skips, except in CI,
// where .ci/run installs it.
func nginxPath(t *testing.T) string {
	p, err := exec.LookPath("nginx")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("nginx is not on PATH (Debian package nginx); CI must run the offload test")
		}
		t.Skip("nginx is not installed")
	}
	return p
}

// docsAccelLocation is the internal location of docs/operating.md's
// "nginx sends the files", the files folder put in place of the
// documented one: the test runs the configuration the operator copies.
func docsAccelLocation(t *testing.T, filesDir string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "docs", "operating.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(raw), "\n### nginx sends the files\n")
	if !ok {
		t.Fatal(`docs/operating.md has no section "nginx sends the files"`)
	}
	_, block, ok := strings.Cut(sec, "```nginx\n")
	if !ok {
		t.Fatal("the section has no nginx block")
	}
	block, _, _ = strings.Cut(block, "```")
	const documented = "alias /var/lib/folio/files/;"
	if strings.Count(block, documented) != 1 {
		t.Fatalf("the nginx block of the section does not say %q once:\n%s", documented, block)
	}
	return strings.Replace(block, documented, "alias "+filesDir+"/;", 1)
}

// startNginx runs nginx in the foreground under dir with servers, on
// free loopback ports given to servers in order, and returns their bases.
func startNginx(t *testing.T, bin, dir string, servers ...func(listen string) string) []string {
	t.Helper()
	var bases, blocks []string
	for _, server := range servers {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		bases = append(bases, "http://"+addr)
		blocks = append(blocks, server(addr))
	}
	user := ""
	if os.Geteuid() == 0 {
		// Workers would otherwise run as nobody, who cannot read the
		// test's private folders.
		user = "user root;\n"
	}
	conf := fmt.Sprintf(`%sworker_processes 1;
pid %[2]s/nginx.pid;
error_log %[2]s/error.log warn;
events { worker_connections 256; }
http {
	access_log off;
	client_body_temp_path %[2]s/body;
	proxy_temp_path %[2]s/proxy;
	fastcgi_temp_path %[2]s/fastcgi;
	uwsgi_temp_path %[2]s/uwsgi;
	scgi_temp_path %[2]s/scgi;
	sendfile on;
%s
}
`, user, dir, strings.Join(blocks, "\n"))
	confPath := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", dir, "-e", filepath.Join(dir, "error.log"), "-c", confPath, "-g", "daemon off;")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "error.log")); t.Failed() && len(b) > 0 {
			t.Logf("nginx error log:\n%s", b)
		}
	})
	for _, base := range bases {
		for i := 0; ; i++ {
			select {
			case <-done:
				b, _ := os.ReadFile(filepath.Join(dir, "error.log"))
				t.Fatalf("nginx exited at start-up: %s%s\n%s", &out, b, conf)
			default:
			}
			if c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://")); err == nil {
				c.Close()
				break
			}
			if i == 200 {
				t.Fatal("nginx did not listen within 10 s")
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return bases
}

// proxyTo is the server block of nginx in front of folio at upstream,
// with more (the internal location) in it.
func proxyTo(upstream, more string) func(listen string) string {
	return func(listen string) string {
		return fmt.Sprintf(`server {
	listen %s;
	location / {
		proxy_pass %s;
		proxy_http_version 1.1;
		proxy_set_header Host $http_host;
		proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
		proxy_set_header Connection "";
	}
%s
}`, listen, upstream, more)
	}
}

// With storage.local.accel_redirect, nginx sends the files, and what a
// client gets is exactly what it gets when Folio sends them: two processes
// of one site, one with offload and one without, each behind nginx, answer
// the same requests with the same status, body and headers.
func TestNginxSendsTheFiles(t *testing.T) {
	bin := nginxPath(t)
	db := sqlstoretest.Open(t)
	files := t.TempDir()
	store, err := storage.NewLocal(files)
	if err != nil {
		t.Fatal(err)
	}
	off := newTestEnvStore(t, db, store, nil)
	on := newTestEnvStore(t, db, store, func(d *Deps) { d.AccelRedirect = "/_folio_files/" })
	bases := startNginx(t, bin, t.TempDir(),
		proxyTo(off.c.Base, ""), proxyTo(on.c.Base, docsAccelLocation(t, files)))

	_, alice := off.newUser("alice", 0)
	picture := pngBytes(t, 900, 600)
	pic := mustUpload(t, alice, "Sunset über Kyoto.png", picture)
	secret := mustUpload(t, alice, "secret.png", pngBytes(t, 40, 30), "visibility", "restricted")
	doc := mustUpload(t, alice, "report.pdf", pdfBytes)
	sh := mustShare(t, alice, secret.ID, nil) // a restricted file is served through its share links
	raw := rawPath(t, browser(off.c).Do("GET", sh.path(), nil).Expect(200))
	if !strings.Contains(pic.Links.ThumbnailURL, "/t/") {
		t.Fatalf("no thumbnail link: %+v", pic.Links)
	}
	thumb := pic.Links.ThumbnailURL[strings.Index(pic.Links.ThumbnailURL, "/t/"):]
	// The thumbnail and the size are made on first request; the second
	// is the one nginx sends.
	for _, p := range []string{thumb, pic.path() + "?w=320"} {
		off.c.Do("GET", p, nil).Expect(200)
	}

	anyone := func(base string) *httpxtest.Client { return httpxtest.NewClient(t, base) }
	owner := func(base string) *httpxtest.Client {
		c := httpxtest.NewClient(t, base)
		c.Header = alice.Header.Clone()
		return c
	}
	type request struct {
		name    string
		client  func(base string) *httpxtest.Client
		method  string
		path    string
		headers []string
		status  int
		// sent is whether nginx sends the bytes (Folio's own answer has
		// X-Accel-Redirect); else Folio answers.
		sent bool
	}
	etag := `"` + pic.MD5 + `"`
	reqs := []request{
		{"short link", anyone, "GET", pic.path(), nil, 200, true},
		{"short link with its name", anyone, "GET", pic.path() + ".png", nil, 200, true},
		{"attachment", anyone, "GET", "/f/" + pic.hash(), nil, 200, true},
		{"sandboxed type", anyone, "GET", doc.path(), nil, 200, true},
		{"range", anyone, "GET", pic.path(), []string{"Range", "bytes=10-99"}, 206, true},
		{"range to the end", anyone, "GET", pic.path(), []string{"Range", "bytes=100-"}, 206, true},
		{"range of all", anyone, "GET", pic.path(), []string{"Range", "bytes=0-"}, 206, true},
		{"suffix range", anyone, "GET", pic.path(), []string{"Range", "bytes=-50"}, 206, true},
		{"range past the end", anyone, "GET", pic.path(), []string{"Range", "bytes=100-99999999"}, 206, true},
		{"suffix range longer than the file", anyone, "GET", pic.path(), []string{"Range", "bytes=-99999999"}, 206, true},
		{"unsatisfiable range", anyone, "GET", pic.path(), []string{"Range", "bytes=99999999-"}, 416, false},
		{"HEAD", anyone, "HEAD", pic.path(), nil, 200, false},
		{"HEAD of a range", anyone, "HEAD", pic.path(), []string{"Range", "bytes=0-9"}, 206, false},
		{"If-None-Match, matching", anyone, "GET", pic.path(), []string{"If-None-Match", etag}, 304, false},
		{"If-None-Match, weak and listed", anyone, "GET", pic.path(), []string{"If-None-Match", `"x", W/` + etag}, 304, false},
		{"If-None-Match, not matching", anyone, "GET", pic.path(), []string{"If-None-Match", `"other"`}, 200, true},
		{"If-None-Match, not matching, with an old date", anyone, "GET", pic.path(),
			[]string{"If-None-Match", `"other"`, "If-Modified-Since", "Mon, 01 Jan 2035 00:00:00 GMT"}, 200, true},
		{"If-Modified-Since", anyone, "GET", pic.path(), []string{"If-Modified-Since", "Mon, 01 Jan 2035 00:00:00 GMT"}, 304, false},
		{"If-Match, not matching", anyone, "GET", pic.path(), []string{"If-Match", `"other"`}, 412, false},
		{"If-Range, matching", anyone, "GET", pic.path(), []string{"Range", "bytes=0-9", "If-Range", etag}, 206, false},
		{"If-Range, not matching", anyone, "GET", pic.path(), []string{"Range", "bytes=0-9", "If-Range", `"other"`}, 200, false},
		{"thumbnail", anyone, "GET", thumb, nil, 200, true},
		{"thumbnail, If-None-Match", anyone, "GET", thumb, []string{"If-None-Match", `"t-` + pic.MD5 + `"`}, 304, false},
		{"size", anyone, "GET", pic.path() + "?w=320", nil, 200, true},
		{"size, range", anyone, "GET", pic.path() + "?w=320", []string{"Range", "bytes=5-"}, 206, true},
		{"restricted, its owner", owner, "GET", secret.path(), nil, 200, true},
		{"restricted, its owner, HEAD", owner, "HEAD", secret.path(), nil, 200, false},
		{"restricted, anyone else", anyone, "GET", secret.path(), nil, 404, false},
		{"restricted thumbnail, anyone else", anyone, "GET", "/t/" + secret.hash(), nil, 404, false},
		{"share download", anyone, "GET", raw + "&download=1", nil, 200, true},
		{"share, inline", anyone, "GET", raw, nil, 200, true},
		{"share, range", anyone, "GET", raw, []string{"Range", "bytes=3-7"}, 206, true},
		{"share, bad ticket", anyone, "GET", raw[:len(raw)-2] + "xx", nil, 404, false},
		{"missing link", anyone, "GET", "/i/" + strings.Repeat("0", 8), nil, 404, false},
	}
	// Headers that differ between any two responses.
	ignored := []string{"Date", "Connection", "Keep-Alive"}
	for _, rq := range reqs {
		t.Run(rq.name, func(t *testing.T) {
			want := rq.client(bases[0]).Do(rq.method, rq.path, nil, rq.headers...)
			got := rq.client(bases[1]).Do(rq.method, rq.path, nil, rq.headers...)
			if want.Status != rq.status {
				t.Fatalf("without offload: %d, want %d: %s", want.Status, rq.status, want.Body)
			}
			if got.Status != want.Status || !bytes.Equal(got.Body, want.Body) {
				t.Fatalf("with offload: %d and %d bytes, without: %d and %d bytes", got.Status, len(got.Body), want.Status, len(want.Body))
			}
			if want.Status == 200 || want.Status == 206 {
				for _, h := range []string{"Content-Type", "ETag", "Last-Modified", "Cache-Control", "X-Content-Type-Options", "Accept-Ranges", "Content-Length"} {
					if want.Header.Get(h) == "" {
						t.Errorf("no %s to compare", h)
					}
				}
			}
			for _, h := range ignored {
				want.Header.Del(h)
				got.Header.Del(h)
			}
			for k := range mergeKeys(want.Header, got.Header) {
				if !slices.Equal(want.Header[k], got.Header[k]) {
					t.Errorf("%s: %q with offload, %q without", k, got.Header[k], want.Header[k])
				}
			}
			// Folio's own answer says whether nginx sent the bytes.
			direct := rq.client(on.c.Base).Do(rq.method, rq.path, nil, rq.headers...)
			accel := direct.Header.Get("X-Accel-Redirect")
			if sent := accel != ""; sent != rq.sent {
				t.Errorf("X-Accel-Redirect %q (%d bytes of body), want one: %v", accel, len(direct.Body), rq.sent)
			}
			if accel != "" && (len(direct.Body) != 0 || !strings.HasPrefix(accel, "/_folio_files/")) {
				t.Errorf("X-Accel-Redirect %q with %d bytes of body", accel, len(direct.Body))
			}
		})
	}
	// The restricted file's checks ran: the key alone, asked of nginx,
	// is refused (the location is internal).
	t.Run("the internal location from outside", func(t *testing.T) {
		for _, u := range []uploaded{secret, pic} {
			res := anyone(bases[1]).Do("GET", "/_folio_files/"+u.Key, nil)
			if res.Status != 404 {
				t.Errorf("GET /_folio_files/%s: %d, want nginx's 404", u.Key, res.Status)
			}
		}
	})
}

// mergeKeys is the set of the keys of a and b.
func mergeKeys(a, b http.Header) map[string]bool {
	m := map[string]bool{}
	for k := range a {
		m[k] = true
	}
	for k := range b {
		m[k] = true
	}
	return m
}
