package filehost

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"folio/auth/authtest"
	"folio/httpx/httpxtest"
	"folio/sqlstore"
	"folio/sqlstore/sqlstoretest"
)

// visJSON is the part of a file record these tests read.
type visJSON struct {
	ID         string `json:"id"`
	Visibility string `json:"visibility"`
	IsPublic   bool   `json:"is_public"`
}

func getVis(t *testing.T, c *httpxtest.Client, id string) visJSON {
	t.Helper()
	var got struct{ Data visJSON }
	if err := json.Unmarshal(c.Do("GET", "/api/v1/files/"+id, nil).Expect(200).Body, &got); err != nil {
		t.Fatal(err)
	}
	return got.Data
}

func setVis(t *testing.T, c *httpxtest.Client, id, v string) {
	t.Helper()
	var got struct{ Data visJSON }
	if err := json.Unmarshal(c.Do("PATCH", "/api/v1/files/"+id, map[string]any{"visibility": v}).Expect(200).Body, &got); err != nil {
		t.Fatal(err)
	}
	if got.Data.Visibility != v || got.Data.IsPublic != (v == "public") {
		t.Fatalf("PATCH visibility %s answered %+v", v, got.Data)
	}
}

// answer is what a response shows a client: status, body and headers but
// the date.
func answer(r *httpxtest.Response) string {
	h := r.Header.Clone()
	h.Del("Date")
	keys := slices.Sorted(maps.Keys(h))
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + ": " + strings.Join(h[k], ", ") + "\n")
	}
	return http.StatusText(r.Status) + "\n" + b.String() + "\n" + string(r.Body)
}

const htmlAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

// A restricted file is served to its owner's token and session alone; to
// anyone else (another user, the administrator, nobody) every one of its
// links answers exactly as a link that never existed, in JSON and in HTML,
// for GET and HEAD.
func TestRestrictedFilesAnswerOthersAsMissing(t *testing.T) {
	e := newTestEnv(t)
	_, alice := e.newUser("alice", 0)
	_, bob := e.newUser("bob", 0)
	content := pngBytes(t, 30, 20)
	u := mustUpload(t, alice, "secret.png", content, "visibility", "restricted")
	if got := getVis(t, alice, u.ID); got.Visibility != "restricted" || got.IsPublic {
		t.Fatalf("uploaded restricted: %+v", got)
	}
	h := u.hash()
	paths := []string{"/i/" + h, "/i/" + h + ".png", "/f/" + h, "/t/" + h}
	// A link of the same shape that never existed.
	missing := "ffffffff"
	if h == missing {
		missing = "eeeeeeee"
	}
	missOf := func(p string) string { return strings.Replace(p, h, missing, 1) }

	session := e.consoleAs("alice", testPassword)
	session.Header.Del("Authorization")
	for name, c := range map[string]*httpxtest.Client{"token": alice, "session": session} {
		for _, p := range paths {
			r := c.Do("GET", p, nil).Expect(200)
			if p[1] != 't' && !bytes.Equal(r.Body, content) {
				t.Errorf("%s: GET %s served other bytes", name, p)
			}
			if cc := r.Header.Get("Cache-Control"); !strings.HasPrefix(cc, "private") {
				t.Errorf("%s: GET %s Cache-Control %q: a shared cache may keep it", name, p, cc)
			}
		}
	}

	anonymous := e.c.Clone()
	others := map[string]*httpxtest.Client{"anonymous": anonymous, "another user": bob, "the administrator": e.admin,
		"a bad token": func() *httpxtest.Client { c := e.c.Clone(); c.Header.Set("Authorization", "Bearer nope"); return c }()}
	// Each round asks from an address of its own, so that the misses it
	// collects stay under the per-address miss limit (docs/api.md#limits).
	round := 0
	for name, c := range others {
		for _, accept := range []string{"application/json", htmlAccept} {
			for _, method := range []string{"GET", "HEAD"} {
				round++
				c := c.Clone()
				c.Header.Set("X-Forwarded-For", fmt.Sprintf("198.51.100.%d", round))
				for _, p := range paths {
					got := answer(c.Do(method, p, nil, "Accept", accept))
					want := answer(c.Do(method, missOf(p), nil, "Accept", accept))
					if got != want {
						t.Errorf("%s, %s %s (Accept %s):\n%s\nwant, as a missing link:\n%s", name, method, p, accept, got, want)
					}
					if !strings.HasPrefix(got, "Not Found") {
						t.Errorf("%s, %s %s: %s", name, method, p, got)
					}
				}
			}
		}
	}
	// The administrator's grid lists it, with its badge rather than a
	// thumbnail that would not load.
	grid := e.consoleAdmin().Do("GET", "/console/admin/files", nil).Expect(200)
	if !contains(grid, "secret.png") || contains(grid, "/t/"+h) {
		t.Fatalf("the admin grid: %s", grid.Body)
	}
	// Its size is not known to the blog either.
	if sizes, err := e.svc.ImageSizes(t.Context(), []string{h}); err != nil || len(sizes) != 0 {
		t.Fatalf("ImageSizes of a restricted image = %v, %v", sizes, err)
	}
}

