package filehost

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"folio/sqlstore/sqlstoretest"
)

// testClock is a settable clock for the services of a test, safe to read
// from handlers while the test moves it.
type testClock struct{ at atomic.Int64 }

func newTestClock(envs ...*testEnv) *testClock {
	c := &testClock{}
	c.at.Store(time.Now().UnixMicro())
	for _, e := range envs {
		e.svc.now = c.now
	}
	return c
}

func (c *testClock) now() time.Time          { return time.UnixMicro(c.at.Load()) }
func (c *testClock) advance(d time.Duration) { c.at.Add(d.Microseconds()) }

// fileJSON is the part of a file record these tests read.
type fileJSON struct {
	ID        string     `json:"id"`
	ExpiresAt *time.Time `json:"expires_at"`
}

func TestUploadExpiryFieldsAreChecked(t *testing.T) {
	e := newTestEnv(t)
	userID, c := e.newUser("alice", 0)
	for _, tt := range []struct {
		name   string
		fields []string
		msg    string
	}{
		{"zero seconds", []string{"expires_in", "0"}, "expires_in must be"},
		{"negative seconds", []string{"expires_in", "-5"}, "expires_in must be"},
		{"not a number", []string{"expires_in", "1h"}, "expires_in must be"},
		{"beyond ten years", []string{"expires_in", "316224001"}, "expires_in must be"},
		{"not RFC 3339", []string{"expires_at", "tomorrow"}, "expires_at must be an RFC 3339"},
		{"in the past", []string{"expires_at", "2020-01-01T00:00:00Z"}, "expires_at must be in the future"},
		{"too far ahead", []string{"expires_at", "2099-01-01T00:00:00Z"}, "at most ten years"},
		{"both", []string{"expires_in", "60", "expires_at", "2030-01-01T00:00:00Z"}, "not both"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := c.Upload("/api/v1/upload", "file", "a.png", pngBytes(t, 3, 3), tt.fields...).Expect(http.StatusBadRequest).U()
			if env.Status || env.Code != 40000 || !strings.Contains(env.Message, tt.msg) {
				t.Fatalf("answer %+v, want code 40000 and %q", env, tt.msg)
			}
		})
	}
	if used, n := e.usage(userID); used != 0 || n != 0 {
		t.Fatalf("refused uploads stored something: %d bytes, %d files", used, n)
	}
}