// A share link of a restricted file shows it to anyone while it lives;
// once revoked, nothing serves the file to them, and its short link still
// answers as missing.
func TestRestrictedFilesThroughShareLinks(t *testing.T) {
	e := newTestEnv(t)
	_, alice := e.newUser("alice", 0)
	content := pngBytes(t, 30, 20)
	u := mustUpload(t, alice, "secret.png", content, "visibility", "restricted")
	sh := mustShare(t, alice, u.ID, nil)
	b := browser(e.c)
	page := b.Do("GET", sh.path(), nil).Expect(200)
	if bytes.Contains(page.Body, []byte("/i/"+u.hash())) || bytes.Contains(page.Body, []byte("/t/"+u.hash())) {
		t.Fatalf("the share page gives the short link away: %s", page.Body)
	}
	raw := rawPath(t, page)
	if r := b.Do("GET", raw, nil).Expect(200); !bytes.Equal(r.Body, content) {
		t.Fatal("the share link's bytes are not the file")
	}
	b.Do("GET", "/i/"+u.hash(), nil).Expect(404)

	alice.Do("DELETE", "/api/v1/files/"+u.ID+"/shares/"+sh.ID, nil).Expect(200)
	for _, p := range []string{sh.path(), raw, raw + "&download=1", "/i/" + u.hash(), "/f/" + u.hash(), "/t/" + u.hash()} {
		b.Do("GET", p, nil).Expect(404)
		e.c.Do("GET", p, nil).Expect(404)
	}
	alice.Do("GET", "/i/"+u.hash(), nil).Expect(200)
}

// Who may read a link changes with its records' visibility on the very
// next request, through this process and through another one serving the
// same database that had the link remembered.
func TestVisibilityChangesShowAtOnceInEveryProcess(t *testing.T) {
	e := newTestEnv(t)
	_, alice := e.newUser("alice", 0)
	_, other := e.otherProcess(t)
	u := mustUpload(t, alice, "a.png", pngBytes(t, 30, 20), "visibility", "unlisted")
	for _, p := range []string{"/i/", "/t/", "/f/"} {
		e.c.Do("GET", p+u.hash(), nil).Expect(200)
		other.Do("GET", p+u.hash(), nil).Expect(200)
	}
	for _, step := range []struct {
		visibility string
		status     int
	}{{"restricted", 404}, {"public", 200}, {"restricted", 404}, {"unlisted", 200}} {
		setVis(t, alice, u.ID, step.visibility)
		for _, p := range []string{"/i/", "/t/", "/f/"} {
			e.c.Do("GET", p+u.hash(), nil).Expect(step.status)
			other.Do("GET", p+u.hash(), nil).Expect(step.status)
		}
	}
}

// Two processes of other machines share no change counters: each then
// resolves a short link from the database on every request rather than
// trusting what it remembers, so a file made restricted through one is
// refused by the other at once, and served again once unlisted.
func TestVisibilityChangesShowAtOnceWithoutSharedCounters(t *testing.T) {
	cfg := sqlstoreConfig(t)
	if cfg.Driver != "postgres" {
		t.Skip("on SQLite every process shares the database's change counters: FOLIO_TEST_POSTGRES_DSN runs this")
	}
	dir := t.TempDir()
	one := newTestEnvOn(t, cfg.Open(t), dir)
	two := newTestEnvOn(t, cfg.Open(t), dir) // its own handle: counters of its own
	_, alice := one.newUser("alice", 0)
	u := mustUpload(t, alice, "a.png", pngBytes(t, 30, 20), "visibility", "unlisted")
	for _, step := range []struct {
		visibility string
		status     int
	}{{"unlisted", 200}, {"restricted", 404}, {"unlisted", 200}} {
		setVis(t, alice, u.ID, step.visibility)
		for _, p := range []string{"/i/", "/t/", "/f/"} {
			for range 2 { // the second must not come from memory either
				two.c.Do("GET", p+u.hash(), nil).Expect(step.status)
			}
		}
	}
}

// Content uploaded by several users has one short link: anyone may read it
// while one of its records is public or unlisted; when all are restricted,
// only their owners may.
func TestSharedContentIsOpenWhileOneRecordIs(t *testing.T) {
	e := newTestEnv(t)
	_, alice := e.newUser("alice", 0)
	_, bob := e.newUser("bob", 0)
	_, carol := e.newUser("carol", 0)
	content := pngBytes(t, 31, 21)
	a := mustUpload(t, alice, "a.png", content, "visibility", "restricted")
	e.c.Do("GET", a.path(), nil).Expect(404)
	b := mustUpload(t, bob, "b.png", content, "visibility", "restricted")
	if b.hash() != a.hash() {
		t.Fatalf("one content, two links: %s %s", a.hash(), b.hash())
	}
	bob.Do("GET", a.path(), nil).Expect(200) // bob owns a record now
	carol.Do("GET", a.path(), nil).Expect(404)
	setVis(t, bob, b.ID, "unlisted")
	e.c.Do("GET", a.path(), nil).Expect(200)
	carol.Do("GET", a.path(), nil).Expect(200)
	bob.Do("DELETE", "/api/v1/files/"+b.ID, nil).Expect(200)
	e.c.Do("GET", a.path(), nil).Expect(404)
	bob.Do("GET", a.path(), nil).Expect(404)
	alice.Do("GET", a.path(), nil).Expect(200)
}

// Lsky's permission: 0 is unlisted (served to anyone, listed nowhere), 1
// public (in the plaza); with neither it nor visibility, the user's
// default applies, which starts as unlisted.
func TestUploadVisibility(t *testing.T) {
	e := newTestEnv(t)
	_, c := e.newUser("alice", 0)
	for i, tc := range []struct {
		name     string
		fields   []string
		want     string
		default_ string
	}{
		{"nothing sent: the default default", nil, "unlisted", ""},
		{"permission 0", []string{"permission", "0"}, "unlisted", ""},
		{"permission 1", []string{"permission", "1"}, "public", ""},
		{"visibility", []string{"visibility", "restricted"}, "restricted", ""},
		{"both, agreeing", []string{"permission", "1", "visibility", "public"}, "public", ""},
		{"nothing sent: the user's default", nil, "restricted", "restricted"},
		{"permission wins over the default", []string{"permission", "0"}, "unlisted", "restricted"},
		{"nothing sent: public by default", nil, "public", "public"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := within(t, c)
			if tc.default_ != "" {
				var me struct {
					Data struct {
						DefaultVisibility string `json:"default_visibility"`
					}
				}
				if err := json.Unmarshal(c.Do("PATCH", "/api/v1/auth/me", map[string]any{"default_visibility": tc.default_}).Expect(200).Body, &me); err != nil {
					t.Fatal(err)
				}
				if me.Data.DefaultVisibility != tc.default_ {
					t.Fatalf("default after PATCH = %q", me.Data.DefaultVisibility)
				}
			}
			u := mustUpload(t, c, "f.png", pngBytes(t, 10+i, 10), tc.fields...)
			if got := getVis(t, c, u.ID); got.Visibility != tc.want || got.IsPublic != (tc.want == "public") {
				t.Fatalf("visibility %+v, want %s", got, tc.want)
			}
			status := map[string]int{"public": 200, "unlisted": 200, "restricted": 404}[tc.want]
			e.c.Do("GET", u.path(), nil).Expect(status)
			var plaza struct{ Data plazaJSON }
			if err := json.Unmarshal(e.c.Do("GET", "/api/v1/public/plaza?size=100", nil).Expect(200).Body, &plaza); err != nil {
				t.Fatal(err)
			}
			listed := slices.ContainsFunc(plaza.Data.Items, func(it map[string]any) bool { return it["id"] == u.ID })
			if listed != (tc.want == "public") {
				t.Fatalf("%s file in the plaza: %v", tc.want, listed)
			}
		})
	}
}