func TestExpiredFilesAreInvisibleAtOnce(t *testing.T) {
	e := newTestEnv(t)
	clock := newTestClock(e)
	aliceID, alice := e.newUser("alice", 0)
	_, bob := e.newUser("bob", 0)

	lonely := mustUpload(t, alice, "lonely.png", pngBytes(t, 5, 4), "expires_in", "60")
	shared := pngBytes(t, 6, 4)
	brief := mustUpload(t, alice, "brief.png", shared, "expires_at", clock.now().Add(time.Minute).UTC().Format(time.RFC3339))
	kept := mustUpload(t, bob, "kept.png", shared)
	if kept.Links.URL != brief.Links.URL {
		t.Fatal("identical content must share its link")
	}

	var got struct{ Data fileJSON }
	json.Unmarshal(alice.Do("GET", "/api/v1/files/"+lonely.ID, nil).Expect(200).Body, &got)
	if got.Data.ExpiresAt == nil || got.Data.ExpiresAt.Sub(clock.now()) > time.Minute || got.Data.ExpiresAt.Sub(clock.now()) < 59*time.Second {
		t.Fatalf("expires_at %v, want a minute from now", got.Data.ExpiresAt)
	}
	json.Unmarshal(bob.Do("GET", "/api/v1/files/"+kept.ID, nil).Expect(200).Body, &got)
	if got.Data.ExpiresAt != nil {
		t.Fatalf("a file without expiry shows expires_at %v", got.Data.ExpiresAt)
	}
	// Served once, so each process remembers the links.
	alice.Do("GET", lonely.path(), nil).Expect(200)
	alice.Do("GET", "/t/"+lonely.hash(), nil).Expect(200)

	clock.advance(61 * time.Second)
	for _, tt := range []struct{ method, path string }{
		{"GET", "/api/v1/files/" + lonely.ID},
		{"PATCH", "/api/v1/files/" + lonely.ID},
		{"DELETE", "/api/v1/files/" + lonely.ID},
		{"GET", "/api/v1/files/" + brief.ID},
		{"GET", lonely.path()},
		{"GET", "/f/" + lonely.hash()},
		{"GET", "/t/" + lonely.hash()},
	} {
		var body any
		if tt.method == "PATCH" {
			body = map[string]any{"is_public": true}
		}
		if res := alice.Do(tt.method, tt.path, body); res.Status != http.StatusNotFound {
			t.Errorf("%s %s after expiry: %d, want 404", tt.method, tt.path, res.Status)
		}
	}
	var list struct {
		Data struct {
			Items []fileJSON `json:"items"`
			Total int        `json:"total"`
		}
	}
	json.Unmarshal(alice.Do("GET", "/api/v1/files", nil).Expect(200).Body, &list)
	if list.Data.Total != 0 || len(list.Data.Items) != 0 {
		t.Fatalf("expired files listed: %+v", list.Data)
	}
	// The content another record keeps alive is still served.
	bob.Do("GET", brief.path(), nil).Expect(200)

	// Until the sweep, the records still count against the quota.
	if _, n := e.usage(aliceID); n != 2 {
		t.Fatalf("before the sweep alice has %d records, want 2", n)
	}
	n, err := e.svc.deleteExpired(context.Background())
	if err != nil || n != 2 {
		t.Fatalf("sweep deleted %d (%v), want 2", n, err)
	}
	if used, n := e.usage(aliceID); used != 0 || n != 0 {
		t.Fatalf("after the sweep alice uses %d bytes in %d files", used, n)
	}
	if _, err := e.store.Stat(context.Background(), lonely.Key); err == nil {
		t.Error("the bytes of an expired file nobody else uses are still stored")
	}
	if _, err := e.store.Stat(context.Background(), kept.Key); err != nil {
		t.Errorf("the bytes bob still uses are gone: %v", err)
	}
	bob.Do("GET", brief.path(), nil).Expect(200)
}

func TestSharedLinkStopsWhenItsLastRecordExpires(t *testing.T) {
	e := newTestEnv(t)
	clock := newTestClock(e)
	_, alice := e.newUser("alice", 0)
	content := pngBytes(t, 7, 3)
	a := mustUpload(t, alice, "a.png", content, "expires_in", "60")
	b := mustUpload(t, alice, "b.png", content, "expires_in", "120")
	alice.Do("GET", a.path(), nil).Expect(200)
	clock.advance(90 * time.Second)
	alice.Do("GET", a.path(), nil).Expect(200) // b still lives
	clock.advance(31 * time.Second)
	alice.Do("GET", b.path(), nil).Expect(404)
}