// Bad visibilities are refused with 400 40000, and change nothing.
func TestBadVisibilitiesAreRefused(t *testing.T) {
	e := newTestEnv(t)
	_, c := e.newUser("alice", 0)
	u := mustUpload(t, c, "f.png", pngBytes(t, 10, 10), "permission", "1")
	for _, tc := range []struct {
		name string
		send func() *httpxtest.Response
	}{
		{"PATCH an unknown name", func() *httpxtest.Response {
			return c.Do("PATCH", "/api/v1/files/"+u.ID, map[string]any{"visibility": "private"})
		}},
		{"PATCH an empty name", func() *httpxtest.Response {
			return c.Do("PATCH", "/api/v1/files/"+u.ID, map[string]any{"visibility": ""})
		}},
		{"PATCH a name in capitals", func() *httpxtest.Response {
			return c.Do("PATCH", "/api/v1/files/"+u.ID, map[string]any{"visibility": "PUBLIC"})
		}},
		{"PATCH a number", func() *httpxtest.Response {
			return c.Do("PATCH", "/api/v1/files/"+u.ID, `{"visibility": 1}`)
		}},
		{"PATCH is_public contradicting visibility", func() *httpxtest.Response {
			return c.Do("PATCH", "/api/v1/files/"+u.ID, map[string]any{"visibility": "restricted", "is_public": true})
		}},
		{"upload an unknown name", func() *httpxtest.Response {
			return c.Upload("/api/v1/upload", "file", "g.png", pngBytes(t, 11, 11), "visibility", "hidden")
		}},
		{"upload permission contradicting visibility", func() *httpxtest.Response {
			return c.Upload("/api/v1/upload", "file", "g.png", pngBytes(t, 11, 11), "visibility", "unlisted", "permission", "1")
		}},
		{"upload permission 2", func() *httpxtest.Response {
			return c.Upload("/api/v1/upload", "file", "g.png", pngBytes(t, 11, 11), "permission", "2")
		}},
		{"default an unknown name", func() *httpxtest.Response {
			return c.Do("PATCH", "/api/v1/auth/me", map[string]any{"default_visibility": "secret"})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.send().Expect(400)
			var env struct{ Code int }
			if err := json.Unmarshal(r.Body, &env); err != nil || env.Code != 40000 {
				t.Fatalf("answer %s", r.Body)
			}
		})
	}
	if got := getVis(t, c, u.ID); got.Visibility != "public" {
		t.Fatalf("after refused changes: %+v", got)
	}
	if n := e.count("SELECT COUNT(*) FROM files"); n != 1 {
		t.Fatalf("%d files after refused uploads", n)
	}
	var me struct {
		Data struct {
			DefaultVisibility string `json:"default_visibility"`
		}
	}
	if err := json.Unmarshal(c.Do("GET", "/api/v1/auth/me", nil).Expect(200).Body, &me); err != nil || me.Data.DefaultVisibility != "unlisted" {
		t.Fatalf("default after a refused change: %+v %v", me.Data, err)
	}
	// is_public alone still works, for older clients.
	c.Do("PATCH", "/api/v1/files/"+u.ID, map[string]any{"is_public": false}).Expect(200)
	if got := getVis(t, c, u.ID); got.Visibility != "unlisted" {
		t.Fatalf("is_public false gave %+v", got)
	}
}