func TestTwoProcessesSweepEachExpiredFileOnce(t *testing.T) {
	cfg := sqlstoretest.NewConfig(t)
	dir := t.TempDir()
	one := newTestEnvOn(t, cfg.Open(t), dir)
	two := newTestEnvOn(t, cfg.Open(t), dir)
	clock := newTestClock(one, two)
	ctx := context.Background()
	aliceID, alice := one.newUser("alice", 0)
	_, bob := one.newUser("bob", 0)

	const files = 30
	sharedKey := ""
	for i := 0; i < files; i++ {
		u := mustUpload(t, alice, fmt.Sprintf("f%d.png", i), pngBytes(t, 8+i, 2), "expires_in", "60")
		if i == 0 {
			mustUpload(t, bob, "keep.png", pngBytes(t, 8, 2))
			sharedKey = u.Key
		}
	}
	clock.advance(time.Minute)

	// Without the lease, as when one process's lease ran out mid-sweep:
	// both delete, and each record goes once.
	var wg sync.WaitGroup
	counts := make([]int, 2)
	for i, e := range []*testEnv{one, two} {
		wg.Add(1)
		go func(i int, e *testEnv) {
			defer wg.Done()
			n, err := e.svc.deleteExpired(ctx)
			if err != nil {
				t.Error(err)
			}
			counts[i] = n
		}(i, e)
	}
	wg.Wait()
	if counts[0]+counts[1] != files {
		t.Fatalf("the sweeps deleted %v records, want %d in all", counts, files)
	}
	if used, n := one.usage(aliceID); used != 0 || n != 0 {
		t.Fatalf("alice's usage after the sweeps: %d bytes, %d files", used, n)
	}
	var objects int
	one.db.QueryRow(ctx, "SELECT COUNT(*) FROM objects").Scan(&objects)
	if objects != 1 {
		t.Fatalf("%d objects left, want bob's one", objects)
	}
	if _, err := one.store.Stat(ctx, sharedKey); err != nil {
		t.Fatalf("bob's bytes are gone: %v", err)
	}

	// With the lease, one process sweeps and the other waits its turn.
	for i := 0; i < 10; i++ {
		mustUpload(t, alice, fmt.Sprintf("g%d.png", i), pngBytes(t, 50+i, 2), "expires_in", "60")
	}
	clock.advance(time.Minute)
	for i, e := range []*testEnv{one, two} {
		wg.Add(1)
		go func(i int, e *testEnv) {
			defer wg.Done()
			n, err := e.svc.sweep(ctx)
			if err != nil {
				t.Error(err)
			}
			counts[i] = n
		}(i, e)
	}
	wg.Wait()
	if counts[0]+counts[1] != 10 || counts[0] != 0 && counts[1] != 0 {
		t.Fatalf("leased sweeps deleted %v, want 10 by one of them", counts)
	}
}

func TestSweeperStopsWithItsContext(t *testing.T) {
	e := newTestEnv(t)
	clock := newTestClock(e)
	_, alice := e.newUser("alice", 0)
	u := mustUpload(t, alice, "x.png", pngBytes(t, 2, 9), "expires_in", "1")
	clock.advance(2 * time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		e.svc.RunSweeper(ctx)
		close(done)
	}()
	// The first sweep runs at once.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n int
		e.db.QueryRow(context.Background(), "SELECT COUNT(*) FROM files WHERE id = $1", u.ID).Scan(&n)
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the sweeper did not delete the expired file")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	var held int
	e.db.QueryRow(context.Background(), "SELECT COUNT(*) FROM leases WHERE name = $1", sweepLease).Scan(&held)
	if held != 0 {
		t.Fatal("a stopped sweeper keeps its lease")
	}
}

func TestDownloadsCarryTheUploadersName(t *testing.T) {
	e := newTestEnv(t)
	_, alice := e.newUser("alice", 0)
	for _, tt := range []struct{ name, fallback string }{
		{"报告 2026.pdf", "__ 2026.pdf"},
		{`say "hi"; now.pdf`, `say _hi_; now.pdf`},
		{`back\slash 100%.pdf`, "slash 100_.pdf"},
		{"plain.pdf", "plain.pdf"},
	} {
		t.Run(tt.fallback, func(t *testing.T) {
			content := append([]byte(tt.name), pdfBytes...)
			u := mustUpload(t, alice, tt.name, content)
			res := alice.Do("GET", "/f/"+u.hash(), nil).Expect(200)
			cd := res.Header.Get("Content-Disposition")
			kind, params, err := mime.ParseMediaType(cd)
			if err != nil || kind != "attachment" {
				t.Fatalf("Content-Disposition %q: %v", cd, err)
			}
			// ParseMediaType prefers filename* and decodes it.
			if params["filename"] != u.OriginName {
				t.Errorf("name %q, want %q (header %q)", params["filename"], u.OriginName, cd)
			}
			if !strings.Contains(cd, `filename="`+tt.fallback+`"`) {
				t.Errorf("header %q lacks the ASCII fallback %q", cd, tt.fallback)
			}
		})
	}
	// The oldest live record names shared content; inline links carry it too.
	_, bob := e.newUser("bob", 0)
	img := pngBytes(t, 9, 9)
	first := mustUpload(t, alice, "first.png", img)
	mustUpload(t, bob, "second.png", img)
	res := bob.Do("GET", first.path(), nil).Expect(200)
	if _, params, _ := mime.ParseMediaType(res.Header.Get("Content-Disposition")); params["filename"] != "first.png" ||
		!strings.HasPrefix(res.Header.Get("Content-Disposition"), "inline;") {
		t.Fatalf("inline Content-Disposition %q", res.Header.Get("Content-Disposition"))
	}
	// A rename shows at once in this process.
	alice.Do("PATCH", "/api/v1/files/"+first.ID, map[string]any{"origin_name": "renamed.png"}).Expect(200)
	res = bob.Do("GET", "/f/"+first.hash(), nil).Expect(200)
	if _, params, _ := mime.ParseMediaType(res.Header.Get("Content-Disposition")); params["filename"] != "renamed.png" {
		t.Fatalf("after the rename: %q", res.Header.Get("Content-Disposition"))
	}
}