// Files stored before visibilities keep what they meant: public ones stay
// public, the others (served to anyone with the link) become unlisted.
func TestVisibilityMigrationKeepsWhatFilesMeant(t *testing.T) {
	ctx := context.Background()
	db := sqlstoretest.Open(t)
	authtest.New(t, db)
	ms := migrations()
	i := slices.IndexFunc(ms, func(m sqlstore.Migration) bool { return m.Name == "file visibility" })
	if i < 0 {
		t.Fatal("no visibility migration")
	}
	if err := db.Migrate(ctx, "filehost", ms[:i]); err != nil {
		t.Fatal(err)
	}
	now := sqlstore.FromTime(time.Now())
	userID, objectID := sqlstore.NewID(), sqlstore.NewID()
	files := map[string]bool{sqlstore.NewID(): true, sqlstore.NewID(): false}
	err := db.Tx(ctx, func(tx *sqlstore.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO users (id, username, email, role, status, created_at, updated_at)
			VALUES ($1, 'old', 'old@example.com', 'user', 'active', $2, $2)`, userID, now); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO objects (id, md5, sha256, hash, storage_key, size, mimetype, extension, file_type, ref_count, created_at)
			VALUES ($1, 'm', 's', 'abcdef01', 'k.png', 1, 'image/png', 'png', 'image', 2, $2)`, objectID, now); err != nil {
			return err
		}
		for id, public := range files {
			if _, err := tx.Exec(ctx, `INSERT INTO files (id, user_id, object_id, origin_name, size, is_public, created_at, updated_at)
				VALUES ($1, $2, $3, 'a.png', 1, $4, $5, $5)`, id, userID, objectID, public, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	e := newTestEnvOn(t, db, t.TempDir())
	c := e.clientFor(userID)
	for id, public := range files {
		want := map[bool]string{true: "public", false: "unlisted"}[public]
		if got := getVis(t, c, id); got.Visibility != want || got.IsPublic != public {
			t.Errorf("is_public %v became %+v, want %s", public, got, want)
		}
	}
	if u, err := e.auth.UserByID(ctx, userID); err != nil || u.DefaultVisibility != "unlisted" {
		t.Fatalf("an existing user's default: %+v, %v", u, err)
	}
}

// A guest's upload cannot be restricted: nobody could ever read it.
func TestGuestUploadsCannotBeRestricted(t *testing.T) {
	e := newTestEnv(t)
	e.setUpload(func(u *UploadSettings) { u.AllowGuestUpload = true })
	r := e.c.Upload("/api/v1/public/upload", "file", "g.png", pngBytes(t, 12, 12), "visibility", "restricted").Expect(400)
	if env := r.U(); env.Status || env.Code != 40000 {
		t.Fatalf("answer %s", r.Body)
	}
	u := e.c.Upload("/api/v1/public/upload", "file", "g.png", pngBytes(t, 12, 12)).Expect(200)
	var up struct{ Data uploaded }
	if err := json.Unmarshal(u.Body, &up); err != nil {
		t.Fatal(err)
	}
	e.c.Do("GET", up.Data.path(), nil).Expect(200) // unlisted, the guest's default
}

// The account page sets the default visibility, which the upload page then
// starts at; an unknown one is refused.
func TestConsoleSetsTheDefaultVisibility(t *testing.T) {
	e := newTestEnv(t)
	id, b := e.consoleUser("ann")
	tok := pageToken(b, "/console/account")
	b.PostForm("/console/account/visibility", "form_token", tok, "default_visibility", "restricted").Expect(303)
	if u, err := e.auth.UserByID(context.Background(), id); err != nil || u.DefaultVisibility != "restricted" {
		t.Fatalf("default after the form: %+v, %v", u, err)
	}
	if !contains(b.Do("GET", "/console/account", nil).Expect(200), `<select id="default-visibility" name="default_visibility">`,
		`<option value="restricted" selected>`) {
		t.Fatal("the account page does not show the default")
	}
	if !contains(b.Do("GET", "/console/upload", nil).Expect(200), `<option value="restricted" selected>`) {
		t.Fatal("the upload page does not start at the default")
	}
	res := b.PostForm("/console/account/visibility", "form_token", tok, "default_visibility", "secret").Expect(422)
	if !contains(res, "Choose a visibility.") {
		t.Fatalf("refused form: %s", res.Body)
	}
	if u, _ := e.auth.UserByID(context.Background(), id); u.DefaultVisibility != "restricted" {
		t.Fatalf("a refused form changed the default to %s", u.DefaultVisibility)
	}
}