func TestConsoleUploadSetsAndShowsTheExpiry(t *testing.T) {
	e := newTestEnv(t)
	_, b := e.consoleUser("alice")
	page := b.Do("GET", "/console/upload", nil).Expect(200)
	if !contains(page, `<select id="upload-expires" name="expires_in">`, `<option value="86400">1 day</option>`) {
		t.Fatalf("the upload form offers no expiry: %s", page.Body)
	}
	tok := page.FormToken()
	res := postFiles(t, b, "/console/upload?form_token="+tok, "", []formFile{{"soon.png", pngBytes(t, 4, 4)}}, "expires_in", "86400")
	if res.Status != 200 || !contains(res, `<option value="86400" selected>1 day</option>`) {
		t.Fatalf("upload: %d %s", res.Status, res.Body)
	}
	var id string
	e.db.QueryRow(context.Background(), "SELECT id FROM files WHERE expires_at IS NOT NULL").Scan(&id)
	if id == "" {
		t.Fatal("the console upload stored no expiry")
	}
	if detail := b.Do("GET", "/console/files/"+id, nil).Expect(200); !contains(detail, "<dt>Deleted at</dt>") {
		t.Fatalf("the file page does not show the expiry: %s", detail.Body)
	}
}

func TestSweepTakesTheLeaseOfADeadProcessAtOnce(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	dead := e.deadInstance()
	if ok, err := e.db.TryLease(ctx, sweepLease, dead, time.Now(), time.Hour); err != nil || !ok {
		t.Fatalf("the dead process's lease: %v, %v", ok, err)
	}
	clock := newTestClock(e)
	_, alice := e.newUser("alice", 0)
	mustUpload(t, alice, "x.png", pngBytes(t, 3, 3), "expires_in", "1")
	clock.advance(2 * time.Second)
	n, err := e.svc.sweep(ctx)
	if err != nil || n != 1 {
		t.Fatalf("sweep beside a dead holder's lease deleted %d (%v), want 1", n, err)
	}
	if holder, _ := e.db.LeaseHolder(ctx, sweepLease); holder != e.instance.ID {
		t.Fatalf("the lease is %q's, want this process's %q", holder, e.instance.ID)
	}
	// A live holder keeps it.
	e.db.ReleaseLease(ctx, sweepLease, e.instance.ID)
	other := newTestEnvOn(t, e.db, t.TempDir())
	if n, err := other.svc.sweep(ctx); err != nil || n != 0 {
		t.Fatalf("other sweep: %d, %v", n, err)
	}
	if n, err := e.svc.sweep(ctx); err != nil || n != 0 {
		t.Fatalf("sweep beside a live holder: %d, %v", n, err)
	}
	if holder, _ := e.db.LeaseHolder(ctx, sweepLease); holder != other.instance.ID {
		t.Fatalf("the live holder lost its lease to %q", holder)
	}
}
